#include "copy_threads.hpp"

#include <algorithm>
#include <cstring>

namespace portacl::cluster::detail {
namespace {

// Pieces are multiples of a page and at least this long: long enough that taking one costs nothing
// beside copying it, short enough (about 4 a thread for a 100 MB exchange on 16 threads) that the
// threads finish together.
constexpr std::size_t kPage = 4096, kMinPiece = std::size_t(1) << 20;

}  // namespace

CopyThreads::CopyThreads(unsigned threads) {
    for (unsigned t = 1; t < std::max(threads, 1u); ++t) helpers_.emplace_back([this] { helperMain(); });
}

CopyThreads::~CopyThreads() {
    {
        std::lock_guard<std::mutex> lock(mutex_);
        stop_ = true;
    }
    wake_.notify_all();
    for (auto& t : helpers_) t.join();
}

void CopyThreads::takePieces() {
    for (std::size_t i; (i = next_.fetch_add(1, std::memory_order_relaxed)) < pieces_.size();)
        std::memcpy(pieces_[i].to, pieces_[i].from, pieces_[i].bytes);
}

void CopyThreads::helperMain() {
    unsigned long long seen = 0;
    for (;;) {
        {
            std::unique_lock<std::mutex> lock(mutex_);
            wake_.wait(lock, [&] { return stop_ || round_ != seen; });
            if (stop_) return;
            seen = round_;
        }
        takePieces();
        std::lock_guard<std::mutex> lock(mutex_);
        if (--busy_ == 0) done_.notify_one();
    }
}

void CopyThreads::copy(const std::vector<CopyRange>& ranges) {
    std::size_t total = 0;
    for (const auto& r : ranges) total += r.bytes;
    if (total == 0) return;
    const std::size_t wanted = (total + 4 * threads() - 1) / (4 * threads());
    const std::size_t piece = std::max(kMinPiece, (wanted + kPage - 1) / kPage * kPage);
    pieces_.clear();
    for (const auto& r : ranges)
        for (std::size_t at = 0; at < r.bytes; at += piece) pieces_.push_back({r.to + at, r.from + at, std::min(piece, r.bytes - at)});
    next_.store(0, std::memory_order_relaxed);
    // Helpers only where there is more than one piece; the mutex orders pieces_ before their reads.
    const bool helped = !helpers_.empty() && pieces_.size() > 1;
    if (helped) {
        {
            std::lock_guard<std::mutex> lock(mutex_);
            busy_ = static_cast<unsigned>(helpers_.size());
            ++round_;
        }
        wake_.notify_all();
    }
    takePieces();
    if (helped) {
        // Every helper's copies happen before this returns (their last touch is under mutex_).
        std::unique_lock<std::mutex> lock(mutex_);
        done_.wait(lock, [&] { return busy_ == 0; });
    }
}

}  // namespace portacl::cluster::detail
