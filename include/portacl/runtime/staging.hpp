// Large transfers through pinned host memory. A device's DMA reads and writes page-locked memory
// directly; from ordinary (pageable) memory the driver copies through a buffer of its own first, at a
// fraction of the bus's speed (NVIDIA's OpenCL: 4-11 GB/s pageable against 25-50 GB/s pinned on an
// H100). The staging is a ring of two chunks of CL_MEM_ALLOC_HOST_PTR memory, mapped once: the host
// converts one chunk's elements while the other chunk is on its way, so a conversion (doubles to
// float, a NoData flag per cell) overlaps the copy and no grid-sized host copy is made.
#pragma once

#include "portacl/export.hpp"

#include <algorithm>
#include <cstddef>
#include <string>

#include "portacl/runtime/context.hpp"

namespace portacl {

class PORTACL_API StagedTransfers {
public:
    // Two chunks of `chunkBytes` (at least 64 bytes) of pinned host memory, mapped until destruction.
    explicit StagedTransfers(Context& ctx, std::size_t chunkBytes = std::size_t(32) << 20);
    // Waits for the queue (a chunk may still be on its way), then unmaps.
    ~StagedTransfers();
    StagedTransfers(const StagedTransfers&) = delete;
    StagedTransfers& operator=(const StagedTransfers&) = delete;

    // Writes `count` elements of T into `b` from element 0: produce(T* chunk, first, n) writes elements
    // [first, first + n) into the chunk. Each chunk's write is an event named `name`. Returns when the
    // last chunk is enqueued (its host data is the staging's own, so nothing of the caller's is read
    // later).
    template <typename T, typename Produce>
    void upload(const cl::Buffer& b, std::size_t count, const std::string& name, Produce&& produce) {
        const std::size_t per = chunkBytes_ / sizeof(T);
        for (std::size_t first = 0, k = 0; first < count; first += per, ++k) {
            Slot& s = slots_[k % 2];
            settle(s, name);
            const std::size_t n = std::min(per, count - first);
            produce(static_cast<T*>(s.host), first, n);
            s.event = ctx_.writeAsync(b, s.host, n * sizeof(T), name, nullptr, first * sizeof(T));
            s.pending = true;
        }
    }
    // Reads `count` elements of T from `b` (from element 0): consume(const T* chunk, first, n) receives
    // elements [first, first + n) while the next chunk is read. Each chunk's read is an event named
    // `name`. Returns when every chunk has been consumed.
    template <typename T, typename Consume>
    void download(const cl::Buffer& b, std::size_t count, const std::string& name, Consume&& consume) {
        const std::size_t per = chunkBytes_ / sizeof(T);
        const std::size_t chunks = (count + per - 1) / per;
        auto enqueue = [&](std::size_t k) {
            Slot& s = slots_[k % 2];
            settle(s, name);
            const std::size_t first = k * per, n = std::min(per, count - first);
            s.event = ctx_.readAsync(b, s.host, n * sizeof(T), name, first * sizeof(T));
            s.pending = true;
        };
        for (std::size_t k = 0; k < std::min<std::size_t>(chunks, 2); ++k) enqueue(k);
        for (std::size_t k = 0; k < chunks; ++k) {
            Slot& s = slots_[k % 2];
            settle(s, name);
            const std::size_t first = k * per;
            consume(static_cast<const T*>(s.host), first, std::min(per, count - first));
            if (k + 2 < chunks) enqueue(k + 2);
        }
    }

    std::size_t chunkBytes() const { return chunkBytes_; }

private:
    struct Slot {
        cl::Buffer pinned;
        void* host = nullptr;
        cl::Event event;
        bool pending = false;
    };
    // Waits for the slot's last transfer.
    void settle(Slot& s, const std::string& name);

    Context& ctx_;
    std::size_t chunkBytes_;
    Slot slots_[2];
};

}  // namespace portacl
