// Drainage networks from elevation models: D8 flow directions (O'Callaghan and Mark 1984) and flow
// accumulation, on the device and in a serial C++ reference.
//
// Conventions.
// - Directions are held as one byte per cell: 0..7 = E, NE, N, NW, W, SW, S, SE (TauDEM's order less
//   one), kNoFlow for a cell that drains nowhere (a pit, a flat, an outlet), kNoData for a cell
//   without data. A direction may point off the grid or into a NoData cell: that flow leaves.
// - D8 from a DEM: each cell drains to the neighbour with the steepest descent, (z - z_n) / distance,
//   distances from the geotransform's cell width and height (the diagonal their hypotenuse). Only
//   strictly lower neighbours inside the grid with data count; a cell with none gets kNoFlow. Ties go
//   to the first in the order E, NE, N, NW, W, SW, S, SE (as TauDEM's D8FlowDir scans).
// - Accumulation: a cell's value is its own weight (1 for cell counts) plus the values of the
//   neighbours that drain into it, added in the order E, NE, N, NW, W, SW, S, SE of those neighbours;
//   without includeSelf (the slides' water moved in) the cell's own weight is then taken off. Counts are 64-bit integers, exact on every device;
//   weighted sums in float or double add in that same order, so the device equals the reference bit
//   for bit. Flow into NoData or off the grid is lost (RichDEM's and TauDEM's rule).
// - Edge contamination (TauDEM's AreaD8 default, optional here): a cell whose contributing area holds
//   a cell next to the grid's edge or to a NoData cell gets no value.
#pragma once

#include "portacl/export.hpp"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "portacl/io/image.hpp"
#include "portacl/io/raster.hpp"
#include "portacl/runtime/context.hpp"

