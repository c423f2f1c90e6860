// Serial references of the stream network: Strahler order in Kahn's order over the stream cells, and
// watersheds by following each cell's directions to its outlet (remembering every cell's answer).
#include <deque>

#include "drainage_detail.hpp"
#include "portacl/drainage.hpp"
#include "portacl/runtime/error.hpp"

namespace portacl::drainage {

int detail::strahlerFromUpstream(const DirectionGrid& g, const std::vector<std::uint8_t>& stream, const std::vector<int>& order,
                                 std::size_t i) {
    const int rows = g.frame.rows, cols = g.frame.cols;
    const int r = int(i / std::size_t(cols)), c = int(i % std::size_t(cols));
    int top = 0, count = 0;
    for (int k = 0; k < 8; ++k) {
        const int rr = r + kRowOffset[k], cc = c + kColOffset[k];
        if (rr < 0 || rr >= rows || cc < 0 || cc >= cols) continue;
        const std::size_t m = std::size_t(rr) * std::size_t(cols) + std::size_t(cc);
        if (stream[m] != 1 || g.dir[m] != ((k + 4) & 7)) continue;
        if (order[m] > top) top = order[m], count = 1;
        else if (order[m] == top) ++count;
    }
    return top == 0 ? 1 : count >= 2 ? top + 1 : top;
}

std::vector<int> strahlerOrderReference(const DirectionGrid& g, const std::vector<std::uint8_t>& stream) {
    detail::checkGrid(g);
    detail::checkStreams(g, stream);
    if (const long c = detail::cycleCell(g); c >= 0) throw Error(detail::cycleSentence(g, std::size_t(c)));
    const std::size_t n = g.dir.size();
    std::vector<int> order(n, 0), deps(n, 0);
    for (std::size_t i = 0; i < n; ++i) {
        const long d = detail::downstreamOf(g, i);
        if (stream[i] == 1 && d >= 0 && stream[std::size_t(d)] == 1) ++deps[std::size_t(d)];
    }
    std::deque<std::size_t> ready;
    for (std::size_t i = 0; i < n; ++i)
        if (stream[i] == 1 && deps[i] == 0) ready.push_back(i);
    while (!ready.empty()) {
        const std::size_t i = ready.front();
        ready.pop_front();
        order[i] = detail::strahlerFromUpstream(g, stream, order, i);
        const long d = detail::downstreamOf(g, i);
        if (d >= 0 && stream[std::size_t(d)] == 1 && --deps[std::size_t(d)] == 0) ready.push_back(std::size_t(d));
    }
    return order;
}

std::vector<std::int32_t> watershedsReference(const DirectionGrid& g, const std::vector<std::size_t>& outlets) {
    detail::checkGrid(g);
    const std::vector<std::uint8_t> given = detail::outletMask(g, outlets);
    if (const long c = detail::cycleCell(g); c >= 0) throw Error(detail::cycleSentence(g, std::size_t(c)));
    const std::size_t n = g.dir.size();
    std::vector<long> reach(n, -2);  // -2: not known yet
    std::vector<std::size_t> path;
    for (std::size_t s = 0; s < n; ++s) {
        if (g.dir[s] == kNoData || reach[s] != -2) continue;
        path.clear();
        std::size_t i = s;
        long end;
        for (;;) {
            if (reach[i] != -2) {
                end = reach[i];
                break;
            }
            path.push_back(i);
            const long d = detail::downstreamOf(g, i);
            if (given[i] || d < 0) {
                end = long(i);
                break;
            }
            i = std::size_t(d);
        }
        for (auto p : path) reach[p] = end;
    }
    return detail::numberBasins(g, reach, given, outlets);
}

}  // namespace portacl::drainage
