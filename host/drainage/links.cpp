// Stream links from the stream cells and their directions (the vector network's lines).
#include <unordered_map>

#include "drainage_detail.hpp"
#include "portacl/drainage.hpp"
#include "portacl/runtime/error.hpp"

namespace portacl::drainage {

std::vector<StreamLink> streamLinks(const DirectionGrid& g, const std::vector<std::uint8_t>& stream, const std::vector<int>& order) {
    detail::checkGrid(g);
    detail::checkStreams(g, stream);
    if (order.size() != g.dir.size()) throw Error("the Strahler order grid does not match the direction grid");
    const int rows = g.frame.rows, cols = g.frame.cols;
    const std::size_t n = g.dir.size();
    auto down = [&](std::size_t i) -> long {
        const std::uint8_t d = g.dir[i];
        if (d >= kNoFlow) return -1;
        const int r = int(i / std::size_t(cols)) + kRowOffset[d], c = int(i % std::size_t(cols)) + kColOffset[d];
        if (r < 0 || r >= rows || c < 0 || c >= cols) return -1;
        const std::size_t m = std::size_t(r) * cols + c;
        return g.dir[m] == kNoData || stream[m] != 1 ? -1 : long(m);
    };
    std::vector<std::uint8_t> upstream(n, 0);
    for (std::size_t i = 0; i < n; ++i)
        if (stream[i] == 1)
            if (const long d = down(i); d >= 0) ++upstream[std::size_t(d)];
    std::vector<StreamLink> links;
    std::unordered_map<std::size_t, std::int64_t> startsAt;
    for (std::size_t i = 0; i < n; ++i) {
        if (stream[i] != 1 || upstream[i] == 1) continue;  // heads: sources and junctions
        StreamLink link;
        link.id = std::int64_t(links.size()) + 1;
        link.order = order[i];
        link.cells.push_back(i);
        for (long c = down(i); c >= 0; c = down(std::size_t(c))) {
            link.cells.push_back(std::size_t(c));
            if (upstream[std::size_t(c)] >= 2) break;  // a junction: the next link starts here
            if (link.cells.size() > n) throw Error(detail::cycleSentence(g, std::size_t(c)));
        }
        startsAt[i] = link.id;
        links.push_back(std::move(link));
    }
    for (auto& link : links) {
        const std::size_t last = link.cells.back();
        if (link.cells.size() > 1 && upstream[last] >= 2) link.downstream = startsAt.at(last);
    }
    return links;
}

}  // namespace portacl::drainage