namespace portacl::drainage {

constexpr std::uint8_t kNoFlow = 8;
constexpr std::uint8_t kNoData = 255;

// Offsets of directions 0..7 (E, NE, N, NW, W, SW, S, SE): rows grow downwards.
constexpr int kRowOffset[8] = {0, -1, -1, -1, 0, 1, 1, 1};
constexpr int kColOffset[8] = {1, 1, 0, -1, -1, -1, 0, 1};

// The pointer encodings of the peers. Every encoding reads 0 as "no flow".
// ESRI (and pysheds): 1=E 2=SE 4=S 8=SW 16=W 32=NW 64=N 128=NE.
// TauDEM: 1=E 2=NE 3=N 4=NW 5=W 6=SW 7=S 8=SE.
// RichDEM: 1=W 2=NW 3=N 4=NE 5=E 6=SE 7=S 8=SW.
// Whitebox: 1=NE 2=E 4=SE 8=S 16=SW 32=W 64=NW 128=N.
enum class Encoding { Esri, TauDem, RichDem, Whitebox };

// "esri", "taudem", "richdem", "whitebox"; throws one sentence naming them otherwise.
PORTACL_API Encoding parseEncoding(const std::string& name);
PORTACL_API const char* encodingName(Encoding e);
// A direction (0..7 or kNoFlow) as the encoding's code.
PORTACL_API int encodeDirection(std::uint8_t direction, Encoding e);
// The direction of a code (kNoFlow for 0); -1 when the code is not one of the encoding's.
PORTACL_API int decodeDirection(double code, Encoding e);

struct PORTACL_API DirectionGrid {
    io::RasterFrame frame;
    std::vector<std::uint8_t> dir;  // frame.size() codes as above
    std::string source;             // the file it came from, for messages
};

// A pointer raster in `e` as directions; its NoData cells become kNoData. Throws one sentence naming
// the first cell (row and column from 0 at the top left) whose code is not one of the encoding's.
PORTACL_API DirectionGrid decodeDirections(const io::Raster& pointers, Encoding e);
// Directions as the encoding's codes (NoData: 255 for ESRI, RichDEM and Whitebox, -32768 for TauDEM)
// with the type a peer writes (Byte; Int16 for TauDEM).
struct PORTACL_API EncodedDirections {
    std::vector<double> codes;
    io::RasterType type;
    double noData;
};
PORTACL_API EncodedDirections encodeDirections(const DirectionGrid& g, Encoding e);

// Tiles: a grid is processed in tiles of at most rows x cols cells, one tile on the device at a time
// (the host holds the whole grid), with the one-piece result bit for bit. {0, 0}: one piece when the
// device holds the grid's buffers, otherwise tiles as large as the device's memory allows. Forcing
// small tiles tests the tiled path.
struct PORTACL_API Tiling {
    int rows = 0, cols = 0;
    bool forced() const { return rows > 0 && cols > 0; }
};
// "N" or "RxC" (a tile of N x N or R x C cells); throws one sentence otherwise.
PORTACL_API Tiling parseTiling(const std::string& text);

// Throws one sentence when a DEM cannot be routed: no cell with data, or a NaN height where NaN is
// not the NoData value (naming the cell).
PORTACL_API void validateDem(const io::Raster& dem);

// Depression filling: every cell raised to the lowest height at which water can leave the grid from
// it, the minimum over its 8-connected paths to an outlet of the highest cell on the path. The
// outlets are the edge cells and the cells next to NoData (as TauDEM's PitRemove and RichDEM's
// FillDepressions). The filled surface is unique; its values are heights of the DEM itself, so float
// and double give the input's heights exactly. NoData cells keep the NoData value. The reference is
// Priority-Flood (Barnes, Lehman and Mulla 2014, the improved variant with a plain queue for pits);
// the device relaxes every cell to max(its height, the lowest of its neighbours' levels) from the
// outlets inwards until nothing changes, which reaches the same surface.
// Tiled (after Barnes 2016, "Parallel Priority-Flood depression filling for trillion cell digital
// elevation models on desktops or clusters"): each tile filled on the device with its own edge as
// provisional outlets, each cell labelled by a provisional outlet it reaches without rising above its
// level; on the host, the graph of those labels (joined where cells of two labels touch, at the
// higher of their levels) solved from the grid's outlets, and each cell raised to the higher of its
// tile level and its label's level in the graph.
PORTACL_API io::Raster fillDepressions(Context& ctx, const io::Raster& dem, Precision precision = Precision::Double,
                                       const Tiling& tiling = {});
PORTACL_API io::Raster fillDepressionsReference(const io::Raster& dem, Precision precision = Precision::Double);

// D8 directions of a DEM on the device, heights in float or double.
// Tiled: each tile with a one-cell ring of its neighbours' heights.
PORTACL_API DirectionGrid d8Directions(Context& ctx, const io::Raster& dem, Precision precision = Precision::Double,
                                       const Tiling& tiling = {});
PORTACL_API DirectionGrid d8DirectionsReference(const io::Raster& dem, Precision precision = Precision::Double);

// Flat resolution (Barnes, Lehman and Mulla 2014, "An efficient assignment of drainage direction
// over flat surfaces"): the cells D8 left without flow inside the grid (a flat of a filled DEM) get a
// direction along a gradient towards lower terrain and away from higher terrain, so that every cell
// of a flat with an outlet drains. A flat is a connected set of cells of one height holding a low
// edge (a cell that drains, next to a cell of the flat without flow); its high edges are its cells
// without flow next to a higher cell. With t(c) the 8-connected steps from the nearest low edge
// (1 at the low edge) and a(c) those from the nearest high edge through the flat's cells without
// flow (1 at a high edge; the flat's largest a is H), a cell's mask is 2 t(c) + (H - a(c)), or 2 t(c)
// where no high edge reaches; each cell without flow drains to the neighbour of its flat with the
// lowest mask below its own, ties to the first in the order E, NE, ..., SE. Cells on the grid's edge
// or next to NoData that have no lower neighbour keep "no flow": water leaves the grid there. Flats
// without an outlet (in a DEM that was not filled) stay without flow. Heights compare in `precision`.
// Tiled: a flat (a connected set of equal heights holding a cell without flow) depends only on its
// cells and their neighbours, so the flats are resolved in windows around them (their bounding boxes
// and a one-cell ring; several flats to a window while it stays within a tile's cell count); a flat
// whose window the device cannot hold is resolved by the serial reference on the host.
PORTACL_API DirectionGrid resolveFlats(Context& ctx, const io::Raster& dem, const DirectionGrid& d8, Precision precision = Precision::Double,
                                       const Tiling& tiling = {});
PORTACL_API DirectionGrid resolveFlatsReference(const io::Raster& dem, const DirectionGrid& d8, Precision precision = Precision::Double);

struct PORTACL_API AccumulationOptions {
    bool includeSelf = true;          // a cell counts itself (its own weight); false: the slides' water moved in
    bool edgeContamination = false;   // TauDEM's rule above
    const std::vector<double>* weights = nullptr;  // one per cell (NoData weights as 0); null: cell counts
    Precision precision = Precision::Double;       // of weighted sums
    Tiling tiling;                                 // accumulate() and dinfAccumulate() only
};

struct PORTACL_API Accumulation {
    std::vector<std::uint64_t> counts;  // cell counts (weights == null)
    std::vector<double> sums;           // weighted sums (weights given), float values widened
    std::vector<std::uint8_t> valid;    // 0: NoData (no data, or edge-contaminated)
    bool weighted() const { return !sums.empty(); }
    double value(std::size_t i) const { return weighted() ? sums[i] : double(counts[i]); }
};

// Flow accumulation on the device in O(N) work: each cell's number of upstream neighbours, then the
// cells level by level from the sources downstream, each summed once all its contributors are (a
// frontier of cells whose counts reached zero; no work-item waits on another). Throws one sentence
// naming a cell of a cycle when the directions hold one. Tiled (Barnes 2017): each tile accumulated
// alone, its inflows from its ring of neighbours taken as 0; the cells where flow leaves a tile linked
// on the host to the cells where it enters the next, which gives every inflow; each tile accumulated
// again with its ring's final values (weighted sums: again until no inflow changes, since adding an
// inflow later would round differently).
PORTACL_API Accumulation accumulate(Context& ctx, const DirectionGrid& g, const AccumulationOptions& opt = {});
// The same by Kahn's topological order on the host.
PORTACL_API Accumulation accumulateReference(const DirectionGrid& g, const AccumulationOptions& opt = {});

// The slides' iterative schemes (Ortega and Rueda 2010), kept as baselines: every cell holds one unit
// of water; each launch moves all water one cell downstream, pushed with atomics (Push) or gathered
// by each cell from the neighbours that drain into it (Pull), until no water is left. Counts of
// water moved in (includeSelf false); `launches` receives the number of steps.
enum class Iterative { Push, Pull };
PORTACL_API std::vector<std::uint64_t> accumulateIterative(Context& ctx, const DirectionGrid& g, Iterative scheme, int* launches = nullptr);

// Strahler order of the stream cells (streams() == 1) of a direction grid: 1 at a stream's source;
// downstream, the largest order among a cell's stream contributors, plus one where two or more of
// them have it. Other cells 0, NoData cells 0. On the device by dependency counting, as accumulate().
// Tiled: each tile ordered alone (its streams' contributors in other tiles left out); the cells
// downstream of a stream entering a tile, to where it leaves the tile, then ordered again on the host
// in Kahn's order from their contributors' final orders.
PORTACL_API std::vector<int> strahlerOrder(Context& ctx, const DirectionGrid& g, const std::vector<std::uint8_t>& streamCells,
                                           const Tiling& tiling = {});
PORTACL_API std::vector<int> strahlerOrderReference(const DirectionGrid& g, const std::vector<std::uint8_t>& streamCells);

// Watersheds: each cell with data labelled by the outlet its water reaches. With `outlets` (cell
// indices), the cells draining through outlet j get j + 1 and the others 0 (water stops at the first
// outlet it meets); without, every basin: the cells that drain nowhere, off the grid or into NoData
// are the outlets, numbered 1, 2, ... in row-major order. NoData cells get -1. On the device by
// pointer jumping (log2 of the longest flow path launches). Throws for an outlet outside the grid
// and for a cycle, naming the cell. Tiled: each tile's cells labelled with the outlet they reach
// inside it (flow leaving the tile ends there), those tile outlets joined across tiles on the host.
PORTACL_API std::vector<std::int32_t> watersheds(Context& ctx, const DirectionGrid& g, const std::vector<std::size_t>& outlets = {},
                                                 const Tiling& tiling = {});
PORTACL_API std::vector<std::int32_t> watershedsReference(const DirectionGrid& g, const std::vector<std::size_t>& outlets = {});

// The D8 steps with their grids kept on the device from one step to the next, for a DEM that fits in
// one piece (portacl drainage's path): the DEM's heights and NoData flags go up once, each step works
// on what the step before left on the device (the filled heights, the directions), and only the grids
// asked for come back, through pinned host memory (portacl/runtime/staging.hpp). Each result equals
// the step's own function's above, bit for bit; those stay the way to run one step, or a grid in tiles.
// The directions come from the DEM on the device (strictly downhill, flats by a strictly falling
// gradient), so they hold no cycle and the cycle checks of the steps' functions are not repeated.
class PORTACL_API Pipeline {
public:
    // Whether a DEM of this shape runs through the pipeline on this device: no forced tiling, fewer
    // than 2^31 cells, and the grids it keeps beside the largest step's own buffers fit the device.
    static bool fits(const Context& ctx, const io::RasterFrame& frame, Precision precision, const Tiling& tiling = {},
                     bool weighted = false);
    // Checks the DEM (validateDem; float or double) and uploads its heights and NoData flags. `dem`
    // must outlive the pipeline.
    Pipeline(Context& ctx, const io::Raster& dem, Precision precision = Precision::Double);
    ~Pipeline();
    Pipeline(const Pipeline&) = delete;
    Pipeline& operator=(const Pipeline&) = delete;

