// The host's side of thinning's passes: enqueue ahead, read the counts behind (skeleton_detail.hpp).
#include "portacl/runtime/context.hpp"
#include "skeleton_detail.hpp"

namespace portacl::skeleton::detail {

unsigned passesAhead(const Context& ctx) { return unsigned(ctx.tuning().getInt("skeleton", "passes_ahead", 1, 1, 16)); }

cl_uint runPasses(Context& ctx, const cl::Buffer& counters, std::size_t words, unsigned ahead,
                  const std::function<void(cl_uint)>& enqueuePass,
                  const std::function<bool(const std::vector<cl_uint>&, cl_uint)>& finished) {
    // A ring of ahead + 1 reads: pass p's slot is reused by pass p + ahead + 1, enqueued only after
    // pass p's counts were waited for.
    const std::size_t slots = std::size_t(ahead) + 1;
    std::vector<std::vector<cl_uint>> counts(slots, std::vector<cl_uint>(words));
    std::vector<cl::Event> reads(slots);
    cl_uint enqueued = 0;
    auto enqueueNext = [&] {
        ++enqueued;
        enqueuePass(enqueued);
        std::vector<cl_uint>& slot = counts[enqueued % slots];
        reads[enqueued % slots] = ctx.readAsync(counters, slot.data(), words * sizeof(cl_uint), "read thinning counts");
        // Submitted now, not when the host next waits: a short pass would otherwise leave the
        // device idle while the host enqueues the next.
        ctx.flush();
    };
    for (unsigned i = 0; i < ahead; ++i) enqueueNext();
    for (cl_uint pass = 1;; ++pass) {
        enqueueNext();
        ctx.wait(reads[pass % slots], "the thinning counts");
        if (finished(counts[pass % slots], pass)) break;
    }
    // The counts' memory must outlive the reads still in flight.
    for (const cl::Event& e : reads)
        if (e()) ctx.wait(e, "the thinning counts");
    return enqueued;
}

}  // namespace portacl::skeleton::detail
