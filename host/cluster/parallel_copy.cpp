#include "parallel_copy.hpp"

#include <algorithm>
#include <cstring>

#include "portacl/runtime/host_pool.hpp"

namespace portacl::cluster::detail {
namespace {

// Pieces are multiples of a page and at least this long: long enough that taking one costs nothing
// beside copying it, short enough (about 4 a thread for a 100 MB exchange on 16 threads) that the
// threads finish together.
constexpr std::size_t kPage = 4096, kMinPiece = std::size_t(1) << 20;

}  // namespace

void copyInParallel(HostPool& pool, const std::vector<CopyRange>& ranges) {
    std::size_t total = 0;
    for (const auto& r : ranges) total += r.bytes;
    if (total == 0) return;
    const std::size_t wanted = (total + 4 * pool.threads() - 1) / (4 * pool.threads());
    const std::size_t piece = std::max(kMinPiece, (wanted + kPage - 1) / kPage * kPage);
    std::vector<CopyRange> pieces;
    for (const auto& r : ranges)
        for (std::size_t at = 0; at < r.bytes; at += piece) pieces.push_back({r.to + at, r.from + at, std::min(piece, r.bytes - at)});
    pool.run(pieces.size(), [&](std::size_t i) { std::memcpy(pieces[i].to, pieces[i].from, pieces[i].bytes); });
}

}  // namespace portacl::cluster::detail
