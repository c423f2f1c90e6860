// What the FFT front end (plan_desc.cpp, plan_cache.cpp) shares with its backends (vkfft_plan.cpp,
// clfft_plan.cpp, fftw_plan.cpp when PORTACL_HAVE_FFTW). Not part of the public API.
#pragma once

#include <memory>
#include <string>

#include "portacl/fft.hpp"

namespace portacl::fft::detail {

// "3-D R2C float transform of 6x10x14 (batch 2, in place)", for error messages.
std::string describe(const PlanDesc& d);
// Raises portacl::Error for an empty or >3-D shape, a zero length or batch, a Mixed precision.
void validate(const PlanDesc& d);
// Raises portacl::Error when the plan's kind does not run in `dir` (R2C: Forward only, C2R: Inverse only).
void checkDirection(const PlanDesc& d, Direction dir);
// Raises portacl::Error for buffers smaller than the plan needs, or for an in-place plan given two
// buffers (and an out-of-place plan given one).
void checkBuffers(const PlanDesc& d, Direction dir, const cl::Buffer& in, const cl::Buffer& out);

std::size_t elementBytes(const PlanDesc& d);  // 4 or 8
// The product of the shape (one batch item); exported (PORTACL_API) for the FFT bench case.
PORTACL_API std::size_t totalPoints(const PlanDesc& d);
// Complex elements of one batch item's Hermitian half-spectrum: N / n_last * (n_last/2 + 1).
std::size_t hermitianPoints(const PlanDesc& d);
// Name used for this plan's kernel events in --profile: "vkfft r2c forward", ...
std::string eventName(const PlanDesc& d, Backend b, Direction dir);

// The backends. Each builds (compiles, bakes) its plan at construction and raises portacl::Error
// naming the transform and the library's status when that fails.
std::unique_ptr<Plan> makeVkfftPlan(Context& ctx, const PlanDesc& d);
std::unique_ptr<Plan> makeClfftPlan(Context& ctx, const PlanDesc& d);
std::unique_ptr<Plan> makeFftwPlan(Context& ctx, const PlanDesc& d);  // only with PORTACL_HAVE_FFTW

// The FFT bench's CPU peer (fftw_peer.cpp): a side^3 real-to-complex plus complex-to-real pair
// through FFTW's own plans (FFTW_MEASURE), arrays and `threads` threads, planned at construction;
// run() transforms once. Raises portacl::Error in a build without FFTW. Exported for the bench case.
class PORTACL_API FftwPeerPair {
public:
    FftwPeerPair(std::size_t side, int threads, Precision precision);
    ~FftwPeerPair();
    FftwPeerPair(const FftwPeerPair&) = delete;
    FftwPeerPair& operator=(const FftwPeerPair&) = delete;
    void run();

private:
    struct State;
    std::unique_ptr<State> s_;
};

// True when clFFT can transform length n: its only radices are 2, 3, 5, 7, 11 and 13.
bool clfftSupportsLength(std::size_t n);

}  // namespace portacl::fft::detail
