// Flow accumulation tile by tile (after Barnes 2017, "Parallel non-divergent flow accumulation for
// trillion cell digital elevation models on desktops or clusters"). Each tile's window holds a
// one-cell ring of its neighbours; the ring's cells that drain into the tile carry their values in
// (d8_window_dependencies), and the tile's cells that drain into the ring are given no flow there.
// 1. Every tile accumulated with nothing flowing in.
// 2. On the host: the cells where flow leaves a tile (its exits) and, for each cell where flow enters
//    one, the exit its path inside the tile reaches; an exit's final value is its own tile's value
//    plus the final values of the exits flowing into the entries whose paths reach it (a forest of
//    exits, summed in Kahn's order; a cycle of directions leaves some of it unfinished).
// 3. Every tile with inflow accumulated again with its ring's final values, each cell's sum gathered
//    in the one-piece order, so the counts equal the one-piece run's. A weighted sum rounds in that
//    order too, so step 2's sums (inflows added later) are only first guesses: a tile runs again
//    whenever a value flowing into it changed, until none does, and then every value is the
//    one-piece run's to the bit.
#include <algorithm>
#include <climits>
#include <deque>
#include <unordered_map>

#include "drainage_detail.hpp"
#include "portacl/runtime/progress.hpp"
#include "tiles.hpp"

namespace portacl::drainage::detail {
namespace {

template <typename Acc>
class TiledAccumulation {
public:
    TiledAccumulation(Context& ctx, const DirectionGrid& g, const AccumulationOptions& opt, const std::vector<Tile>& tiles)
        : ctx_(ctx), g_(g), opt_(opt), tiles_(tiles) {
        tileRows_ = tiles.front().rows;
        tileCols_ = tiles.front().cols;
        tilesAcross_ = (g.frame.cols + tileCols_ - 1) / tileCols_;
        std::size_t largest = 0;
        for (const Tile& t : tiles) largest = std::max(largest, std::size_t(t.rows + 2) * std::size_t(t.cols + 2));
        const bool weighted = opt.weights != nullptr;
        p_ = weighted ? opt.precision : Precision::Float;
        dir_ = ctx.buffer(largest, "tile D8 directions", CL_MEM_READ_ONLY);
        deps_ = ctx.buffer(largest * sizeof(cl_int), "tile upstream counts");
        frontier_ = ctx.buffer(2 * largest * sizeof(cl_int), "tile frontiers");
        state_ = ctx.buffer(4 * sizeof(cl_int), "tile frontier sizes");
        acc_ = ctx.buffer(largest * sizeof(Acc), "tile accumulation");
        taint_ = ctx.buffer(largest, "tile edge contamination");
        weights_ = ctx.buffer(weighted ? largest * sizeof(Acc) : sizeof(Acc), "tile accumulation weights", CL_MEM_READ_ONLY);
        first_ = ctx.buffer(sizeof(cl_int), "tile's first unfinished cell");
        value_.assign(g.dir.size(), Acc(0));
        taint_of_.assign(g.dir.size(), 0);
    }

    Accumulation run() {
        Progress progress("tiled accumulation", tiles_.size() * 2, "tile runs");
        std::uint64_t runs = 0;
        for (std::size_t t = 0; t < tiles_.size(); ++t) runTile(t, false), progress.update(++runs);
        std::vector<std::uint8_t> dirty(tiles_.size(), 0);
        linkExits(dirty);
        for (bool any = true; any;) {
            any = false;
            for (std::size_t t = 0; t < tiles_.size(); ++t) {
                if (!dirty[t]) continue;
                dirty[t] = 0;
                for (std::size_t next : runTile(t, true)) dirty[next] = 1, any = true;
                progress.update(++runs);
            }
        }
        progress.finish();
        Accumulation a;
        if (opt_.weights) a.sums.assign(value_.begin(), value_.end());
        else a.counts.assign(value_.begin(), value_.end());
        a.valid.resize(g_.dir.size());
        for (std::size_t i = 0; i < g_.dir.size(); ++i) a.valid[i] = g_.dir[i] != kNoData && !taint_of_[i];
        finish(a, g_, opt_);
        return a;
    }

private:
    std::size_t tileOf(std::size_t cell) const {
        const std::size_t r = cell / std::size_t(g_.frame.cols), c = cell % std::size_t(g_.frame.cols);
        return (r / std::size_t(tileRows_)) * std::size_t(tilesAcross_) + c / std::size_t(tileCols_);
    }
    [[noreturn]] void cycle() const { throw Error(cycleSentence(g_, std::size_t(smallestCycleCell(g_)))); }

