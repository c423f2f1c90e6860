// The host's exact step: the pairs and points that float could not decide (Float mode; Mixed mode
// without a device phase 2) decided by the serial reference's exact tests, spread over the host's
// threads when the list is long (each item is independent; the tests are pure).
#include <algorithm>
#include <thread>

#include "mesh_detail.hpp"
#include "portacl/runtime/host_cores.hpp"

namespace portacl::mesh::detail {

void onHostThreads(std::size_t n, std::size_t grain, const std::function<void(std::size_t, std::size_t)>& f) {
    const std::size_t hardware = portacl::usableCores();
    const std::size_t threads = std::min<std::size_t>({hardware, 64, (n + grain - 1) / std::max<std::size_t>(grain, 1)});
    if (threads <= 1) {
        f(0, n);
        return;
    }
    std::vector<std::thread> helpers;
    const std::size_t chunk = (n + threads - 1) / threads;
    for (std::size_t t = 1; t < threads; ++t) helpers.emplace_back(f, std::min(n, t * chunk), std::min(n, (t + 1) * chunk));
    f(0, std::min(n, chunk));
    for (auto& h : helpers) h.join();
}

std::vector<std::uint8_t> decideOnHost(const TriangleMesh& m, const std::vector<FacePair>& pairs, Touching touching) {
    std::vector<std::uint8_t> hit(pairs.size(), 0);
    // A thread per 256 pairs at most: starting one costs about what deciding a few dozen pairs does.
    onHostThreads(pairs.size(), 256, [&](std::size_t begin, std::size_t end) {
        for (std::size_t k = begin; k < end; ++k) hit[k] = trianglesIntersect(m, pairs[k].first, pairs[k].second, touching) ? 1 : 0;
    });
    return hit;
}

}  // namespace portacl::mesh::detail
