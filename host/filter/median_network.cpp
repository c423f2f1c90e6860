// Builds a tile's median network as a tree of shared, pruned merges (see median_network.hpp).
#include "filter/median_network.hpp"

#include <algorithm>
#include <map>
#include <sstream>
#include <stdexcept>
#include <tuple>

namespace portacl::filter {

namespace {

using Wires = std::vector<int>;

// A closed range [lo, hi] of patch rows or columns; empty when lo > hi.
struct Span {
    int lo = 0, hi = -1;
    bool empty() const { return lo > hi; }
    bool contains(int i) const { return i >= lo && i <= hi; }
    bool operator==(const Span& o) const { return lo == o.lo && hi == o.hi; }
};

// What a node of the tree knows of the windows of its outputs: the sorted values it kept of their
// common cells, and the rank of the median among the values not yet discarded (n of them).
struct Partial {
    Wires kept;
    int n = 0, rank = 0;
};

class Builder {
public:
    explicit Builder(MedianNetwork& net) : net_(net), next_(net.inputs()) {}

    std::pair<int, int> compare(int a, int b) {
        net_.compares.push_back({a, b, true, true});
        const int low = next_;
        next_ += 2;
        return {low, low + 1};
    }

    // Batcher's odd-even merge of two sorted lists of any lengths (Knuth 5.3.4): the odd-indexed and
    // even-indexed elements merged apart, then one layer of comparisons.
    Wires merge(const Wires& a, const Wires& b) {
        if (a.empty()) return b;
        if (b.empty()) return a;
        if (a.size() == 1 && b.size() == 1) {
            const auto [lo, hi] = compare(a[0], b[0]);
            return {lo, hi};
        }
        Wires aEven, aOdd, bEven, bOdd;
        for (std::size_t i = 0; i < a.size(); ++i) (i % 2 ? aOdd : aEven).push_back(a[i]);
        for (std::size_t i = 0; i < b.size(); ++i) (i % 2 ? bOdd : bEven).push_back(b[i]);
        const Wires v = merge(aEven, bEven), w = merge(aOdd, bOdd);
        Wires out{v[0]};
        std::size_t i = 0;
        for (; i < w.size() && i + 1 < v.size(); ++i) {
            const auto [lo, hi] = compare(w[i], v[i + 1]);
            out.push_back(lo);
            out.push_back(hi);
        }
        for (; i < w.size(); ++i) out.push_back(w[i]);
        for (std::size_t j = i + 1; j < v.size(); ++j) out.push_back(v[j]);
        return out;
    }

    Wires sort(const Wires& cells) {
        if (cells.size() <= 1) return cells;
        const std::size_t half = cells.size() / 2;
        return merge(sort(Wires(cells.begin(), cells.begin() + half)), sort(Wires(cells.begin() + half, cells.end())));
    }

    // Sorted lists merged smallest first (fewest comparisons).
    Wires mergeAll(std::vector<Wires> lists) {
        if (lists.empty()) return {};
        while (lists.size() > 1) {
            std::sort(lists.begin(), lists.end(), [](const Wires& x, const Wires& y) { return x.size() < y.size(); });
            Wires merged = merge(lists[0], lists[1]);
            lists.erase(lists.begin(), lists.begin() + 2);
            lists.push_back(std::move(merged));
        }
        return lists[0];
    }

    int cell(int row, int column) const { return row * net_.patchWidth() + column; }

    // The sorted cells of column `column` over rows `rows`; the rows every output row of the tile
    // shares are sorted once and merged into each taller range.
    const Wires& columnSegment(int column, Span rows) {
        const Span shared{net_.tileY - 1, net_.k - 1};
        if (net_.sortedColumns && rows == shared) {
            const auto key = std::make_tuple(true, column, rows.lo, rows.hi);
            if (auto it = memo_.find(key); it != memo_.end()) return it->second;
            Wires sorted;
            for (int i = 0; i < net_.coreLength(); ++i) sorted.push_back(net_.cells() + column * net_.coreLength() + i);
            return memo_.emplace(key, std::move(sorted)).first->second;
        }
        return segment(true, column, rows, shared);
    }
    const Wires& rowSegment(int row, Span columns) { return segment(false, row, columns, Span{net_.tileX - 1, net_.k - 1}); }