    // Accumulates tile t with its ring's values (withInflow) or with nothing flowing in; stores its
    // cells' values. Returns the tiles downstream of its exits whose values changed.
    std::vector<std::size_t> runTile(std::size_t ti, bool withInflow) {
        const Tile& t = tiles_[ti];
        const io::RasterFrame& f = g_.frame;
        const int wr = t.rows + 2, wc = t.cols + 2;
        const std::size_t w = std::size_t(wr) * std::size_t(wc);
        auto dir = cutWindow<std::uint8_t>(f, t, 1, kNoData, [&](std::size_t i) { return g_.dir[i]; });
        std::vector<Acc> acc(w, Acc(0));
        std::vector<std::uint8_t> taint(w, 0);
        for (int y = 0; y < wr; ++y)
            for (int x = 0; x < wc; ++x) {
                const std::size_t k = std::size_t(y) * wc + x;
                const std::uint8_t d = dir[k];
                if (d >= kNoFlow) continue;
                const int ty = y + kRowOffset[d], tx = x + kColOffset[d];
                const bool ring = y == 0 || x == 0 || y == wr - 1 || x == wc - 1;
                const bool intoRing = ty <= 0 || tx <= 0 || ty >= wr - 1 || tx >= wc - 1;
                if (!ring && intoRing) dir[k] = kNoFlow;  // leaves the tile: its value goes on in the next
                if (ring && !intoRing && withInflow) {
                    const std::size_t cell = std::size_t(t.r0 + y - 1) * f.cols + std::size_t(t.c0 + x - 1);
                    acc[k] = value_[cell];
                    taint[k] = taint_of_[cell];
                }
            }
        ctx_.write(dir_, dir.data(), w, "tile D8 directions");
        ctx_.write(acc_, acc.data(), w * sizeof(Acc), "tile inflows");
        ctx_.write(taint_, taint.data(), w, "tile edge contamination");
        if (opt_.weights) {
            const auto weights = cutWindow<Acc>(f, t, 1, Acc(0), [&](std::size_t i) { return Acc((*opt_.weights)[i]); });
            ctx_.write(weights_, weights.data(), w * sizeof(Acc), "tile accumulation weights");
        }
        const cl_int none = INT_MAX;
        ctx_.write(first_, &none, sizeof none, "tile's first unfinished cell");
        accumulateWindowOnDevice(ctx_, dir_, deps_, acc_, taint_, weights_, first_, frontier_, state_, windowFrame(f, wr, wc),
                                 opt_.weights != nullptr, p_, opt_.edgeContamination);
        if (ctx_.download<cl_int>(first_, 1, "tile's first unfinished cell")[0] != none) cycle();
        acc = ctx_.download<Acc>(acc_, w, "tile accumulation");
        taint = ctx_.download<std::uint8_t>(taint_, w, "tile edge contamination");
        std::vector<std::size_t> changed;
        for (int y = 1; y < wr - 1; ++y)
            for (int x = 1; x < wc - 1; ++x) {
                const std::size_t k = std::size_t(y) * wc + x;
                const std::size_t cell = std::size_t(t.r0 + y - 1) * f.cols + std::size_t(t.c0 + x - 1);
                if (g_.dir[cell] == kNoData) continue;
                const long next = downstreamOf(g_, cell);
                const bool exit = next >= 0 && !t.holds(long(next) / f.cols, long(next) % f.cols);
                if (exit && withInflow && (value_[cell] != acc[k] || taint_of_[cell] != taint[k])) changed.push_back(tileOf(std::size_t(next)));
                value_[cell] = acc[k];
                taint_of_[cell] = taint[k];
            }
        return changed;
    }

