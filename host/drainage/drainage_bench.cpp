// Bench case "drainage": D8 directions and flow accumulation of a synthetic DEM held on the device, a
// bowl draining to its corner cut by 12 radial valleys (z = r (1 + 0.15 sin 12θ)), so that the flow
// paths run across the whole grid and converge; 8192² on GPUs, 1024² on CPU devices, 256² with
// --quick. Depression filling of the bowl roughened with noise, checked equal to Priority-Flood.
// Accumulation by dependency counting (cell counts, and weighted sums in float and double)
// beside the slides' iterative push-with-atomics and pull schemes, whose counts are checked equal to
// it before they are timed; D∞ accumulation of the same bowl; filling, flats, accumulation, Strahler
// order, watersheds and D∞ in 16 tiles beside their one-piece runs. Device time excludes the uploads (the grid is already on the device).
// On CPU devices WhiteboxTools' tools run beside the rows that have one (whitebox_peer.hpp): D8
// pointers, depression filling, D8 and D∞ accumulation of our directions, basins.
#include <climits>
#include <cmath>
#include <cstdio>
#include <algorithm>
#include <functional>
#include <memory>

#include "drainage/whitebox_peer.hpp"
#include "drainage_detail.hpp"
#include "portacl/bench.hpp"
#include "portacl/drainage.hpp"
#include "portacl/runtime/error.hpp"