    static void prune(Partial& p) {
        int m = static_cast<int>(p.kept.size());
        const int below = std::max(0, p.rank - (p.n - m));  // at or below the median in every window
        p.kept.erase(p.kept.begin(), p.kept.begin() + below);
        p.rank -= below;
        p.n -= below;
        m -= below;
        const int above = std::max(0, m - 1 - p.rank);  // at or above it
        p.kept.resize(m - above);
        p.n -= above;
    }

    // The windows of outputs [x0, x1) x [y0, y1) share columns [x1 - 1, x0 + k - 1] and rows
    // [y1 - 1, y0 + k - 1] of the patch.
    void solve(int x0, int x1, int y0, int y1, const Partial& parent, Span parentRows, Span parentColumns) {
        const int k = net_.k;
        const Span rows{y1 - 1, y0 + k - 1}, columns{x1 - 1, x0 + k - 1};
        const bool parentEmpty = parentRows.empty() || parentColumns.empty();
        std::vector<Wires> pieces;
        if (!rows.empty() && !columns.empty()) {
            if (parentEmpty || parentRows == rows) {
                for (int c = columns.lo; c <= columns.hi; ++c)
                    if (parentEmpty || !parentColumns.contains(c)) pieces.push_back(columnSegment(c, rows));
            } else {
                for (int r = rows.lo; r <= rows.hi; ++r)
                    if (!parentRows.contains(r)) pieces.push_back(rowSegment(r, columns));
            }
        }
        Partial p = parent;
        if (!pieces.empty()) p.kept = merge(p.kept, mergeAll(std::move(pieces)));
        prune(p);
        if (x1 - x0 == 1 && y1 - y0 == 1) {
            if (p.kept.size() != 1) throw std::logic_error("median network: a leaf kept " + std::to_string(p.kept.size()) + " values");
            net_.outputs[y0 * net_.tileX + x0] = p.kept[0];
            return;
        }
        if (x1 - x0 >= y1 - y0) {
            const int xm = x0 + (x1 - x0) / 2;
            solve(x0, xm, y0, y1, p, rows, columns);
            solve(xm, x1, y0, y1, p, rows, columns);
        } else {
            const int ym = y0 + (y1 - y0) / 2;
            solve(x0, x1, y0, ym, p, rows, columns);
            solve(x0, x1, ym, y1, p, rows, columns);
        }
    }

private:
    const Wires& segment(bool isColumn, int line, Span range, Span shared) {
        const auto key = std::make_tuple(isColumn, line, range.lo, range.hi);
        if (auto it = memo_.find(key); it != memo_.end()) return it->second;
        const Span core{std::max(range.lo, shared.lo), std::min(range.hi, shared.hi)};
        auto cellAt = [&](int i) { return isColumn ? cell(i, line) : cell(line, i); };
        Wires result;
        if (!core.empty() && !(core == range)) {
            Wires rest;
            for (int i = range.lo; i <= range.hi; ++i)
                if (!core.contains(i)) rest.push_back(cellAt(i));
            const Wires coreSorted = segment(isColumn, line, core, shared);
            result = merge(coreSorted, sort(rest));
        } else {
            Wires cells;
            for (int i = range.lo; i <= range.hi; ++i) cells.push_back(cellAt(i));
            result = sort(cells);
        }
        return memo_.emplace(key, std::move(result)).first->second;
    }