    // Step 2: each exit's final value (for weighted sums a first guess) from the values of step 1;
    // marks the tiles that take inflow.
    void linkExits(std::vector<std::uint8_t>& dirty) {
        const io::RasterFrame& f = g_.frame;
        // The exit each entry's path reaches inside its tile (-1: the path ends in the tile).
        auto exitOf = [&](std::size_t cell) -> long {
            const Tile& t = tiles_[tileOf(cell)];
            std::size_t i = cell;
            for (std::size_t steps = 0;; ++steps) {
                const long next = downstreamOf(g_, i);
                if (next < 0) return -1;
                if (!t.holds(next / f.cols, next % f.cols)) return long(i);
                if (steps > std::size_t(t.rows) * std::size_t(t.cols)) cycle();
                i = std::size_t(next);
            }
        };
        std::vector<std::size_t> exits;
        std::unordered_map<std::size_t, std::size_t> index;  // exit cell -> its place in `exits`
        for (std::size_t i = 0; i < g_.dir.size(); ++i) {
            const long next = downstreamOf(g_, i);
            if (next >= 0 && tileOf(std::size_t(next)) != tileOf(i)) {
                index.emplace(i, exits.size());
                exits.push_back(i);
                dirty[tileOf(std::size_t(next))] = 1;
            }
        }
        // succ: the exit that the flow leaving each exit reaches next (-1: none).
        std::vector<long> succ(exits.size(), -1);
        std::vector<int> pending(exits.size(), 0);
        std::unordered_map<std::size_t, long> reached;  // entry cell -> exit, walked once
        for (std::size_t e = 0; e < exits.size(); ++e) {
            const std::size_t entry = std::size_t(downstreamOf(g_, exits[e]));
            auto it = reached.find(entry);
            if (it == reached.end()) it = reached.emplace(entry, exitOf(entry)).first;
            if (it->second >= 0) {
                succ[e] = long(index.at(std::size_t(it->second)));
                ++pending[std::size_t(succ[e])];
            }
        }
        // Kahn's order over the forest of exits, in double for weighted sums (a first guess there).
        using Sum = std::conditional_t<std::is_same_v<Acc, cl_ulong>, cl_ulong, double>;
        std::vector<Sum> inflow(exits.size(), Sum(0));
        std::vector<std::uint8_t> inTaint(exits.size(), 0);
        std::deque<std::size_t> ready;
        for (std::size_t e = 0; e < exits.size(); ++e)
            if (pending[e] == 0) ready.push_back(e);
        std::size_t done = 0;
        while (!ready.empty()) {
            const std::size_t e = ready.front();
            ready.pop_front();
            ++done;
            const std::size_t cell = exits[e];
            const Sum total = Sum(value_[cell]) + inflow[e];
            value_[cell] = Acc(total);
            taint_of_[cell] |= inTaint[e];
            if (succ[e] < 0) continue;
            const std::size_t s = std::size_t(succ[e]);
            inflow[s] += total;
            inTaint[s] |= taint_of_[cell];
            if (--pending[s] == 0) ready.push_back(s);
        }
        if (done != exits.size()) cycle();
    }

    Context& ctx_;
    const DirectionGrid& g_;
    const AccumulationOptions& opt_;
    const std::vector<Tile>& tiles_;
    int tileRows_ = 0, tileCols_ = 0, tilesAcross_ = 0;
    Precision p_ = Precision::Float;
    cl::Buffer dir_, deps_, frontier_, state_, acc_, taint_, weights_, first_;
    std::vector<Acc> value_;              // every cell's latest value
    std::vector<std::uint8_t> taint_of_;  // and edge contamination
};

}  // namespace

Accumulation accumulateTiled(Context& ctx, const DirectionGrid& g, const AccumulationOptions& opt, const std::vector<Tile>& tiles) {
    if (!opt.weights) return TiledAccumulation<cl_ulong>(ctx, g, opt, tiles).run();
    if (opt.precision == Precision::Float) return TiledAccumulation<float>(ctx, g, opt, tiles).run();
    return TiledAccumulation<double>(ctx, g, opt, tiles).run();
}

}  // namespace portacl::drainage::detail
