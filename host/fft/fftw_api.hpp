// FFTW's two libraries (fftwf_* and fftw_*) behind one set of names, for the FFTW backend
// (fftw_plan.cpp) and the FFT bench's peer (fftw_peer.cpp). Only with PORTACL_HAVE_FFTW.
#pragma once

#include <fftw3.h>

#include <cstddef>

#include "fft/loop_pool.hpp"

namespace portacl::fft::detail {

template <typename Real>
struct Fftw;

template <>
struct Fftw<float> {
    using Plan = fftwf_plan;
    using Complex = fftwf_complex;
    static constexpr const char* name = "float";
    static void initThreads() {
        fftwf_init_threads();
        loopsOnEngineThreads(true);
    }
    // FFTW's parallel loops on the engine's loop pool (loop_pool.hpp), or on FFTW's own threads.
    static void loopsOnEngineThreads(bool engine) { fftwf_threads_set_callback(engine ? runParallelLoop : nullptr, nullptr); }
    static void threads(int n) { fftwf_plan_with_nthreads(n); }
    static void* malloc(std::size_t bytes) { return fftwf_malloc(bytes); }
    static void free(void* p) { fftwf_free(p); }
    static int alignmentOf(void* p) { return fftwf_alignment_of(static_cast<float*>(p)); }
    static Plan c2c(int rank, const fftw_iodim64* dims, int howRank, const fftw_iodim64* how, void* in, void* out, int sign, unsigned flags) {
        return fftwf_plan_guru64_dft(rank, dims, howRank, how, static_cast<Complex*>(in), static_cast<Complex*>(out), sign, flags);
    }
    static Plan r2c(int rank, const fftw_iodim64* dims, int howRank, const fftw_iodim64* how, void* in, void* out, unsigned flags) {
        return fftwf_plan_guru64_dft_r2c(rank, dims, howRank, how, static_cast<float*>(in), static_cast<Complex*>(out), flags);
    }
    static Plan c2r(int rank, const fftw_iodim64* dims, int howRank, const fftw_iodim64* how, void* in, void* out, unsigned flags) {
        return fftwf_plan_guru64_dft_c2r(rank, dims, howRank, how, static_cast<Complex*>(in), static_cast<float*>(out), flags);
    }
    static void runC2C(Plan p, void* in, void* out) { fftwf_execute_dft(p, static_cast<Complex*>(in), static_cast<Complex*>(out)); }
    static void runR2C(Plan p, void* in, void* out) { fftwf_execute_dft_r2c(p, static_cast<float*>(in), static_cast<Complex*>(out)); }
    static void runC2R(Plan p, void* in, void* out) { fftwf_execute_dft_c2r(p, static_cast<Complex*>(in), static_cast<float*>(out)); }
    static void destroy(Plan p) { fftwf_destroy_plan(p); }
    static int importWisdom(const char* path) { return fftwf_import_wisdom_from_filename(path); }
    static int exportWisdom(const char* path) { return fftwf_export_wisdom_to_filename(path); }
};

template <>
struct Fftw<double> {
    using Plan = fftw_plan;
    using Complex = fftw_complex;
    static constexpr const char* name = "double";
    static void initThreads() {
        fftw_init_threads();
        loopsOnEngineThreads(true);
    }
    static void loopsOnEngineThreads(bool engine) { fftw_threads_set_callback(engine ? runParallelLoop : nullptr, nullptr); }
    static void threads(int n) { fftw_plan_with_nthreads(n); }
    static void* malloc(std::size_t bytes) { return fftw_malloc(bytes); }
    static void free(void* p) { fftw_free(p); }
    static int alignmentOf(void* p) { return fftw_alignment_of(static_cast<double*>(p)); }
    static Plan c2c(int rank, const fftw_iodim64* dims, int howRank, const fftw_iodim64* how, void* in, void* out, int sign, unsigned flags) {
        return fftw_plan_guru64_dft(rank, dims, howRank, how, static_cast<Complex*>(in), static_cast<Complex*>(out), sign, flags);
    }
    static Plan r2c(int rank, const fftw_iodim64* dims, int howRank, const fftw_iodim64* how, void* in, void* out, unsigned flags) {
        return fftw_plan_guru64_dft_r2c(rank, dims, howRank, how, static_cast<double*>(in), static_cast<Complex*>(out), flags);
    }
    static Plan c2r(int rank, const fftw_iodim64* dims, int howRank, const fftw_iodim64* how, void* in, void* out, unsigned flags) {
        return fftw_plan_guru64_dft_c2r(rank, dims, howRank, how, static_cast<Complex*>(in), static_cast<double*>(out), flags);
    }
    static void runC2C(Plan p, void* in, void* out) { fftw_execute_dft(p, static_cast<Complex*>(in), static_cast<Complex*>(out)); }
    static void runR2C(Plan p, void* in, void* out) { fftw_execute_dft_r2c(p, static_cast<double*>(in), static_cast<Complex*>(out)); }
    static void runC2R(Plan p, void* in, void* out) { fftw_execute_dft_c2r(p, static_cast<Complex*>(in), static_cast<double*>(out)); }
    static void destroy(Plan p) { fftw_destroy_plan(p); }
    static int importWisdom(const char* path) { return fftw_import_wisdom_from_filename(path); }
    static int exportWisdom(const char* path) { return fftw_export_wisdom_to_filename(path); }
};

}  // namespace portacl::fft::detail
