// fft::plan(): one plan per full description and context, built on first request.
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

}  // namespace

Plan& plan(Context& ctx, const PlanDesc& desc) {
    detail::validate(desc);
    ctx.requirePrecision(desc.precision);
    PlanDesc d = desc;
    if (d.backend == Backend::Auto) d.backend = Backend::VkFFT;  // VkFFT handles every size, and is the faster one

    auto& cache = ctx.state<PlanCache>();
    std::lock_guard<std::mutex> lock(cache.mutex);
    auto& slot = cache.plans[d.key()];
    if (!slot) {
        try {
            slot = d.backend == Backend::ClFFT ? detail::makeClfftPlan(ctx, d) : detail::makeVkfftPlan(ctx, d);
        } catch (...) {
            cache.plans.erase(d.key());  // no empty entry left behind for a plan that failed
            throw;
        }
    }
    return *slot;
}

}  // namespace portacl::fft
