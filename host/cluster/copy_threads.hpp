// Host threads that copy a list of byte ranges together: the shared-memory all-to-all's
// (block_exchange.cpp) copies into and out of the node's window, which one thread would make as slow
// as MPI's own shared-memory transport (one core's copy rate per pair of ranks). The threads are kept
// for the exchange's lifetime and sleep between copies, so an exchange pays a wake-up, not a start.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <mutex>
#include <thread>
#include <vector>

namespace portacl::cluster::detail {

struct CopyRange {
    unsigned char* to;
    const unsigned char* from;
    std::size_t bytes;
};

class CopyThreads {
public:
    // `threads` in all, the calling thread included (1: the caller copies alone).
    explicit CopyThreads(unsigned threads);
    ~CopyThreads();
    CopyThreads(const CopyThreads&) = delete;
    CopyThreads& operator=(const CopyThreads&) = delete;

    unsigned threads() const { return static_cast<unsigned>(helpers_.size()) + 1; }

    // Copies every range (they must not overlap one another's destinations) and returns when all are
    // done. The ranges are cut into pieces of a few MB that the threads take in turn, so a slow thread
    // takes fewer of them.
    void copy(const std::vector<CopyRange>& ranges);

private:
    void helperMain();
    void takePieces();

    std::vector<CopyRange> pieces_;          // the current copy's, set before helpers are woken
    std::atomic<std::size_t> next_{0};       // the next piece nobody has taken
    std::vector<std::thread> helpers_;
    std::mutex mutex_;
    std::condition_variable wake_, done_;
    unsigned long long round_ = 0;  // raised (under mutex_) for each copy
    unsigned busy_ = 0;             // helpers still in the current copy (under mutex_)
    bool stop_ = false;
};

}  // namespace portacl::cluster::detail
