// Fast Fourier transforms on the device: one interface over three backends, VkFFT (OpenCL backend; the
// fast one on GPUs), clFFT (the design's named library) and, on CPU devices, FFTW (on the host's
// threads, on the buffers the CPU device shares with the host, mapped). 1-D, 2-D and 3-D;
// complex-to-complex, real-to-complex and complex-to-real; float and double; in place or out of
// place; batched.
//
// Conventions (the same for both backends, and the same as NumPy's numpy.fft):
// - `shape` lists the transform dimensions in C order: the last one varies fastest in memory.
// - Complex data are interleaved (re, im) pairs of the element type.
// - R2C: real input of `shape`, complex output of the same shape with the last dimension n/2+1.
//   C2R: the reverse. In place, the real array's rows are padded to 2*(n/2+1) elements.
// - Forward has no scaling; Inverse scales by 1/N (N = product of shape), so Inverse(Forward(x)) == x.
// - Batches are contiguous: batch b starts at b times the size of one transform.
// - Directions: a C2C plan runs both; an R2C plan runs Forward only and a C2R plan Inverse only (the
//   other direction raises portacl::Error). An out-of-place C2R may overwrite its complex input (the
//   backends use it as scratch for the multi-dimensional passes, as cuFFT and FFTW do).
// - Backend::Auto is the device profile's choice ([fft] backend = vkfft, clfft or fftw; the CPU
//   implementations' profiles name fftw), else VkFFT; an FFTW choice in a build without FFTW is VkFFT.
#pragma once

#include "portacl/export.hpp"

#include <cstddef>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "portacl/runtime/context.hpp"
#include "portacl/runtime/precision.hpp"

namespace portacl::fft {

enum class Backend { Auto, VkFFT, ClFFT, FFTW };
enum class Kind { C2C, R2C, C2R };
enum class Direction { Forward, Inverse };

PORTACL_API Backend parseBackend(const std::string& name);  // "auto", "vkfft", "clfft", "fftw"
PORTACL_API const char* backendName(Backend b);
// Whether this build has the backend (FFTW is optional: built when libfftw3-dev was found).
PORTACL_API bool available(Backend b);
// The backend a plan of `requested` gets on this context: Auto resolved through the device profile.
PORTACL_API Backend resolve(const Context& ctx, Backend requested);
// The flags to create the buffers a backend transforms with: FFTW's are allocated in host memory
// (CL_MEM_ALLOC_HOST_PTR), so that mapping them for the host's transform copies nothing.
PORTACL_API cl_mem_flags bufferFlags(const Context& ctx, Backend requested);
// A buffer of `bytes` to transform with the backend `requested` resolves to: for FFTW, memory the host
// shares with the device in place (Context::sharedBuffer: page-aligned, huge pages from 2 MiB), which
// FFTW transforms without copies (as host tasks in the queue with [fft] fftw_host_tasks = 1); else a
// device buffer (bufferFlags).
PORTACL_API cl::Buffer buffer(Context& ctx, std::size_t bytes, const std::string& what, Backend requested);

struct PORTACL_API PlanDesc {
    Kind kind = Kind::C2C;
    std::vector<std::size_t> shape;  // 1 to 3 dimensions, C order
    std::size_t batch = 1;
    Precision precision = Precision::Float;  // Float or Double
    bool inPlace = false;
    Backend backend = Backend::Auto;  // Auto: the device profile's backend, else VkFFT
    // C2C only, VkFFT and FFTW: leave the fastest axis untransformed (the transforms along the other axes
    // of every point of it), for callers that transform that axis themselves.
    bool skipFastestAxis = false;
    // false: the inverse is left unscaled (N times the conventional result, N the product of the
    // transformed lengths), for callers that fold 1/N into their own arithmetic.
    bool scaleInverse = true;

    std::string key() const;  // the full description, used as the plan-cache key
};

// Element counts (of the element type, real numbers) of one transform's input and output buffers,
// including R2C/C2R padding for in-place transforms. "One transform" is one batch item: the buffers
// of a batched plan hold `batch` times these (inputBytes/outputBytes give the whole buffer).
// Raise portacl::Error for a direction the plan's kind does not run.
PORTACL_API std::size_t inputElements(const PlanDesc& d, Direction dir);
PORTACL_API std::size_t outputElements(const PlanDesc& d, Direction dir);
// Bytes of the whole input and output buffers of a plan: batch * elements * sizeof(element).
PORTACL_API std::size_t inputBytes(const PlanDesc& d, Direction dir);
PORTACL_API std::size_t outputBytes(const PlanDesc& d, Direction dir);

class PORTACL_API Plan {
public:
    virtual ~Plan() = default;
    // Enqueues the transform on ctx's queue. For in-place plans pass the same buffer twice.
    // Raises portacl::Error for buffers too small for the plan.
    virtual void execute(const cl::Buffer& in, const cl::Buffer& out, Direction dir) = 0;
    const PlanDesc& desc() const { return desc_; }
    Backend backend() const { return backend_; }

protected:
    PlanDesc desc_;
    Backend backend_ = Backend::VkFFT;
};

// Plans are cached per context by PlanDesc::key(): the first request builds (and for clFFT bakes,
// serialized under a global mutex since clFFT's bake is not thread-safe), later ones reuse.
// A size the chosen backend cannot transform raises portacl::Error; VkFFT and FFTW handle any size.
// FFTW on a device that is not a CPU, or in a build without it, raises portacl::Error.
PORTACL_API Plan& plan(Context& ctx, const PlanDesc& desc);

}  // namespace portacl::fft
