// The launch of the tensor-core kernels (cl/gemm_mma.cl): gemm_dmma in double, gemm_3xtf32 in float.
#pragma once

#include "portacl/export.hpp"
#include "portacl/gemm.hpp"

namespace portacl {

// How the kernel's mma.sync instructions run: issued (NVIDIA GPUs of compute capability 8.0 and up,
// what gemm() uses), or computed through local memory from the same fragments on any device, so that
// the tests can run everything else the kernel does (tiles, staging, the 3xTF32 split, edges) on PoCL.
enum class MmaPath { Instructions, Emulated };

// The local memory a work-group of the tensor-core kernel takes on `device` with these tunables.
// (Exported, PORTACL_API, for the tests.)
PORTACL_API std::size_t tensorCoreLocalBytes(const DeviceInfo& device, Precision element, const GemmTuning& tuning,
                                             MmaPath path);

// Enqueues C = A * B with the tensor-core kernel of `element` precision and the tensor tunables of
// `tuning`, on device buffers whose sizes the caller has checked. Throws one sentence when the tiles
// need more local memory than the device has, or (float) tensorK is no multiple of 8.
// (Exported, PORTACL_API, for the tests.)
PORTACL_API void enqueueTensorCoreGemm(Context& ctx, Precision element, std::size_t M, std::size_t N, std::size_t K,
                                       const cl::Buffer& A, const cl::Buffer& B, const cl::Buffer& C,
                                       const GemmTuning& tuning, MmaPath path);

}  // namespace portacl
