// portacl drainage: D8 directions and flow accumulation of a DEM (or of a pointer grid), streams by
// threshold; every output a raster with the input's geotransform, coordinate system and NoData. A
// folder of DEMs (tiles, each its own DEM) is a batch over the devices.
#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <functional>
#include <iostream>
#include <memory>
#include <set>
#include <sstream>
#include <type_traits>

#include "batch.hpp"
#include "command.hpp"
#include "file_batch.hpp"
#include "portacl/drainage.hpp"
#include "portacl/io/raster.hpp"
#include "portacl/io/vector_lines.hpp"
#include "portacl/runtime/error.hpp"
#include "portacl/runtime/output_file.hpp"
#include "portacl/runtime/progress.hpp"
#include "parallel_cells.hpp"
#include "stage_clock.hpp"

namespace portacl::cli {
namespace {

namespace dr = portacl::drainage;
namespace fs = std::filesystem;

void checkRasterOutput(const std::string& path, const std::vector<std::string>& inputs, const std::string& option) {
    if (path.empty()) return;
    checkOutputExtension(path, io::rasterOutputExtensions(), option);
    checkOutputPath(path, inputs, option);
}

// "X,Y" points in the grid's coordinates as the cells that hold them; one sentence for a point that
// is not a pair of numbers or lies outside the grid.
std::vector<std::size_t> outletCells(const std::vector<std::string>& points, const io::Raster& grid) {
    std::vector<std::size_t> cells;
    const auto& gt = grid.frame.geoTransform;
    for (const auto& p : points) {
        double x = 0, y = 0;
        char extra = 0;
        if (std::sscanf(p.c_str(), "%lf,%lf%c", &x, &y, &extra) != 2)
            throw Error("--outlets takes points X,Y in the grid's coordinates, not '" + p + "'");
        if (gt[2] != 0 || gt[4] != 0) throw Error("--outlets needs a grid without rotation; " + grid.path + " is rotated");
        const double col = std::floor((x - gt[0]) / gt[1]), row = std::floor((y - gt[3]) / gt[5]);
        if (!(col >= 0 && col < grid.cols() && row >= 0 && row < grid.rows()))
            throw Error("the outlet " + p + " lies outside the grid of " + grid.path);
        cells.push_back(std::size_t(row) * std::size_t(grid.cols()) + std::size_t(col));
    }
    return cells;
}

// The weights raster for accumulation ("" for none): the shape of `grid` (a "DEM" or "pointer grid"),
// NoData read as 0, every other value finite.
io::Raster readWeights(const std::string& path, const io::Raster& grid, const std::string& gridKind) {
    io::Raster weights;
    if (path.empty()) return weights;
    weights = io::readRaster(path);
    if (weights.rows() != grid.rows() || weights.cols() != grid.cols())
        throw Error(path + " is " + std::to_string(weights.rows()) + "x" + std::to_string(weights.cols()) + ", the " + gridKind + " " +
                    std::to_string(grid.rows()) + "x" + std::to_string(grid.cols()));
    for (std::size_t i = 0; i < weights.size(); ++i) {
        if (weights.isNoData(i)) weights.values[i] = 0;
        else if (!std::isfinite(weights.values[i]))
            throw Error(path + " has a weight that is not finite at row " + std::to_string(i / weights.cols()) + ", column " +
                        std::to_string(i % weights.cols()));
    }
    return weights;
}

// The device's context (none for --serial) and, in `where`, what the run is on.
std::unique_ptr<Context> openContext(bool serial, const CommonOptions& common, std::string& where) {
    where = "serial reference";
    if (serial) return nullptr;
    auto ctx = std::make_unique<Context>(selectDevice(common.device), common.contextOptions());
    where = ctx->device().label();
    return ctx;
}

// With --profile, each stage of `clock` also shows the device time its kernels and transfers took
// (the profiler's finished events; the queue is drained at each mark).
void timeDevice(StageClock& clock, Context* ctx, const CommonOptions& common) {
    if (!ctx || !common.profile) return;
    clock.setDeviceClock([ctx] {
        ctx->finish();
        double seconds = 0;
        for (const auto& row : ctx->profiler().summary())
            if (row.kind != EventKind::Marker) seconds += row.totalSeconds;
        return seconds;
    });
}

// Fills the DEM's depressions, on the device or (no context: --serial) by Priority-Flood, and says so
// as step `step` of the progress.
void fillDepressionsOf(io::Raster& dem, Context* ctx, Precision precision, Progress& progress, int step, const dr::Tiling& tiling = {}) {
    dem = ctx ? dr::fillDepressions(*ctx, dem, precision, tiling) : dr::fillDepressionsReference(dem, precision);
    progress.update(std::uint64_t(step), "filled");
}

// --method dinf: the DEM (filled if asked), its D∞ angles and their accumulation, every option
// already checked.
int runDinf(const std::string& dem, const std::string& filled, const std::string& directions, const std::string& accumulation,
            const std::string& weightsPath, const std::string& units, bool fill, bool excludeSelf, bool serial, Precision precision,
            const dr::Tiling& tiling, io::RasterCompression compression, const CommonOptions& common) {
    Progress progress("drainage", std::uint64_t(2 + (fill ? 1 : 0) + 1 + (accumulation.empty() ? 0 : 1)), "steps");
    StageClock clock;
    int done = 0;
    io::Raster input = io::readRaster(dem);
    dr::validateDem(input);
    const io::Raster weights = readWeights(weightsPath, input, "DEM");
    clock.mark("read");
    progress.update(++done, "read");
    std::string where;
    const std::unique_ptr<Context> ctx = openContext(serial, common, where);
    clock.mark("open device");
    timeDevice(clock, ctx.get(), common);
    if (fill) {
        fillDepressionsOf(input, ctx.get(), precision, progress, ++done, tiling);
        clock.mark("fill");
    }
    const dr::DinfGrid grid = serial ? dr::dinfDirectionsReference(input, precision) : dr::dinfDirections(*ctx, input, precision, tiling);
    progress.update(++done, "directions");
    clock.mark("directions");
    dr::Accumulation acc;
    if (!accumulation.empty()) {
        dr::AccumulationOptions opt;
        opt.includeSelf = !excludeSelf;
        opt.precision = precision;
        if (!weightsPath.empty()) opt.weights = &weights.values;
        opt.tiling = tiling;
        acc = serial ? dr::dinfAccumulateReference(grid, opt) : dr::dinfAccumulate(*ctx, grid, opt);
        progress.update(++done, "accumulation");
        clock.mark("accumulation");
    }
    const double nd = -FLT_MAX;
    const io::RasterType real = precision == Precision::Float ? io::RasterType::Float32 : io::RasterType::Float64;
    std::vector<io::RasterOutput> rasters;
    if (!filled.empty()) rasters.push_back({filled, &input.frame, input.values, input.type, input.hasNoData, input.noData});
    std::vector<double> angles, sums;
    if (!directions.empty()) {
        angles.resize(grid.angle.size());
        forEachCell(angles.size(), [&](std::size_t i) { angles[i] = grid.angle[i] == dr::kDinfNoData ? nd : grid.angle[i]; });
        rasters.push_back({directions, &grid.frame, angles, real, true, nd});
    }
    double largest = 0;
    if (!accumulation.empty()) {
        const double scale = units == "area" ? grid.frame.cellWidth() * grid.frame.cellHeight() : 1;
        sums.resize(acc.sums.size());
        for (std::size_t i = 0; i < sums.size(); ++i) {
            sums[i] = acc.valid[i] ? acc.sums[i] * scale : nd;
            if (acc.valid[i]) largest = std::max(largest, acc.sums[i]);
        }
        rasters.push_back({accumulation, &grid.frame, sums, units == "area" ? io::RasterType::Float64 : real, true, nd});
    }
    clock.mark("output values");
    io::writeRasters(rasters, compression);
    clock.mark("write rasters");
    progress.update(++done, "written");
    progress.finish();
    if (ctx) printProfile(*ctx, common);
    std::size_t withData = 0, noFlow = 0;
    for (std::size_t i = 0; i < input.size(); ++i) {
        withData += !input.isNoData(i);
        noFlow += grid.angle[i] == dr::kDinfNoFlow;
    }
    clock.mark("count cells");
    if (common.profile) clock.print(std::cerr);
    std::cout << "D-infinity drainage of " << dem << " (" << input.rows() << "x" << input.cols() << ", " << withData
              << " cells with data) on " << where << "\n" << noFlow << " cells without flow\n";
    if (!accumulation.empty()) std::cout << "largest accumulation " << largest << (weightsPath.empty() ? " cells" : "") << "\n";
    return 0;
}

// Everything a D8 run reads and writes, every option already checked (an empty path is not written).
struct D8Job {
    std::string dem, pointers, weightsPath;
    std::string filled, directions, accumulation, streamsPath, order, basins, network, picture;
    std::string units = "cells";
    std::vector<std::string> outletText;
    dr::Encoding enc = dr::Encoding::Esri;
    bool fill = false, flats = false, excludeSelf = false, contamination = false, thresholdGiven = false;
    double threshold = 0;
    Precision precision = Precision::Double;
    dr::Tiling tiling;
    io::RasterCompression compression = io::RasterCompression::Deflate;
};

// What a D8 run computed, kept until its outputs are written.
struct D8State {
    io::Raster input, weights;
    dr::DirectionGrid grid;
    std::vector<std::size_t> outlets;
    dr::Accumulation acc;
    std::vector<int> strahler;
    int highestOrder = 0;
    std::vector<std::int32_t> basinLabels;
    std::int32_t basinCount = 0;
    bool wantAcc = false, wantOrder = false;
};

// One D8 run: reads the grid, computes on the context `open` gives (null: the serial reference; it
// also says in `where` what the run is on), and returns the step that writes every output and gives
// the summary for standard output. `progress` and `clock` (null in a batch) follow the steps.
std::function<std::string()> runD8(const D8Job& job, const std::function<Context*(std::string& where)>& open, Progress* progress,
                                   StageClock* clock) {
    const std::string &dem = job.dem, &pointers = job.pointers, &weightsPath = job.weightsPath, &filled = job.filled,
                      &directions = job.directions, &accumulation = job.accumulation, &streamsPath = job.streamsPath, &order = job.order, &basins = job.basins,
                      &network = job.network, &picture = job.picture;
    const dr::Encoding enc = job.enc;
    const bool fill = job.fill, flats = job.flats, excludeSelf = job.excludeSelf, contamination = job.contamination;
    const double threshold = job.threshold;
    const Precision precision = job.precision;
    const dr::Tiling& tiling = job.tiling;
    const std::vector<std::string>& outletText = job.outletText;
    const bool wantOrder = !order.empty() || !network.empty();
    const bool wantAcc = !accumulation.empty() || !streamsPath.empty() || wantOrder || (!picture.empty() && job.thresholdGiven);
    const bool wantDirections = !dem.empty() && (!directions.empty() || wantAcc || !basins.empty());
    auto st = std::make_shared<D8State>();
    st->wantAcc = wantAcc, st->wantOrder = wantOrder;
    int done = 0;
    auto step = [&](const char* what) {
        ++done;
        if (progress) progress->update(std::uint64_t(done), what);
    };
    auto mark = [&](const std::string& stage) {
        if (clock) clock->mark(stage);
    };
    io::Raster& input = st->input;
    {
        PhaseScope reading(BatchPhase::Read);  // a batch member's time reading (nothing outside a batch)
        input = io::readRaster(dem.empty() ? pointers : dem);
        mark("read " + std::string(dem.empty() ? "pointers" : "DEM"));
        st->weights = readWeights(weightsPath, input, dem.empty() ? "pointer grid" : "DEM");
    }
    const io::Raster& weights = st->weights;
    if (!weightsPath.empty()) mark("read weights");
    dr::DirectionGrid& grid = st->grid;
    if (dem.empty()) grid = dr::decodeDirections(input, enc);
    else dr::validateDem(input);
    st->outlets = outletCells(outletText, input);
    const std::vector<std::size_t>& outlets = st->outlets;
    mark(dem.empty() ? "decode pointers" : "check DEM");
    step("read");

    std::string where;
    Context* ctx = open(where);
    const bool serial = ctx == nullptr;
    mark("open device");
    dr::AccumulationOptions accOpt;
    accOpt.includeSelf = !excludeSelf;
    accOpt.edgeContamination = contamination;
    accOpt.precision = precision;
    if (!weightsPath.empty()) accOpt.weights = &weights.values;
    accOpt.tiling = tiling;
    dr::Accumulation& acc = st->acc;
    std::vector<int>& strahler = st->strahler;
    int& highestOrder = st->highestOrder;
    std::vector<std::int32_t>& basinLabels = st->basinLabels;
    std::int32_t& basinCount = st->basinCount;
    if (ctx && !dem.empty() && dr::Pipeline::fits(*ctx, input.frame, precision, tiling, !weightsPath.empty())) {
        // One piece: the grids stay on the device between the steps; only the outputs come back.
        auto pipe = std::make_unique<dr::Pipeline>(*ctx, input, precision);
        if (fill) {
            pipe->fillDepressions();
            step("filled");
            mark("fill");
        }
        if (wantDirections) {
            pipe->d8Directions();
            step("directions");
            mark("directions");
            if (flats) {
                pipe->resolveFlats();
                step("flats");
                mark("flats");
            }
            if (!directions.empty() || wantOrder) {
                grid = pipe->directions();
                mark("download directions");
            } else {
                grid.frame = input.frame;
                grid.source = input.path;
            }
        }
        if (wantAcc) {
            acc = pipe->accumulate(accOpt);
            step("accumulation");
            mark("accumulation");
        }
        if (wantOrder) {
            strahler = pipe->strahlerOrder(dr::streams(acc, threshold));
            step("Strahler order");
            mark("Strahler order");
        }
        if (!basins.empty()) {
            basinLabels = pipe->watersheds(outlets);
            step("watersheds");
            mark("watersheds");
        }
        if (fill && (!filled.empty() || !picture.empty())) {
            io::Raster surface = pipe->heights();
            pipe.reset();
            input = std::move(surface);
            mark("download filled DEM");
        }
    } else {
        if (fill) {
            input = ctx ? dr::fillDepressions(*ctx, input, precision, tiling) : dr::fillDepressionsReference(input, precision);
            step("filled");
            mark("fill");
        }
        if (wantDirections) {
            grid = serial ? dr::d8DirectionsReference(input, precision) : dr::d8Directions(*ctx, input, precision, tiling);
            step("directions");
            mark("directions");
            if (flats) {
                grid = serial ? dr::resolveFlatsReference(input, grid, precision) : dr::resolveFlats(*ctx, input, grid, precision, tiling);
                step("flats");
                mark("flats");
            }
        }
        if (wantAcc) {
            acc = serial ? dr::accumulateReference(grid, accOpt) : dr::accumulate(*ctx, grid, accOpt);
            step("accumulation");
            mark("accumulation");
        }
        if (wantOrder) {
            const auto s = dr::streams(acc, threshold);
            strahler = serial ? dr::strahlerOrderReference(grid, s) : dr::strahlerOrder(*ctx, grid, s, tiling);
            step("Strahler order");
            mark("Strahler order");
        }
        if (!basins.empty()) {
            basinLabels = serial ? dr::watershedsReference(grid, outlets) : dr::watersheds(*ctx, grid, outlets, tiling);
            step("watersheds");
            mark("watersheds");
        }
    }
    for (auto v : strahler) highestOrder = std::max(highestOrder, v);
    for (auto v : basinLabels) basinCount = std::max(basinCount, v);

    // The outputs, written when the caller commits the run (the first copy of a batch's item to finish).
    return [st, job, where, clock]() -> std::string {
        D8State& s = *st;
        const std::string &dem = job.dem, &pointers = job.pointers, &filled = job.filled, &directions = job.directions,
                          &accumulation = job.accumulation, &streamsPath = job.streamsPath, &order = job.order, &basins = job.basins,
                          &network = job.network, &picture = job.picture, &units = job.units;
        const dr::Encoding enc = job.enc;
        const double threshold = job.threshold;
        const Precision precision = job.precision;
        const io::RasterCompression compression = job.compression;
        const io::Raster& input = s.input;
        const dr::DirectionGrid& grid = s.grid;
        const dr::Accumulation& acc = s.acc;
        const std::vector<int>& strahler = s.strahler;
        const std::vector<std::int32_t>& basinLabels = s.basinLabels;
        const std::vector<std::size_t>& outlets = s.outlets;
        const bool wantAcc = s.wantAcc, wantOrder = s.wantOrder;
        const int highestOrder = s.highestOrder;
        const std::int32_t basinCount = s.basinCount;
        auto mark = [&](const std::string& stage) {
            if (clock) clock->mark(stage);
        };
        std::ostringstream os;
        // Every grid in the type it is written in (no wider copy), then all of them written at once.
        std::vector<io::RasterOutput> rasters;
        auto output = [&](const std::string& path, const io::RasterFrame& frame, io::RasterCells cells, io::RasterType type,
                          bool hasNoData, double noData) {
            if (!path.empty()) rasters.push_back({path, &frame, cells, type, hasNoData, noData});
        };
        output(filled, input.frame, input.values, input.type, input.hasNoData, input.noData);  // DEM heights: its type holds them
        std::vector<std::uint8_t> directionBytes;
        std::vector<std::int16_t> directionShorts;
        if (!directions.empty()) {
            // The encoding's code of each direction byte, looked up.
            const bool taudem = enc == dr::Encoding::TauDem;
            const int noDataCode = taudem ? -32768 : 255;
            int code[256];
            for (int d = 0; d < 256; ++d) code[d] = d == dr::kNoData ? noDataCode : d <= dr::kNoFlow ? dr::encodeDirection(std::uint8_t(d), enc) : noDataCode;
            auto encode = [&](auto& out) {
                out.resize(grid.dir.size());
                forEachCell(out.size(), [&](std::size_t i) { out[i] = static_cast<std::remove_reference_t<decltype(out[0])>>(code[grid.dir[i]]); });
            };
            if (taudem) {
                encode(directionShorts);
                output(directions, grid.frame, directionShorts, io::RasterType::Int16, true, noDataCode);
            } else {
                encode(directionBytes);
                output(directions, grid.frame, directionBytes, io::RasterType::Byte, true, noDataCode);
            }
            mark("encode directions");
        }
        double largest = 0;
        std::size_t streamCells = 0;
        std::vector<std::int32_t> countValues;
        std::vector<float> floatCells;
        std::vector<double> doubleCells;
        std::vector<std::uint8_t> streamBytes, orderBytes;
        if (wantAcc) {
            std::vector<double> largestOf(64, 0.0);
            forCellChunks(acc.valid.size(), [&](std::size_t c, std::size_t begin, std::size_t end) {
                double m = 0;
                for (std::size_t i = begin; i < end; ++i)
                    if (acc.valid[i]) m = std::max(m, acc.value(i));
                largestOf[c] = m;
            });
            largest = *std::max_element(largestOf.begin(), largestOf.end());
            if (!accumulation.empty()) {
                const double realNoData = -FLT_MAX;
                if (units == "area") {
                    // Area: the accumulation times one cell's area (the streams keep the threshold in cells).
                    const double cellArea = grid.frame.cellWidth() * grid.frame.cellHeight();
                    doubleCells.resize(acc.valid.size());
                    forEachCell(doubleCells.size(), [&](std::size_t i) { doubleCells[i] = acc.valid[i] ? acc.value(i) * cellArea : realNoData; });
                    output(accumulation, grid.frame, doubleCells, io::RasterType::Float64, true, realNoData);
                } else if (acc.weighted() && precision == Precision::Float) {
                    floatCells.resize(acc.valid.size());
                    forEachCell(floatCells.size(), [&](std::size_t i) { floatCells[i] = acc.valid[i] ? float(acc.sums[i]) : -FLT_MAX; });
                    output(accumulation, grid.frame, floatCells, io::RasterType::Float32, true, realNoData);
                } else if (acc.weighted() || largest >= 2147483647.0) {
                    doubleCells.resize(acc.valid.size());
                    forEachCell(doubleCells.size(), [&](std::size_t i) {
                        doubleCells[i] = acc.valid[i] ? acc.value(i) : acc.weighted() ? realNoData : -1;
                    });
                    output(accumulation, grid.frame, doubleCells, io::RasterType::Float64, true, acc.weighted() ? realNoData : -1);
                } else {
                    countValues.resize(acc.valid.size());
                    forEachCell(countValues.size(), [&](std::size_t i) { countValues[i] = acc.valid[i] ? std::int32_t(acc.counts[i]) : -1; });
                    output(accumulation, grid.frame, countValues, io::RasterType::Int32, true, -1);
                }
            }
            if (!streamsPath.empty()) {
                // dr::streams' rule, on all cores.
                streamBytes.resize(acc.valid.size());
                forEachCell(streamBytes.size(), [&](std::size_t i) {
                    streamBytes[i] = !acc.valid[i] ? 255 : acc.value(i) >= threshold ? 1 : 0;
                });
                streamCells = countCells(streamBytes.size(), [&](std::size_t i) { return streamBytes[i] == 1; });
                output(streamsPath, grid.frame, streamBytes, io::RasterType::Byte, true, 255);
            }
            mark("accumulation and streams values");
        }
        if (!order.empty()) {
            orderBytes.resize(strahler.size());
            forEachCell(orderBytes.size(), [&](std::size_t i) { orderBytes[i] = grid.dir[i] == dr::kNoData ? 255 : std::uint8_t(strahler[i]); });
            output(order, grid.frame, orderBytes, io::RasterType::Byte, true, 255);
        }
        output(basins, grid.frame, basinLabels, io::RasterType::Int32, true, -1);
        io::writeRasters(rasters, compression);
        mark("write rasters");
        std::size_t linkCount = 0;
        if (!network.empty()) {
            const auto links = dr::streamLinks(grid, dr::streams(acc, threshold), strahler);
            const auto& gt = grid.frame.geoTransform;
            std::vector<io::LineFeature> lines;
            for (const auto& link : links) {
                io::LineFeature f;
                double length = 0;
                for (std::size_t cell : link.cells) {
                    const double r = double(cell / std::size_t(grid.frame.cols)) + 0.5, c = double(cell % std::size_t(grid.frame.cols)) + 0.5;
                    const double x = gt[0] + c * gt[1] + r * gt[2], y = gt[3] + c * gt[4] + r * gt[5];
                    if (!f.points.empty()) length += std::hypot(x - f.points.back().first, y - f.points.back().second);
                    f.points.emplace_back(x, y);
                }
                f.integers = {link.id, link.downstream, link.order, std::int64_t(link.cells.size())};
                f.reals = {length};
                lines.push_back(std::move(f));
            }
            io::writeLines(network, grid.frame.crsWkt, "streams", {"link", "downstream", "strahler", "cells"}, {"length"}, lines);
            linkCount = links.size();
        }
        if (!picture.empty())
            io::writeImage(picture, dr::drainagePicture(input, wantAcc ? dr::streams(acc, threshold) : std::vector<std::uint8_t>{}));
        if (!network.empty() || !picture.empty()) mark("write network and picture");

        const std::size_t withData = countCells(input.size(), [&](std::size_t i) { return !input.isNoData(i); });
        mark("count cells with data");
        os << "drainage of " << (dem.empty() ? pointers : dem) << " (" << input.rows() << "x" << input.cols() << ", "
                  << withData << " cells with data) on " << where << "\n";
        if (wantAcc) os << "largest accumulation " << largest << (acc.weighted() ? "" : " cells") << "\n";
        if (!streamsPath.empty()) os << streamCells << " stream cells at threshold " << threshold << "\n";
        if (wantOrder) os << "highest Strahler order " << highestOrder << "\n";
        if (!network.empty()) os << linkCount << " stream links\n";
        if (!basins.empty()) {
            if (outlets.empty()) os << basinCount << " basins\n";
            else os << "basins of " << outlets.size() << " outlets\n";
        }
        return os.str();
    };
}

// Several DEMs (a folder of them, sorted by name, or the files named), each an item of a batch over
// the devices --device names: every output option names a folder, which gets <the DEM's name>.tif
// (.gpkg for --network, .png for --picture); each DEM's outputs are written when it is done, and its
// summary lines come out in input order.
int runD8Batch(const D8Job& shared, const std::vector<std::string>& named, bool serial, const CommonOptions& common,
               const BatchCliOptions& batch) {
    std::vector<std::string> extensions;
    std::string kinds;
    for (const auto& e : io::rasterOutputExtensions()) {
        extensions.push_back("." + e);
        kinds += (kinds.empty() ? "" : ", ") + extensions.back();
    }
    const std::vector<std::string> inputs = listBatchInputs(named, extensions, "DEM file (" + kinds + ")");
    // Each option's folder, and what it gets for a DEM.
    struct Folder {
        const char* option;
        const std::string* folder;
        std::string D8Job::*path;
        const char* ext;
    };
    const Folder all[] = {{"--filled", &shared.filled, &D8Job::filled, "tif"},           {"--directions", &shared.directions, &D8Job::directions, "tif"},
                          {"--accumulation", &shared.accumulation, &D8Job::accumulation, "tif"}, {"--streams", &shared.streamsPath, &D8Job::streamsPath, "tif"},
                          {"--order", &shared.order, &D8Job::order, "tif"},              {"--watersheds", &shared.basins, &D8Job::basins, "tif"},
                          {"--network", &shared.network, &D8Job::network, "gpkg"},       {"--picture", &shared.picture, &D8Job::picture, "png"}};
    std::vector<std::string> outputs;
    std::set<std::string> seen;
    for (const Folder& f : all) {
        if (f.folder->empty()) continue;
        if (!fs::is_directory(*f.folder))
            throw Error("with several DEMs, " + std::string(f.option) + " names an existing folder for the outputs ('" + *f.folder + "' is none)");
        for (const auto& in : inputs) {
            const std::string out = batchOutputPath(*f.folder, in, f.ext);
            checkOutputPath(out, inputs, f.option);
            if (!seen.insert(fs::weakly_canonical(out).string()).second)
                throw Error("two outputs would both be '" + out + "' (two DEMs of one name, or two options naming one folder); rename one");
            outputs.push_back(out);
        }
    }
    FileBatch fb;
    fb.items = inputs.size();
    fb.itemName = [&](std::size_t i) { return "'" + inputs[i] + "'"; };
    fb.noun = "DEMs";
    fb.precision = shared.precision;
    fb.serial = serial;
    fb.outputs = outputs;
    fb.compute = [&](Context* ctx, std::size_t i) -> std::function<std::string()> {
        D8Job job = shared;
        job.dem = inputs[i];
        for (const Folder& f : all)
            if (!f.folder->empty()) job.*f.path = batchOutputPath(*f.folder, inputs[i], f.ext);
        return runD8(job, [ctx](std::string& where) {
            where = ctx ? ctx->device().label() : "serial reference";
            return ctx;
        }, nullptr, nullptr);
    };
    const auto lines = runFileBatch(fb, common, batch);
    if (lines)
        for (const auto& l : *lines) std::cout << l;
    return 0;
}

int runDrainage(const std::vector<std::string>& args) {
    po::options_description desc("portacl drainage options");
    CommonOptions common;
    common.precision = "double";
    common.add(desc);
    BatchCliOptions batch;
    batch.add(desc);
    std::string order, basins, picture, network, units = "cells", method = "d8";
    std::vector<std::string> outletText, dems;
    std::string dem, pointers, filled, directions, accumulation, streamsPath, encoding = "esri", weightsPath, tileText, compressText = "deflate";
    double threshold = 0;
    bool serial = false, contamination = false, excludeSelf = false, fill = false, flats = false;
    desc.add_options()("dem", po::value(&dems)->composing(),
                       "the DEM (GeoTIFF, ESRI ASCII grid, anything GDAL reads); several, or a folder of them: a batch over the devices, each output option naming a folder")(
        "pointers", po::value(&pointers), "start from this D8 direction grid (in --encoding) instead of a DEM")(
        "fill", po::bool_switch(&fill), "fill the DEM's depressions before the directions (Priority-Flood's surface)")(
        "filled", po::value(&filled), "write the filled DEM here (implies --fill)")(
        "flats", po::bool_switch(&flats), "give the cells of flats directions towards lower and away from higher terrain")(
        "directions", po::value(&directions), "write the D8 directions (in --encoding) here")(
        "accumulation", po::value(&accumulation), "write the flow accumulation (cells, or summed weights) here")(
        "streams", po::value(&streamsPath), "write the stream cells (accumulation >= --threshold: 1, else 0) here")(
        "threshold", po::value(&threshold), "the accumulation a stream cell reaches (with --streams or --order)")(
        "order", po::value(&order), "write the Strahler order of the stream cells here (0 elsewhere)")(
        "watersheds", po::value(&basins), "write each cell's basin here: the number of its outlet")(
        "network", po::value(&network), "write the stream links (--threshold) as lines of a GeoPackage (.gpkg) or a Shapefile (.shp)")(
        "picture", po::value(&picture), "draw the hillshade with the streams (--threshold) over it as a PNG")(
        "outlets", po::value(&outletText)->multitoken(),
        "X,Y ... in the grid's coordinates: basins of these outlets only (numbered 1, 2, ...; 0 elsewhere)")(
        "encoding", po::value(&encoding), "D8 codes of --pointers and --directions: esri (default), taudem, richdem, whitebox")(
        "weights", po::value(&weightsPath), "accumulate this grid's values instead of cell counts (NoData counts 0)")(
        "edge-contamination", po::bool_switch(&contamination),
        "no value where the contributing area touches the grid's edge or NoData (TauDEM's AreaD8 default)")(
        "exclude-self", po::bool_switch(&excludeSelf), "a cell does not count itself (the water moved in, as the slides)")(
        "units", po::value(&units), "--accumulation in cells (default) or area (cells times the cell's area, in the grid's units squared)")(
        "method", po::value(&method), "d8 (default) or dinf: D-infinity angles and accumulation (Tarboton 1997; --filled, --directions, --accumulation)")(
        "tile", po::value(&tileText),
        "N or RxC: process the grid in tiles of that many cells, one at a time on the device, with the one-piece result "
        "(chosen by itself when the grid does not fit the device)")(
        "compress", po::value(&compressText), "how GeoTIFF outputs are compressed: deflate (default), zstd, lzw or none")(
        "serial", po::bool_switch(&serial), "use the serial C++ reference instead of the device");
    po::positional_options_description pos;
    pos.add("dem", -1);
    po::variables_map vm;
    const std::string usage =
        "usage: portacl drainage DEM [--fill] [--filled F] [--flats] [--directions D] [--accumulation A] [--streams S --threshold T]\n"
        "                        [--order O] [--network N.gpkg|N.shp] [--watersheds W [--outlets X,Y ...]] [--picture P.png]\n"
        "                        [--encoding esri|taudem|richdem|whitebox] [--weights W] [--edge-contamination] [--tile N|RxC]\n"
        "       portacl drainage --pointers P [--encoding E] [--accumulation A] [--streams S --threshold T]\n"
        "       portacl drainage DEM --method dinf [--fill] [--filled F] [--directions D] [--accumulation A] [--weights W]";
    if (!parseArgs(args, desc, pos, vm, usage, common.help)) return 0;

    // Several DEMs (or a folder): a batch, each output option a folder.
    const bool batchInputs = dems.size() > 1 || (dems.size() == 1 && fs::is_directory(dems[0]));
    if (dems.size() == 1 && !batchInputs) dem = dems[0];
    if (batchInputs) {
        if (!pointers.empty() || !weightsPath.empty() || !outletText.empty())
            throw Error("--pointers, --weights and --outlets are for one grid; run a batch of DEMs without them");
        if (method != "d8") throw Error("a batch of DEMs runs D8; run --method " + method + " on one DEM at a time");
        dem = "batch";  // stands for the DEMs in the checks below
    }
    // Everything that can be refused is refused before any work.
    if (dem.empty() == pointers.empty())
        throw Error(dem.empty() ? "give a DEM or --pointers P (a direction grid)" : "give either a DEM or --pointers, not both");
    const dr::Encoding enc = dr::parseEncoding(encoding);
    const io::RasterCompression compression = io::parseRasterCompression(compressText);
    const Precision precision = common.parsedPrecision();
    if (precision == Precision::Mixed) throw Error("--precision takes float or double for drainage");
    if (!filled.empty()) fill = true;
    if (filled.empty() && directions.empty() && accumulation.empty() && streamsPath.empty() && order.empty() && basins.empty() &&
        picture.empty() && network.empty())
        throw Error("name at least one output: --filled, --directions, --accumulation, --streams, --order, --network, --watersheds or --picture");
    if (!picture.empty() && dem.empty()) throw Error("--picture draws a DEM's hillshade; give a DEM");
    if (!pointers.empty() && (!directions.empty() || fill || flats))
        throw Error(std::string(fill || flats ? "--fill, --filled and --flats work" : "--directions writes the directions") +
                    " on a DEM; with --pointers the directions are the input");
    if ((!streamsPath.empty() || !order.empty() || !network.empty()) && !vm.count("threshold"))
        throw Error(std::string(!streamsPath.empty() ? "--streams" : !order.empty() ? "--order" : "--network") + " needs --threshold T");
    if (vm.count("threshold") && streamsPath.empty() && order.empty() && picture.empty() && network.empty())
        throw Error("--threshold is for --streams S, --order O, --network N or --picture P; name one of them");
    if (units != "cells" && units != "area") throw Error("--units takes cells or area, not '" + units + "'");
    if (units == "area" && accumulation.empty()) throw Error("--units is for --accumulation A; name the accumulation file");
    if (!outletText.empty() && basins.empty()) throw Error("--outlets is for --watersheds W; name the watersheds file");
    if (vm.count("threshold") && !(threshold > 0)) throw Error("--threshold must be positive");
    if (method != "d8" && method != "dinf") throw Error("--method takes d8 or dinf, not '" + method + "'");
    const bool dinf = method == "dinf";
    const dr::Tiling tiling = tileText.empty() ? dr::Tiling{} : dr::parseTiling(tileText);
    if (!tileText.empty() && serial) throw Error("--tile is for the device; --serial runs the serial reference in one piece");
    if (dinf) {
        const std::pair<bool, const char*> d8Only[] = {
            {!pointers.empty(), "--pointers"}, {flats, "--flats"}, {!streamsPath.empty(), "--streams"}, {!order.empty(), "--order"},
            {!network.empty(), "--network"}, {!basins.empty(), "--watersheds"}, {!picture.empty(), "--picture"},
            {contamination, "--edge-contamination"}, {vm.count("encoding") > 0, "--encoding"}};
        for (const auto& [given, option] : d8Only)
            if (given) throw Error(std::string(option) + " is for D8; --method dinf writes --filled, --directions and --accumulation");
    }
    const std::vector<std::string> inputs{dem, pointers, weightsPath};
    if (!batchInputs) {
        checkRasterOutput(filled, inputs, "--filled");
        checkRasterOutput(directions, inputs, "--directions");
        checkRasterOutput(accumulation, inputs, "--accumulation");
        checkRasterOutput(streamsPath, inputs, "--streams");
        checkRasterOutput(order, inputs, "--order");
        checkRasterOutput(basins, inputs, "--watersheds");
        if (!network.empty()) {
            checkOutputExtension(network, io::lineOutputExtensions(), "--network");
            checkOutputPath(network, inputs, "--network");
        }
        if (!picture.empty()) {
            checkOutputExtension(picture, {"png"}, "--picture");
            checkOutputPath(picture, inputs, "--picture");
        }
        checkDistinctOutputs({{"--network", network}, {"--picture", picture}, {"--order", order}, {"--watersheds", basins}, {"--filled", filled}, {"--directions", directions}, {"--accumulation", accumulation}, {"--streams", streamsPath}});
    }

    if (dinf)
        return runDinf(dem, filled, directions, accumulation, weightsPath, units, fill, excludeSelf, serial, precision, tiling, compression,
                       common);

    D8Job job;
    job.dem = dem, job.pointers = pointers, job.weightsPath = weightsPath;
    job.filled = filled, job.directions = directions, job.accumulation = accumulation, job.streamsPath = streamsPath;
    job.order = order, job.basins = basins, job.network = network, job.picture = picture, job.units = units;
    job.outletText = outletText, job.enc = enc, job.fill = fill, job.flats = flats, job.excludeSelf = excludeSelf;
    job.contamination = contamination, job.thresholdGiven = vm.count("threshold") > 0, job.threshold = threshold;
    job.precision = precision, job.tiling = tiling, job.compression = compression;
    if (batchInputs) return runD8Batch(job, dems, serial, common, batch);

    const bool wantOrder = !order.empty() || !network.empty();
    const bool wantAcc = !accumulation.empty() || !streamsPath.empty() || wantOrder || (!picture.empty() && job.thresholdGiven);
    const bool wantDirections = !dem.empty() && (!directions.empty() || wantAcc || !basins.empty());
    const int steps = 2 + (fill ? 1 : 0) + (wantDirections ? 1 : 0) + (wantDirections && flats ? 1 : 0) + (wantAcc ? 1 : 0) +
                      (wantOrder ? 1 : 0) + (basins.empty() ? 0 : 1);
    Progress progress("drainage", std::uint64_t(steps), "steps");
    StageClock clock;
    std::unique_ptr<Context> ctx;
    const auto write = runD8(job, [&](std::string& where) {
        ctx = openContext(serial, common, where);
        timeDevice(clock, ctx.get(), common);
        return ctx.get();
    }, &progress, &clock);
    const std::string summary = write();
    progress.update(std::uint64_t(steps), "written");
    progress.finish();
    if (ctx) printProfile(*ctx, common);
    if (common.profile) clock.print(std::cerr);
    std::cout << summary;
    return 0;
}

}  // namespace

PORTACL_COMMAND("drainage", "D8 flow directions, flow accumulation and streams of a DEM", runDrainage);

}  // namespace portacl::cli
