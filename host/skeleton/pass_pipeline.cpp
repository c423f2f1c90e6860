// The host's side of thinning's passes: one pass enqueued ahead, the counts read behind (skeleton_detail.hpp).
#include <array>

#include "portacl/runtime/context.hpp"
#include "skeleton_detail.hpp"

namespace portacl::skeleton::detail {

cl_uint runPasses(Context& ctx, const cl::Buffer& counters, std::size_t words,
                  const std::function<void(cl_uint)>& enqueuePass,
                  const std::function<bool(const std::vector<cl_uint>&, cl_uint)>& finished) {
    // Pass p + 1 is enqueued before pass p's counts are waited for, so that the device is never idle
    // while the host reads; pass p's slot is reused by pass p + 2, enqueued after p's counts were read.
    std::array<std::vector<cl_uint>, 2> counts{std::vector<cl_uint>(words), std::vector<cl_uint>(words)};
    std::array<cl::Event, 2> reads;
    cl_uint enqueued = 0;
    auto enqueueNext = [&] {
        ++enqueued;
        enqueuePass(enqueued);
        reads[enqueued % 2] = ctx.readAsync(counters, counts[enqueued % 2].data(), words * sizeof(cl_uint), "read thinning counts");
        // Submitted now, not when the host next waits.
        ctx.flush();
    };
    enqueueNext();
    for (cl_uint pass = 1;; ++pass) {
        enqueueNext();
        ctx.wait(reads[pass % 2], "the thinning counts");
        if (finished(counts[pass % 2], pass)) break;
    }
    // The counts' memory must outlive the read still in flight.
    for (const cl::Event& e : reads) ctx.wait(e, "the thinning counts");
    return enqueued;
}

}  // namespace portacl::skeleton::detail
