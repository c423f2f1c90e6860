#include "portacl/runtime/staging.hpp"

namespace portacl {

StagedTransfers::StagedTransfers(Context& ctx, std::size_t chunkBytes) : ctx_(ctx), chunkBytes_(std::max<std::size_t>(chunkBytes, 64)) {
    for (Slot& s : slots_) {
        s.pinned = ctx_.buffer(chunkBytes_, "staging (pinned host memory)", CL_MEM_READ_WRITE | CL_MEM_ALLOC_HOST_PTR);
        s.host = ctx_.map(s.pinned, CL_MAP_READ | CL_MAP_WRITE, chunkBytes_, "map staging");
    }
}

StagedTransfers::~StagedTransfers() {
    try {
        ctx_.finish();
        for (Slot& s : slots_)
            if (s.host) ctx_.unmap(s.pinned, s.host, "unmap staging");
        ctx_.finish();
    } catch (...) {
        // the context's own destructor waits again before anything is freed
    }
}

void StagedTransfers::settle(Slot& s, const std::string& name) {
    if (!s.pending) return;
    ctx_.wait(s.event, name);
    s.pending = false;
}

}  // namespace portacl