    MedianNetwork& net_;
    int next_;
    std::map<std::tuple<bool, int, int, int>, Wires> memo_;
};

// Keeps only the comparisons (and of those, the min or the max) that an output depends on.
void removeDeadCompares(std::vector<MedianNetwork::Compare>& compares, int inputs, const std::vector<int>& outputs) {
    std::vector<char> live(inputs + 2 * compares.size(), 0);
    for (int w : outputs) live[w] = 1;
    for (std::size_t i = compares.size(); i-- > 0;) {
        MedianNetwork::Compare& c = compares[i];
        c.needMin = live[inputs + 2 * i] != 0;
        c.needMax = live[inputs + 2 * i + 1] != 0;
        if (c.needMin || c.needMax) live[c.a] = live[c.b] = 1;
    }
}

// The statements of a network: `LANE_T wN = LANE_MIN(wA, wB);` and LANE_MAX for what is needed.
void writeCompares(std::ostringstream& s, const std::vector<MedianNetwork::Compare>& compares, int inputs) {
    for (std::size_t i = 0; i < compares.size(); ++i) {
        const MedianNetwork::Compare& c = compares[i];
        const std::size_t low = inputs + 2 * i;
        if (c.needMin) s << "LANE_T w" << low << " = LANE_MIN(w" << c.a << ", w" << c.b << ");\n";
        if (c.needMax) s << "LANE_T w" << low + 1 << " = LANE_MAX(w" << c.a << ", w" << c.b << ");\n";
    }
}

}  // namespace

std::size_t MedianNetwork::operations() const {
    std::size_t n = 0;
    for (const Compare& c : compares) n += (c.needMin ? 1 : 0) + (c.needMax ? 1 : 0);
    return n;
}

std::vector<std::uint16_t> MedianNetwork::evaluate(const std::vector<std::uint16_t>& patch) const {
    if (patch.size() != static_cast<std::size_t>(cells())) throw std::invalid_argument("median network: the patch has the wrong size");
    std::vector<std::uint16_t> wire(inputs() + 2 * compares.size());
    std::copy(patch.begin(), patch.end(), wire.begin());
    if (sortedColumns)
        for (int c = 0; c < patchWidth(); ++c) {
            std::vector<std::uint16_t> column;
            for (int r = tileY - 1; r < k; ++r) column.push_back(patch[r * patchWidth() + c]);
            std::sort(column.begin(), column.end());
            std::copy(column.begin(), column.end(), wire.begin() + cells() + c * coreLength());
        }
    for (std::size_t i = 0; i < compares.size(); ++i) {
        const Compare& c = compares[i];
        wire[inputs() + 2 * i] = std::min(wire[c.a], wire[c.b]);
        wire[inputs() + 2 * i + 1] = std::max(wire[c.a], wire[c.b]);
    }
    std::vector<std::uint16_t> out;
    for (int w : outputs) out.push_back(wire[w]);
    return out;
}

std::string MedianNetwork::openclFunction() const {
    std::ostringstream s;
    s << "\n// The median network of a " << tileX << " x " << tileY << " tile of " << k << " x " << k
      << " medians, written by host/filter/median_network.cpp.\nvoid median_network(MEDIAN_NETWORK_PARAMS) {\n";
    for (int r = 0; r < patchHeight(); ++r)
        for (int c = 0; c < patchWidth(); ++c) s << "LANE_T w" << r * patchWidth() + c << " = MEDIAN_LOAD(" << r << ", " << c << ");\n";
    if (sortedColumns)
        for (int c = 0; c < patchWidth(); ++c)
            for (int i = 0; i < coreLength(); ++i)
                s << "LANE_T w" << cells() + c * coreLength() + i << " = MEDIAN_LOAD_SORTED(" << c << ", " << i << ");\n";
    writeCompares(s, compares, inputs());
    for (int y = 0; y < tileY; ++y)
        for (int x = 0; x < tileX; ++x) s << "MEDIAN_STORE(" << y << ", " << x << ", w" << outputs[y * tileX + x] << ");\n";
    s << "}\n";
    if (sortedColumns) {
        s << "\n// Sorts " << coreLength() << " values in place.\nvoid median_sort_core(LANE_T* v) {\n";
        for (int i = 0; i < coreLength(); ++i) s << "LANE_T w" << i << " = v[" << i << "];\n";
        writeCompares(s, coreSort, coreLength());
        for (int i = 0; i < coreLength(); ++i) s << "v[" << i << "] = w" << coreSortOutputs[i] << ";\n";
        s << "}\n";
    }
    return s.str();
}

MedianNetwork buildMedianNetwork(int k, int tileX, int tileY, bool sortedColumns) {
    if (k < 3 || k % 2 == 0 || tileX < 1 || tileY < 1 || (sortedColumns && tileY > k))
        throw std::invalid_argument("median network: k must be odd and at least 3, the tile at least 1 x 1 (and with sorted columns at most k high)");
    MedianNetwork net;
    net.k = k;
    net.tileX = tileX;
    net.tileY = tileY;
    net.sortedColumns = sortedColumns;
    net.outputs.assign(static_cast<std::size_t>(tileX) * tileY, -1);
    Builder builder(net);
    Partial root;
    root.n = k * k;
    root.rank = (k * k) / 2;
    builder.solve(0, tileX, 0, tileY, root, Span{}, Span{});
    removeDeadCompares(net.compares, net.inputs(), net.outputs);
    if (sortedColumns) {
        // The sort of one column's shared rows: a network of its own over coreLength() inputs (a
        // MedianNetwork of k = 1 and one row of coreLength() outputs has exactly those inputs).
        MedianNetwork core;
        core.k = 1;
        core.tileX = net.coreLength();
        core.tileY = 1;
        Builder coreBuilder(core);
        Wires cells;
        for (int i = 0; i < net.coreLength(); ++i) cells.push_back(i);
        net.coreSortOutputs = coreBuilder.sort(cells);
        net.coreSort = std::move(core.compares);
        removeDeadCompares(net.coreSort, net.coreLength(), net.coreSortOutputs);
    }
    return net;
}

bool MedianNetworkLayout::valid() const {
    return minWindow >= 3 && maxWindow >= minWindow && maxWindow <= 15 && tileX >= 1 && tileY >= 1 && (!sortedColumns || tileY <= minWindow) &&
           tileX * tileY <= 32 && largeTileX >= 0 && largeTileX * tileY <= 32 && groupX >= 1 && groupY >= 1;
}

MedianNetworkLayout MedianNetworkLayout::forWindow(int k) const {
    MedianNetworkLayout l = *this;
    if (k >= 13 && largeTileX > 0) l.tileX = largeTileX;
    l.largeTileX = 0;
    return l;
}

std::uint64_t MedianNetworkLayout::localBytes(int k) const {
    const std::uint64_t width = groupOutputsX() + k - 1, height = groupOutputsY() + k - 1;
    // The sorted shared rows: one column of k - tileY + 1 lane pairs (4 bytes) per patch column and work-item row.
    return width * height + (sortedColumns ? 4u * width * groupY * static_cast<std::uint64_t>(k - tileY + 1) : 0u);
}

bool MedianNetworkLayout::fits(std::size_t maxWorkGroupSize, std::uint64_t localMemBytes) const {
    // The largest patch: the largest window's, or the largest below 13 x 13 where those take wider tiles.
    const int belowLarge = std::min(maxWindow, 11);
    return valid() && static_cast<std::size_t>(groupX) * groupY <= maxWorkGroupSize &&
           forWindow(maxWindow).localBytes(maxWindow) <= localMemBytes &&
           (belowLarge < minWindow || forWindow(belowLarge).localBytes(belowLarge) <= localMemBytes);
}

bool MedianNetworkLayout::takes(const Operation& op, io::PixelType in) const {
    return enabled && op.kind == Operation::Kind::Median && in == io::PixelType::U8 && op.width == op.height && op.width >= minWindow &&
           op.width <= maxWindow;
}

std::string MedianNetworkLayout::defines(int k, Border border) const {
    std::ostringstream d;
    d << "-D KW=" << k << " -D RX=" << k / 2 << " -D RY=" << k / 2 << " -D BORDER=" << static_cast<int>(border) << " -D NTX=" << tileX
      << " -D NTY=" << tileY << " -D GX=" << groupX << " -D GY=" << groupY << " -D U16X2=" << (u16x2 ? 1 : 0)
      << " -D SORTED_COLUMNS=" << (sortedColumns ? 1 : 0);
    return d.str();
}

}  // namespace portacl::filter
