// Internals the device path and the reference share.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "portacl/drainage.hpp"
#include "portacl/runtime/context.hpp"
#include "portacl/runtime/error.hpp"
#include "portacl/runtime/staging.hpp"

namespace portacl::drainage::detail {

// "RxC", for sentences about a grid.
inline std::string shapeText(const io::RasterFrame& f) { return std::to_string(f.rows) + "x" + std::to_string(f.cols); }
// Each cell's NoData flag, as the kernels read it.
inline std::vector<std::uint8_t> noDataMask(const io::Raster& dem) {
    std::vector<std::uint8_t> m(dem.size());
    for (std::size_t i = 0; i < m.size(); ++i) m[i] = dem.isNoData(i);
    return m;
}
// The heights in the kernels' precision, 0 on NoData.
template <typename T>
std::vector<T> heightsOf(const io::Raster& dem) {
    std::vector<T> z(dem.size());
    for (std::size_t i = 0; i < z.size(); ++i) z[i] = dem.isNoData(i) ? T(0) : T(dem.values[i]);
    return z;
}
// A DEM step on the device: checks the DEM (and that one piece holds it), then calls run(T()) with T
// float or double as `precision` asks; `what` begins the sentence for mixed precision ("D8
// directions run").
template <typename Run>
auto onDemInPrecision(Context& ctx, const io::Raster& dem, Precision precision, const std::string& what, Run&& run) {
    validateDem(dem);
    if (dem.size() >= (std::size_t(1) << 31))
        throw Error("a DEM of " + std::to_string(dem.size()) + " cells is larger than the 2^31 cells one piece holds");
    if (precision == Precision::Float) return run(float());
    if (precision != Precision::Double) throw Error(what + " in float or double, not mixed precision");
    ctx.requirePrecision(Precision::Double);
    return run(double());
}

// "<grid> has a cycle of directions through row R, column C: ..." for a cell of the cycle.
std::string cycleSentence(const DirectionGrid& g, std::size_t cell);
// Throws when the grid's shape and codes are not a direction grid's (a library caller's mistake).
void checkGrid(const DirectionGrid& g);
void checkWeights(const DirectionGrid& g, const AccumulationOptions& opt);
// The cell `i` drains into, or -1 (no flow, off the grid, into NoData).
long downstreamOf(const DirectionGrid& g, std::size_t i);
// A cell on a cycle of directions, or -1 when the directions hold none (a walk along them).
long cycleCell(const DirectionGrid& g);
// The smallest index of a cell on any cycle of directions (the cell the device's accumulation names:
// d8_first_unfinished), or -1.
long smallestCycleCell(const DirectionGrid& g);
// Strahler's rule for stream cell i from the orders of its upstream stream neighbours (those whose
// direction points at it): 1 at a source, else their largest order, plus one where two or more share it.
int strahlerFromUpstream(const DirectionGrid& g, const std::vector<std::uint8_t>& stream, const std::vector<int>& order,
                         std::size_t i);
// Which cells have no data: a direction grid's kNoData codes, or a DEM's NoData flags (1) where the
// device holds the directions and the host only the DEM's mask.
struct NoDataCells {
    const std::uint8_t* code;
    std::uint8_t noData;
    explicit NoDataCells(const DirectionGrid& g) : code(g.dir.data()), noData(kNoData) {}
    explicit NoDataCells(const std::vector<std::uint8_t>& flags) : code(flags.data()), noData(1) {}
    bool operator()(std::size_t i) const { return code[i] == noData; }
};
// Without includeSelf, takes each cell's own share off its sum (in the sums' precision).
void finish(Accumulation& a, const DirectionGrid& g, const AccumulationOptions& opt);
void finish(Accumulation& a, NoDataCells noData, const AccumulationOptions& opt);

// The device steps on buffers already there (the bench times them without transfers; exported,
// PORTACL_API, for it).
// dir: bytes; heights: REAL of `p`; nodata: bytes.
PORTACL_API void directionsOnDevice(Context& ctx, const cl::Buffer& heights, const cl::Buffer& nodata, const cl::Buffer& dir,
                                    const io::RasterFrame& frame, Precision p);
// deps: int per cell; acc: ulong (counts) or REAL (weighted) per cell; taint: bytes; weights: REAL per
// cell (any buffer without weights); first: one int holding INT_MAX, left at the first cell of a cycle;
// frontier: 2 ints per cell; state: 4 ints. Returns the launches made.
PORTACL_API int accumulateOnDevice(Context& ctx, const cl::Buffer& dir, const cl::Buffer& deps, const cl::Buffer& acc,
                                   const cl::Buffer& taint, const cl::Buffer& weights, const cl::Buffer& first,
                                   const cl::Buffer& frontier, const cl::Buffer& state, const io::RasterFrame& frame,
                                   bool weighted, Precision p, bool contamination);
// accumulateOnDevice on a tile's window (tiles.hpp; `window` its shape): the cells of its one-cell
// ring hold what flows in from the neighbouring tiles and are neither counted nor summed.
int accumulateWindowOnDevice(Context& ctx, const cl::Buffer& dir, const cl::Buffer& deps, const cl::Buffer& acc,
                             const cl::Buffer& taint, const cl::Buffer& weights, const cl::Buffer& first,
                             const cl::Buffer& frontier, const cl::Buffer& state, const io::RasterFrame& window,
                             bool weighted, Precision p, bool contamination);
// Runs the levels of a frontier (cl/common/d8_frontier.h) until it is empty: `wide` (one level per
// launch) and `group` (levels in one work-group) have every argument set but their last ones, from
// levelArg on: the level (and, for `group`, the narrow frontier's limit). state: the frontier sizes,
// level 0's already there. Returns the launches made.
int runFrontier(Context& ctx, cl::Kernel& wide, cl::Kernel& group, cl_uint levelArg, const cl::Buffer& state);
// water[0]: 1 per cell with data; water[1], total: n ulongs; moved: one int. Returns the launches.
PORTACL_API int iterateOnDevice(Context& ctx, const cl::Buffer& dir, const cl::Buffer water[2], const cl::Buffer& total,
                                const cl::Buffer& moved, const io::RasterFrame& frame, Iterative scheme);

// The device bytes a cell takes in accumulate() (directions, counts, frontiers, sums, flags, weights).
std::size_t accumulationBytesPerCell(const AccumulationOptions& opt);
// The staging chunk for transfers of at most `largestTransfer` bytes: 32 MiB, less for a small grid.
std::size_t stagingBytes(std::size_t largestTransfer);
// accumulate() on directions already on the device (`dir`, bytes): every other buffer its own, the
// weights uploaded and the sums (and, with edge contamination, the flags) downloaded through
// `staging`. `noData`: the cells without data; cycleSentence(cell) names a cycle through `cell`.
Accumulation accumulateResident(Context& ctx, StagedTransfers& staging, const cl::Buffer& dir, const io::RasterFrame& frame,
                                NoDataCells noData, const AccumulationOptions& opt,
                                const std::function<std::string(std::size_t)>& cycleSentence);

// resolveFlats() on buffers already on the device: heights REAL of `p`, dir the D8 directions (bytes),
// out the resolved directions (bytes); the relaxations' buffers are its own.
void resolveFlatsOnDevice(Context& ctx, const cl::Buffer& heights, const cl::Buffer& dir, const cl::Buffer& out,
                          const io::RasterFrame& frame, Precision p);
// Strahler order (ints) of the stream cells (`cells`, bytes) of the directions in `dir`.
void strahlerOnDevice(Context& ctx, const cl::Buffer& dir, const cl::Buffer& cells, const cl::Buffer& order, const io::RasterFrame& frame);
// Each cell's outlet by pointer jumping on the directions in `dir`, water stopping at the cells of
// `outlets` (bytes): the returned buffer holds an int cell index per cell.
cl::Buffer watershedReachOnDevice(Context& ctx, const cl::Buffer& dir, const cl::Buffer& outlets, const io::RasterFrame& frame);
// Pointer doubling (watershed_jump) from to[0] of n cells until no pointer moves; returns which of the
// two buffers holds the settled pointers. The jumps go kJumpsPerRead at a time between reads of their
// change flags (`changed`: kJumpsPerRead ints), so that a grid pays a sync per batch, not per jump,
// and at most kJumpsPerRead - 1 jumps after it has settled.
constexpr int kJumpsPerRead = 4;
int doublePointers(Context& ctx, const cl::Buffer (&to)[2], const cl::Buffer& changed, std::size_t n);

void checkStreams(const DirectionGrid& g, const std::vector<std::uint8_t>& stream);
// The given outlets as a mask; throws for one outside the grid or on NoData.
std::vector<std::uint8_t> outletMask(const DirectionGrid& g, const std::vector<std::size_t>& outlets);
std::vector<std::uint8_t> outletMask(const io::RasterFrame& frame, NoDataCells noData, const std::vector<std::size_t>& outlets);
// Watershed labels from each cell's outlet (`reach`, a cell index; -1 for NoData).
std::vector<std::int32_t> numberBasins(const DirectionGrid& g, const std::vector<long>& reach, const std::vector<std::uint8_t>& given,
                                       const std::vector<std::size_t>& outlets);
template <typename Index>
std::vector<std::int32_t> numberBasins(std::size_t n, NoDataCells noData, const std::vector<Index>& reach,
                                       const std::vector<std::uint8_t>& given, const std::vector<std::size_t>& outlets) {
    std::vector<std::int32_t> id(n, 0), label(n, -1);
    if (outlets.empty()) {
        std::int32_t next = 0;
        for (std::size_t i = 0; i < n; ++i)
            if (!noData(i) && std::size_t(reach[i]) == i) id[i] = ++next;
    } else {
        for (std::size_t j = outlets.size(); j-- > 0;) id[outlets[j]] = std::int32_t(j + 1);  // the first mention wins
    }
    for (std::size_t i = 0; i < n; ++i)
        if (!noData(i)) label[i] = outlets.empty() || given[std::size_t(reach[i])] ? id[std::size_t(reach[i])] : 0;
    return label;
}
// Depression filling: heights REAL of `p`, nodata bytes, level the filled REAL surface, changed one
// int. Returns the launches made. (Exported, PORTACL_API, for the bench.)
PORTACL_API int fillOnDevice(Context& ctx, const cl::Buffer& heights, const cl::Buffer& nodata, const cl::Buffer& level,
                             const cl::Buffer& changed, const io::RasterFrame& frame, Precision p);

// D∞: "<grid> has a cycle of D-infinity directions through row R, column C: ..."; the grid's shape,
// its angles and the options (throws one sentence).
std::string dinfCycleSentence(const DinfGrid& g, std::size_t cell);
// The diagonal neighbour's angle, atan2(cell height, cell width): the table of the neighbours' angles.
double dinfDiagonal(const io::RasterFrame& f);
void checkDinf(const DinfGrid& g, const AccumulationOptions& opt);
// A D∞ accumulation from each cell's sum (in T, the run's precision) and NoData flag: 0 and invalid
// on NoData; without includeSelf, the cell's own share taken off in T.
template <typename T>
Accumulation dinfResult(const std::vector<T>& sums, const std::vector<std::uint8_t>& nodata, const AccumulationOptions& opt) {
    Accumulation a;
    a.sums.resize(sums.size());
    a.valid.resize(sums.size());
    for (std::size_t i = 0; i < sums.size(); ++i) {
        a.valid[i] = !nodata[i];
        T v = nodata[i] ? T(0) : sums[i];
        if (!nodata[i] && !opt.includeSelf) v -= opt.weights ? T((*opt.weights)[i]) : T(1);
        a.sums[i] = double(v);
    }
    return a;
}
// D∞ accumulation on buffers already there (exported for the bench): angle REAL of `p`, nodata bytes,
// deps int, acc REAL of `p`, weights REAL (any buffer without), first one int holding INT_MAX,
// frontier 2 ints per cell, state 4 ints. Returns the launches made.
PORTACL_API int dinfAccumulateOnDevice(Context& ctx, const cl::Buffer& angle, const cl::Buffer& nodata, const cl::Buffer& deps,
                                       const cl::Buffer& acc, const cl::Buffer& weights, const cl::Buffer& first,
                                       const cl::Buffer& frontier, const cl::Buffer& state, const io::RasterFrame& frame,
                                       bool weighted, Precision p);
// dinfAccumulateOnDevice on a tile's window (tiles.hpp; `window` its shape): the cells of its one-cell
// ring hold what flows in from the neighbouring tiles and are neither counted nor summed; cycles are
// not looked for (the caller has).
int dinfAccumulateWindowOnDevice(Context& ctx, const cl::Buffer& angle, const cl::Buffer& nodata, const cl::Buffer& deps,
                                 const cl::Buffer& acc, const cl::Buffer& weights, const cl::Buffer& frontier,
                                 const cl::Buffer& state, const io::RasterFrame& window, bool weighted, Precision p);
// The direction k (0..7) of the sector holding `angle`, in `p` as the kernels find it: a cell's flow
// goes to neighbours k and (k + 1) % 8 only (one of them may take none); -1 for no flow or NoData.
int dinfSector(double angle, const io::RasterFrame& f, Precision p);
// The smallest index of a cell with data that Kahn's order over the D∞ graph never reaches (the cell
// that dinf_first_unfinished names: on a cycle or downstream of one), or -1; shares compared in `p`.
long dinfFirstUnfinished(const DinfGrid& g, Precision p);

}  // namespace portacl::drainage::detail