    // fillDepressions(ctx, dem): the filled heights take the place of the DEM's on the device.
    void fillDepressions();
    // The DEM with the heights the device holds now (the filled surface after fillDepressions()).
    io::Raster heights();
    // d8Directions(ctx, heights), then (optional) resolveFlats(ctx, heights, directions).
    void d8Directions();
    void resolveFlats();
    // The directions the device holds now.
    DirectionGrid directions();
    // accumulate(ctx, directions, opt) (opt.tiling is not used).
    Accumulation accumulate(const AccumulationOptions& opt = {});
    // strahlerOrder(ctx, directions, streamCells).
    std::vector<int> strahlerOrder(const std::vector<std::uint8_t>& streamCells);
    // watersheds(ctx, directions, outlets).
    std::vector<std::int32_t> watersheds(const std::vector<std::size_t>& outlets = {});

private:
    struct State;
    std::unique_ptr<State> s_;
};

// The cells whose accumulation is at least `threshold` (TauDEM's Threshold): 1, other cells with
// data 0, NoData 255.
PORTACL_API std::vector<std::uint8_t> streams(const Accumulation& a, double threshold);

// The stream network as links: a link runs from a stream's source, or from a junction (a stream cell
// with two or more stream contributors), down the stream cells to the next junction (its last cell)
// or to where the stream ends. Links are numbered 1, 2, ... by their first cell in row-major order;
// `downstream` is the link that starts at this link's last cell (0 at an outlet); `order` the
// Strahler order of the link's first cell.
struct StreamLink {
    std::int64_t id = 0, downstream = 0;
    int order = 0;
    std::vector<std::size_t> cells;
};
PORTACL_API std::vector<StreamLink> streamLinks(const DirectionGrid& g, const std::vector<std::uint8_t>& streamCells,
                                                const std::vector<int>& order);

// D∞ (Tarboton 1997, "A new method for the determination of flow directions and upslope areas in
// grid digital elevation models"): each cell's direction is the steepest downward slope over the 8
// triangular facets formed with a cardinal and a diagonal neighbour (distances from the geotransform),
// as an angle in radians counter-clockwise from east in [0, 2π) (TauDEM's convention). Within a facet
// the direction is held to its edges. The first facet of greatest slope wins, in the order (E, NE),
// (N, NE), (N, NW), (W, NW), (W, SW), (S, SW), (S, SE), (E, SE); a facet with a neighbour off the grid
// or without data is skipped; kDinfNoFlow where no facet descends, kDinfNoData without data.
constexpr double kDinfNoFlow = -1;
constexpr double kDinfNoData = -2;
struct PORTACL_API DinfGrid {
    io::RasterFrame frame;
    std::vector<double> angle;  // frame.size() angles as above (float ones widened)
    std::string source;
};
// Tiled: each tile with a one-cell ring of its neighbours' heights.
PORTACL_API DinfGrid dinfDirections(Context& ctx, const io::Raster& dem, Precision precision = Precision::Double,
                                    const Tiling& tiling = {});
PORTACL_API DinfGrid dinfDirectionsReference(const io::Raster& dem, Precision precision = Precision::Double);
// D∞ accumulation: a cell's flow splits between the two neighbours its angle lies between, in
// proportion to the angles (a direction of exactly E, NE, ... sends all to one); flow off the grid or
// into NoData leaves. A cell's value is its own weight (1 without weights) plus the shares of its
// contributors, added in the order E, NE, ..., SE, in opt.precision (always sums: cells are split).
// On the device level by level as accumulate(); the reference in Kahn's order. The two agree to the
// rounding of the shares (the device's division may differ from the host's by an ulp). Throws for
// edgeContamination (not offered for D∞) and for a cycle, naming a cell of it. Tiled (opt.tiling):
// each tile's window holds the tile, a margin of its neighbours' cells computed with it and a
// one-cell ring carrying their latest values in; every tile runs, then again whenever a value on its
// ring that flows into it changed, until none does: the one-piece sums bit for bit (the same shares
// of the same values added in the same order).
PORTACL_API Accumulation dinfAccumulate(Context& ctx, const DinfGrid& g, const AccumulationOptions& opt = {});
PORTACL_API Accumulation dinfAccumulateReference(const DinfGrid& g, const AccumulationOptions& opt = {});

// A picture a person can look at: the DEM's hillshade (Horn's gradient, light from the north-west at
// 45° elevation; a geographic grid's degrees taken as metres at its mean latitude) as RGB, the stream
// cells (streamCells == 1; empty: none) drawn over it in blue, NoData white. Drawn on the host.
PORTACL_API io::Image drainagePicture(const io::Raster& dem, const std::vector<std::uint8_t>& streamCells);

}  // namespace portacl::drainage
