// fft::plan(): one plan per full description and context, built on first request by the backend
// the description (or, for Auto, the device profile) names.
#include <map>
#include <mutex>

#include "fft/fft_internal.hpp"
#include "portacl/runtime/error.hpp"

namespace portacl::fft {

namespace {

// Lives in the Context (ctx.state), so its plans are released before the OpenCL context.
struct PlanCache {
    std::mutex mutex;
    std::map<std::string, std::unique_ptr<Plan>> plans;
};

std::unique_ptr<Plan> makePlan(Context& ctx, const PlanDesc& d) {
    switch (d.backend) {
        case Backend::ClFFT: return detail::makeClfftPlan(ctx, d);
        case Backend::FFTW:
#ifdef PORTACL_HAVE_FFTW
            return detail::makeFftwPlan(ctx, d);
#else
            throw Error("this build has no FFTW backend (libfftw3-dev was not found when it was configured); use vkfft or clfft");
#endif
        default: return detail::makeVkfftPlan(ctx, d);
    }
}

}  // namespace

bool available(Backend b) {
#ifdef PORTACL_HAVE_FFTW
    return true;
#else
    return b != Backend::FFTW;
#endif
}

Backend resolve(const Context& ctx, Backend requested) {
    if (requested != Backend::Auto) return requested;
    const TuningProfile& profile = ctx.tuning();
    const std::string name = profile.get("fft", "backend", "auto");
    Backend b;
    try {
        b = parseBackend(name);
    } catch (const Error&) {
        throw Error("tuning profile " + profile.path + ": [fft] backend must be auto, vkfft, clfft or fftw, not '" + name + "'");
    }
    // VkFFT handles every size and is the fast one on GPUs; a profile's FFTW needs the build to have it.
    if (b == Backend::Auto || !available(b)) return Backend::VkFFT;
    return b;
}

cl_mem_flags bufferFlags(const Context& ctx, Backend requested) {
    return resolve(ctx, requested) == Backend::FFTW ? CL_MEM_READ_WRITE | CL_MEM_ALLOC_HOST_PTR : CL_MEM_READ_WRITE;
}

cl::Buffer buffer(Context& ctx, std::size_t bytes, const std::string& what, Backend requested) {
    if (resolve(ctx, requested) == Backend::FFTW) return ctx.sharedBuffer(bytes, what);
    return ctx.buffer(bytes, what, bufferFlags(ctx, requested));
}

Plan& plan(Context& ctx, const PlanDesc& desc) {
    detail::validate(desc);
    ctx.requirePrecision(desc.precision);
    PlanDesc d = desc;
    d.backend = resolve(ctx, d.backend);

    auto& cache = ctx.state<PlanCache>();
    std::lock_guard<std::mutex> lock(cache.mutex);
    auto& slot = cache.plans[d.key()];
    if (!slot) {
        try {
            slot = makePlan(ctx, d);
        } catch (...) {
            cache.plans.erase(d.key());  // no empty entry left behind for a plan that failed
            throw;
        }
    }
    return *slot;
}

}  // namespace portacl::fft