namespace portacl::drainage {
namespace {

io::Raster valleyBowl(int n) {
    io::Raster dem;
    dem.frame.rows = dem.frame.cols = n;
    dem.frame.geoTransform = {0, 10, 0, 10.0 * n, 0, -10};
    dem.frame.hasGeoTransform = true;
    dem.path = "synthetic DEM";
    dem.values.resize(dem.size());
    for (int r = 0; r < n; ++r)
        for (int c = 0; c < n; ++c) {
            const double radius = std::hypot(double(r), double(c)), angle = std::atan2(double(r), double(c));
            dem.values[std::size_t(r) * n + c] = radius * (1 + 0.15 * std::sin(12 * angle));
        }
    return dem;
}

// The tiled steps (drainage.hpp's Tiling) on 4 x 4 tiles of the rough bowl, each checked equal to the
// one-piece run first; wall time of the whole call (transfers and the host's graphs included), the
// one-piece call's wall time in the note.
void tiledRows(Context& ctx, const io::Raster& rough, const io::Raster& filled, const DirectionGrid& resolved, const std::string& size,
               const BenchOptions& few, std::vector<BenchRecord>& out) {
    const Tiling tiles{(rough.rows() + 3) / 4, (rough.cols() + 3) / 4};
    const std::string shape = std::to_string(tiles.rows) + "x" + std::to_string(tiles.cols);
    auto row = [&](const std::string& name, const std::string& precision, const std::function<void()>& tiled,
                   const std::function<void()>& onePiece, const std::string& what) {
        BenchRecord rec;
        rec.workload = name;
        rec.size = size;
        rec.precision = precision;
        rec.seconds = medianHostSeconds(tiled, few.repeats);
        char note[160];
        std::snprintf(note, sizeof note, "%s in 16 tiles of %s, wall time; one piece %.3f s wall; equal to one piece", what.c_str(),
                      shape.c_str(), medianHostSeconds(onePiece, few.repeats));
        rec.note = note;
        out.push_back(rec);
    };
    if (fillDepressions(ctx, rough, Precision::Float, tiles).values != filled.values)
        throw Error("the bench's tiled depression filling differs from Priority-Flood on " + ctx.device().name);
    row("drainage/tiled-fill", "float", [&] { fillDepressions(ctx, rough, Precision::Float, tiles); },
        [&] { fillDepressions(ctx, rough, Precision::Float); }, "depression filling (Barnes 2016's stages)");
    const DirectionGrid d8 = d8DirectionsReference(filled, Precision::Float);
    if (resolveFlats(ctx, filled, d8, Precision::Float, tiles).dir != resolved.dir)
        throw Error("the bench's tiled flat resolution differs from the serial reference on " + ctx.device().name);
    row("drainage/tiled-flats", "float", [&] { resolveFlats(ctx, filled, d8, Precision::Float, tiles); },
        [&] { resolveFlats(ctx, filled, d8, Precision::Float); }, "flats in windows");
    AccumulationOptions opt;
    const Accumulation one = accumulate(ctx, resolved, opt);
    opt.tiling = tiles;
    if (accumulate(ctx, resolved, opt).counts != one.counts)
        throw Error("the bench's tiled accumulation differs from the one-piece run on " + ctx.device().name);
    row("drainage/tiled-accumulation", "integer", [&] { accumulate(ctx, resolved, opt); },
        [&] { accumulate(ctx, resolved, AccumulationOptions{}); }, "accumulation (Barnes 2017's links)");
    const std::vector<std::uint8_t> stream = streams(one, 100);
    if (strahlerOrder(ctx, resolved, stream, tiles) != strahlerOrder(ctx, resolved, stream))
        throw Error("the bench's tiled Strahler order differs from the one-piece run on " + ctx.device().name);
    row("drainage/tiled-order", "integer", [&] { strahlerOrder(ctx, resolved, stream, tiles); },
        [&] { strahlerOrder(ctx, resolved, stream); }, "Strahler order (threshold 100; entries' paths on the host)");
    if (watersheds(ctx, resolved, {}, tiles) != watersheds(ctx, resolved))
        throw Error("the bench's tiled watersheds differ from the one-piece run on " + ctx.device().name);
    row("drainage/tiled-watersheds", "integer", [&] { watersheds(ctx, resolved, {}, tiles); },
        [&] { watersheds(ctx, resolved); }, "watersheds (tile outlets joined)");
    const DinfGrid angles = dinfDirections(ctx, filled, Precision::Float);
    if (dinfDirections(ctx, filled, Precision::Float, tiles).angle != angles.angle)
        throw Error("the bench's tiled D-infinity directions differ from the one-piece run on " + ctx.device().name);
    row("drainage/tiled-dinf-directions", "float", [&] { dinfDirections(ctx, filled, Precision::Float, tiles); },
        [&] { dinfDirections(ctx, filled, Precision::Float); }, "D-infinity directions");
    AccumulationOptions dinfOnePiece;
    dinfOnePiece.precision = Precision::Float;
    const Accumulation dinfOne = dinfAccumulate(ctx, angles, dinfOnePiece);
    AccumulationOptions dinfOpt = dinfOnePiece;
    dinfOpt.tiling = tiles;
    if (dinfAccumulate(ctx, angles, dinfOpt).sums != dinfOne.sums)
        throw Error("the bench's tiled D-infinity accumulation differs from the one-piece run on " + ctx.device().name);
    row("drainage/tiled-dinf-accumulation", "float", [&] { dinfAccumulate(ctx, angles, dinfOpt); },
        [&] { dinfAccumulate(ctx, angles, dinfOnePiece); },
        "D-infinity accumulation (tiles again until their inflows settle)");
}

std::vector<BenchRecord> run(Context& ctx, const BenchOptions& opts) {
    const int n = opts.quick ? 256 : ctx.device().isGpu ? 8192 : 1024;
    const io::Raster dem = valleyBowl(n);
    const std::size_t cells = dem.size();
    const std::string size = std::to_string(n) + "x" + std::to_string(n);
    std::vector<BenchRecord> out;

    BenchOptions few = opts;  // for the long rows
    few.warmups = 0;
    few.repeats = std::min(opts.repeats, 3);
    const bool peers = !ctx.device().isGpu;
    std::unique_ptr<WhiteboxPeer> whitebox = peers ? std::make_unique<WhiteboxPeer>(peerThreads(ctx), few.repeats) : nullptr;
    io::Raster theirs;

    // Directions (on the device, kept there for the accumulation). WhiteboxTools' pointers (it works
    // in double) are held to the double ones and its time put beside both rows.
    const DirectionGrid grid = d8Directions(ctx, dem, Precision::Float);
    std::string d8Differs;
    if (peers && whitebox->run("d8-pointer", dem.frame, dem.values, io::RasterType::Float64, theirs))
        d8Differs = theirs.values == whiteboxPointers(d8DirectionsReference(dem, Precision::Double)) ? "" : "other pointers";
    cl::Buffer dir = ctx.upload(grid.dir, "bench directions", CL_MEM_READ_ONLY);
    for (Precision p : {Precision::Float, Precision::Double}) {
        if (!runsOn(ctx, opts, p, "drainage/d8-directions", out)) continue;
        std::vector<double> z64(dem.values);
        std::vector<float> z32(dem.values.begin(), dem.values.end());
        cl::Buffer heights = p == Precision::Double ? ctx.upload(z64, "bench heights") : ctx.upload(z32, "bench heights");
        cl::Buffer nodata = ctx.upload(std::vector<std::uint8_t>(cells, 0), "bench NoData mask");
        cl::Buffer d = ctx.buffer(cells, "bench directions out");
        BenchRecord rec;
        rec.workload = "drainage/d8-directions";
        rec.size = size;
        rec.precision = precisionName(p);
        rec.seconds = medianDeviceSeconds(ctx, [&] { detail::directionsOnDevice(ctx, heights, nodata, d, dem.frame, p); }, opts);
        rec.bytes = double(cells) * (p == Precision::Double ? 8 + 2 : 4 + 2);
        rec.note = "steepest descent over 8 neighbours, heights already on the device";
        if (opts.serial) rec.serialSeconds = medianHostSeconds([&] { d8DirectionsReference(dem, p); }, 1);
        if (peers) whitebox->column(rec, d8Differs);
        out.push_back(rec);
    }

    // Depression filling of the same bowl roughened by up to 4 m of noise (depressions everywhere).
    {
        io::Raster rough = dem;
        std::uint32_t state = 12345;
        for (auto& v : rough.values) {
            state = state * 1664525u + 1013904223u;
            v += 4.0 * double(state >> 8) / double(1u << 24);
        }
        std::size_t raised = 0;
        const io::Raster want = fillDepressionsReference(rough, Precision::Float);
        for (std::size_t i = 0; i < cells; ++i) raised += want.values[i] > rough.values[i];
        for (Precision p : {Precision::Float, Precision::Double}) {
            if (!runsOn(ctx, opts, p, "drainage/fill", out)) continue;
            if (fillDepressions(ctx, rough, p).values != fillDepressionsReference(rough, p).values)
                throw Error("the bench's depression filling differs from Priority-Flood on " + ctx.device().name);
            std::vector<double> z64(rough.values);
            std::vector<float> z32(rough.values.begin(), rough.values.end());
            cl::Buffer heights = p == Precision::Double ? ctx.upload(z64, "bench rough heights") : ctx.upload(z32, "bench rough heights");
            cl::Buffer nodata = ctx.upload(std::vector<std::uint8_t>(cells, 0), "bench NoData mask");
            cl::Buffer level = ctx.buffer(cells * (p == Precision::Double ? 8 : 4), "bench levels");
            cl::Buffer changed = ctx.buffer(sizeof(cl_int), "bench levels changed");
            int launches = 0;
            BenchRecord rec;
            rec.workload = "drainage/fill";
            rec.size = size;
            rec.precision = precisionName(p);
            rec.seconds = medianDeviceSeconds(ctx, [&] {
                launches = detail::fillOnDevice(ctx, heights, nodata, level, changed, rough.frame, p);
            }, few);
            rec.bytes = double(cells) * (p == Precision::Double ? 16 : 8) * launches;
            rec.note = "tiled relaxation, " + std::to_string(launches) + " launches; " + std::to_string(raised) +
                       " cells raised; equal to Priority-Flood";
            if (opts.serial) rec.serialSeconds = medianHostSeconds([&] { fillDepressionsReference(rough, p); }, 1);
            const io::RasterType type = p == Precision::Double ? io::RasterType::Float64 : io::RasterType::Float32;
            if (peers && whitebox->run("fill", rough.frame, rough.values, type, theirs)) {
                // WhiteboxTools raises a few cells beside the grid's edges higher than Priority-Flood
                // with every edge cell an outlet does: its time stands while they are few.
                const std::vector<double> ours = fillDepressionsReference(rough, p).values;
                std::size_t other = 0;
                for (std::size_t i = 0; i < cells; ++i) other += theirs.values[i] != ours[i];
                whitebox->column(rec, other * 1000 > cells ? std::to_string(other) + " cells filled otherwise" : "");
                if (other) rec.note += "; WhiteboxTools fills " + std::to_string(other) + " cells otherwise";
            } else if (peers) {
                whitebox->column(rec);
            }
            out.push_back(rec);
        }
        // Flat resolution of the filled surface (its lakes are flats).
        const DirectionGrid d8 = d8DirectionsReference(want, Precision::Float);
        std::size_t flatCells = 0;
        for (auto d : d8.dir) flatCells += d == kNoFlow;
        const DirectionGrid resolved = resolveFlatsReference(want, d8, Precision::Float);
        if (resolveFlats(ctx, want, d8, Precision::Float).dir != resolved.dir)
            throw Error("the bench's flat resolution differs from the serial reference on " + ctx.device().name);
        BenchRecord rec;
        rec.workload = "drainage/flats";
        rec.size = size;
        rec.precision = "float";
        rec.seconds = medianDeviceSeconds(ctx, [&] { resolveFlats(ctx, want, d8, Precision::Float); }, few);
        rec.bytes = double(cells) * 16;
        rec.note = std::to_string(flatCells) + " cells without flow before; transfers included";
        if (opts.serial) rec.serialSeconds = medianHostSeconds([&] { resolveFlatsReference(want, d8, Precision::Float); }, 1);
        if (peers) whitebox->none(rec, "no such tool (its flat fix raises the cells)");
        out.push_back(rec);
        tiledRows(ctx, rough, want, resolved, size, few, out);
    }

    // Accumulation by dependency counting: cell counts, then weighted sums.
    const Accumulation reference = accumulateReference(grid);
    std::uint64_t largest = 0;
    for (auto v : reference.counts) largest = std::max(largest, v);
    cl::Buffer deps = ctx.buffer(cells * 4, "bench upstream counts");
    cl::Buffer acc = ctx.buffer(cells * 8, "bench accumulation");
    cl::Buffer taint = ctx.buffer(cells, "bench contamination");
    cl::Buffer first = ctx.buffer(sizeof(cl_int), "bench first unfinished");
    cl::Buffer frontier = ctx.buffer(cells * 8, "bench frontiers");
    cl::Buffer state = ctx.buffer(4 * sizeof(cl_int), "bench frontier sizes");
    std::vector<double> weights(cells, 0.5);
    for (int variant = 0; variant < 3; ++variant) {
        const bool weighted = variant > 0;
        const Precision p = variant == 2 ? Precision::Double : Precision::Float;
        const std::string name = weighted ? "drainage/accumulation-weighted" : "drainage/accumulation";
        if (weighted && !runsOn(ctx, opts, p, name, out)) continue;
        cl::Buffer w = !weighted ? ctx.buffer(8, "bench no weights")
                       : p == Precision::Double ? ctx.upload(weights, "bench weights")
                                                : ctx.upload(std::vector<float>(cells, 0.5f), "bench weights");
        AccumulationOptions opt;
        opt.precision = p;
        if (weighted) opt.weights = &weights;
        // The device's numbers first: the same as the reference's.
        const Accumulation got = accumulate(ctx, grid, opt);
        const Accumulation want = weighted ? accumulateReference(grid, opt) : reference;
        if (got.counts != want.counts || got.sums != want.sums)
            throw Error("the bench's " + name + " differs from the serial reference on " + ctx.device().name);
        BenchRecord rec;
        rec.workload = name;
        rec.size = size;
        rec.precision = weighted ? precisionName(p) : "integer";
        const cl_int none = INT_MAX;
        int launches = 0;
        rec.seconds = medianDeviceSeconds(ctx, [&] {
            ctx.write(first, &none, sizeof none, "bench reset");
            launches = detail::accumulateOnDevice(ctx, dir, deps, acc, taint, w, first, frontier, state, grid.frame, weighted, p, false);
        }, opts);
        rec.bytes = double(cells) * (1 * 9 + 4 * 2 + 8 + (weighted ? 8 : 0));
        rec.note = "dependency counting level by level, " + std::to_string(launches) + " launches; largest accumulation " +
                   std::to_string(largest) + " cells";
        if (opts.serial) rec.serialSeconds = medianHostSeconds([&] { accumulateReference(grid, opt); }, 1);
        if (peers && weighted) {
            whitebox->none(rec, "no weighted D8 accumulation");
        } else if (peers && whitebox->run("d8-accumulation", grid.frame, whiteboxPointers(grid), io::RasterType::Float64, theirs)) {
            whitebox->column(rec, std::equal(want.counts.begin(), want.counts.end(), theirs.values.begin()) ? "" : "other counts");
        } else if (peers) {
            whitebox->column(rec);
        }
        out.push_back(rec);
    }

    // D∞ (Tarboton 1997) on the same bowl: the angles, then their accumulation level by level (every
    // cell splits its flow between two neighbours), checked against the reference first.
    for (Precision p : {Precision::Float, Precision::Double}) {
        if (!runsOn(ctx, opts, p, "drainage/dinf-accumulation", out)) continue;
        AccumulationOptions opt;
        opt.precision = p;
        const DinfGrid angles = dinfDirectionsReference(dem, p);
        const Accumulation want = dinfAccumulateReference(angles, opt), got = dinfAccumulate(ctx, angles, opt);
        const double tol = p == Precision::Float ? 1e-4 : 1e-11;
        for (std::size_t i = 0; i < cells; ++i)
            if (std::abs(got.sums[i] - want.sums[i]) > tol * std::abs(want.sums[i]))
                throw Error("the bench's D-infinity accumulation differs from the serial reference on " + ctx.device().name);
        std::vector<double> a64(angles.angle);
        std::vector<float> a32(angles.angle.begin(), angles.angle.end());
        cl::Buffer angle = p == Precision::Double ? ctx.upload(a64, "bench angles") : ctx.upload(a32, "bench angles");
        cl::Buffer nodata = ctx.upload(std::vector<std::uint8_t>(cells, 0), "bench NoData mask");
        cl::Buffer sums = ctx.buffer(cells * (p == Precision::Double ? 8 : 4), "bench D-infinity sums");
        cl::Buffer noWeights = ctx.buffer(8, "bench no weights");
        const cl_int none = INT_MAX;
        int launches = 0;
        BenchRecord rec;
        rec.workload = "drainage/dinf-accumulation";
        rec.size = size;
        rec.precision = precisionName(p);
        rec.seconds = medianDeviceSeconds(ctx, [&] {
            ctx.write(first, &none, sizeof none, "bench reset");
            launches = detail::dinfAccumulateOnDevice(ctx, angle, nodata, deps, sums, noWeights, first, frontier, state, dem.frame, false, p);
        }, opts);
        rec.bytes = double(cells) * ((p == Precision::Double ? 8 : 4) * 10 + 9 + 4 * 2);
        rec.note = "D-infinity shares pulled level by level, " + std::to_string(launches) + " launches; within " +
                   (p == Precision::Float ? "1e-4" : "1e-11") + " of the reference";
        if (opts.serial) rec.serialSeconds = medianHostSeconds([&] { dinfAccumulateReference(angles, opt); }, 1);
        // WhiteboxTools sums in double: held to the double sums of the same angles, within 1e-4 relative
        // (the float row's own sums are float's, up to about 1e-3 from them).
        if (peers && whitebox->run("dinf-accumulation", angles.frame, whiteboxAzimuths(angles), io::RasterType::Float64, theirs)) {
            AccumulationOptions exact = opt;
            exact.precision = Precision::Double;
            const std::vector<double> sums = dinfAccumulateReference(angles, exact).sums;
            std::size_t far = 0;
            for (std::size_t i = 0; i < cells; ++i) far += std::abs(theirs.values[i] - sums[i]) > 1e-4 * std::abs(sums[i]);
            whitebox->column(rec, far ? std::to_string(far) + " cells beyond 1e-4" : "");
        } else if (peers) {
            whitebox->column(rec);
        }
        out.push_back(rec);
    }

    // Watersheds of every basin by pointer jumping (here one basin: the corner).
    {
        if (watersheds(ctx, grid) != watershedsReference(grid))
            throw Error("the bench's watersheds differ from the serial reference on " + ctx.device().name);
        BenchRecord rec;
        rec.workload = "drainage/watersheds";
        rec.size = size;
        rec.precision = "integer";
        rec.seconds = medianDeviceSeconds(ctx, [&] { watersheds(ctx, grid); }, few);
        rec.bytes = double(cells) * 9;
        rec.note = "pointer jumping; transfers included";
        if (opts.serial) rec.serialSeconds = medianHostSeconds([&] { watershedsReference(grid); }, 1);
        if (peers && whitebox->run("basins", grid.frame, whiteboxPointers(grid), io::RasterType::Float64, theirs))
            whitebox->column(rec, partitionDifference(watershedsReference(grid), theirs.values));
        else if (peers) whitebox->column(rec);
        out.push_back(rec);
    }

    // The slides' schemes: one launch per step of the longest flow path.
    AccumulationOptions moved;
    moved.includeSelf = false;
    const auto expected = accumulateReference(grid, moved).counts;
    std::vector<cl_ulong> ones(cells, 1);
    cl::Buffer start = ctx.upload(ones, "bench water");
    cl::Buffer water[2] = {ctx.buffer(cells * 8, "bench water a"), ctx.buffer(cells * 8, "bench water b")};
    cl::Buffer total = ctx.buffer(cells * 8, "bench water received");
    cl::Buffer flag = ctx.buffer(sizeof(cl_int), "bench water moved");
    for (Iterative scheme : {Iterative::Push, Iterative::Pull}) {
        const std::string name = scheme == Iterative::Push ? "drainage/iterative-push" : "drainage/iterative-pull";
        int launches = 0;
        std::vector<std::uint64_t> got;
        try {
            got = accumulateIterative(ctx, grid, scheme, &launches);
        } catch (const Error& e) {
            BenchRecord skipped;
            skipped.workload = name;
            skipped.size = size;
            skipped.precision = "integer";
            skipped.note = std::string("not run: ") + e.what();
            out.push_back(skipped);
            continue;
        }
        if (got != expected) throw Error("the bench's " + name + " differs from dependency counting on " + ctx.device().name);
        BenchRecord rec;
        rec.workload = name;
        rec.size = size;
        rec.precision = "integer";
        rec.seconds = medianDeviceSeconds(ctx, [&] {
            ctx.copy(start, water[0], cells * 8, "bench water");
            detail::iterateOnDevice(ctx, dir, water, total, flag, grid.frame, scheme);
        }, few);
        rec.bytes = double(cells) * (1 + 8 * 3) * launches;
        rec.note = "the slides' baseline: " + std::to_string(launches) + " launches, a flag read after each; same counts";
        out.push_back(rec);
    }
    return out;
}

}  // namespace

PORTACL_REGISTER_BENCH("drainage", "D8 directions and flow accumulation of a DEM (exact counts; slides' iterative baselines)", run);

}  // namespace portacl::drainage
