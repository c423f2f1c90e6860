// portacl drainage: D8 directions and flow accumulation of a DEM (or of a pointer grid), streams by
// threshold; every output a raster with the input's geotransform, coordinate system and NoData.
#include <algorithm>
#include <cfloat>
#include <iostream>

#include "command.hpp"
#include "portacl/drainage.hpp"
#include "portacl/io/raster.hpp"
#include "portacl/runtime/error.hpp"
#include "portacl/runtime/output_file.hpp"
#include "portacl/runtime/progress.hpp"

namespace portacl::cli {
namespace {

namespace dr = portacl::drainage;

void checkRasterOutput(const std::string& path, const std::vector<std::string>& inputs, const std::string& option) {
    if (path.empty()) return;
    checkOutputExtension(path, io::rasterOutputExtensions(), option);
    checkOutputPath(path, inputs, option);
}

int runDrainage(const std::vector<std::string>& args) {
    po::options_description desc("portacl drainage options");
    CommonOptions common;
    common.precision = "double";
    common.add(desc);
    std::string dem, pointers, filled, directions, accumulation, streamsPath, encoding = "esri", weightsPath;
    double threshold = 0;
    bool serial = false, contamination = false, excludeSelf = false, fill = false, flats = false;
    desc.add_options()("dem", po::value(&dem), "the DEM (GeoTIFF, ESRI ASCII grid, anything GDAL reads)")(
        "pointers", po::value(&pointers), "start from this D8 direction grid (in --encoding) instead of a DEM")(
        "fill", po::bool_switch(&fill), "fill the DEM's depressions before the directions (Priority-Flood's surface)")(
        "filled", po::value(&filled), "write the filled DEM here (implies --fill)")(
        "flats", po::bool_switch(&flats), "give the cells of flats directions towards lower and away from higher terrain")(
        "directions", po::value(&directions), "write the D8 directions (in --encoding) here")(
        "accumulation", po::value(&accumulation), "write the flow accumulation (cells, or summed weights) here")(
        "streams", po::value(&streamsPath), "write the stream cells (accumulation >= --threshold: 1, else 0) here")(
        "threshold", po::value(&threshold), "the accumulation a stream cell reaches (with --streams)")(
        "encoding", po::value(&encoding), "D8 codes of --pointers and --directions: esri (default), taudem, richdem, whitebox")(
        "weights", po::value(&weightsPath), "accumulate this grid's values instead of cell counts (NoData counts 0)")(
        "edge-contamination", po::bool_switch(&contamination),
        "no value where the contributing area touches the grid's edge or NoData (TauDEM's AreaD8 default)")(
        "exclude-self", po::bool_switch(&excludeSelf), "a cell does not count itself (the water moved in, as the slides)")(
        "serial", po::bool_switch(&serial), "use the serial C++ reference instead of the device");
    po::positional_options_description pos;
    pos.add("dem", 1);
    po::variables_map vm;
    const std::string usage =
        "usage: portacl drainage DEM [--fill] [--filled F] [--flats] [--directions D] [--accumulation A] [--streams S --threshold T]\n"
        "                        [--encoding esri|taudem|richdem|whitebox] [--weights W] [--edge-contamination]\n"
        "       portacl drainage --pointers P [--encoding E] [--accumulation A] [--streams S --threshold T]";
    if (!parseArgs(args, desc, pos, vm, usage, common.help)) return 0;

    // Everything that can be refused is refused before any work.
    if (dem.empty() == pointers.empty())
        throw Error(dem.empty() ? "give a DEM or --pointers P (a direction grid)" : "give either a DEM or --pointers, not both");
    const dr::Encoding enc = dr::parseEncoding(encoding);
    const Precision precision = common.parsedPrecision();
    if (precision == Precision::Mixed) throw Error("--precision takes float or double for drainage");
    if (!filled.empty()) fill = true;
    if (filled.empty() && directions.empty() && accumulation.empty() && streamsPath.empty())
        throw Error("name at least one output: --filled, --directions, --accumulation or --streams");
    if (!pointers.empty() && (!directions.empty() || fill || flats))
        throw Error(std::string(fill || flats ? "--fill, --filled and --flats work" : "--directions writes the directions") +
                    " on a DEM; with --pointers the directions are the input");
    if (!streamsPath.empty() && !vm.count("threshold")) throw Error("--streams needs --threshold T");
    if (vm.count("threshold") && streamsPath.empty()) throw Error("--threshold is for --streams S; name the streams file");
    if (vm.count("threshold") && !(threshold > 0)) throw Error("--threshold must be positive");
    const std::vector<std::string> inputs{dem, pointers, weightsPath};
    checkRasterOutput(filled, inputs, "--filled");
    checkRasterOutput(directions, inputs, "--directions");
    checkRasterOutput(accumulation, inputs, "--accumulation");
    checkRasterOutput(streamsPath, inputs, "--streams");
    checkDistinctOutputs({{"--filled", filled}, {"--directions", directions}, {"--accumulation", accumulation}, {"--streams", streamsPath}});

    const bool wantAcc = !accumulation.empty() || !streamsPath.empty();
    const bool wantDirections = !dem.empty() && (!directions.empty() || wantAcc);
    const int steps = 2 + (fill ? 1 : 0) + (wantDirections ? 1 : 0) + (wantDirections && flats ? 1 : 0) + (wantAcc ? 1 : 0);
    Progress progress("drainage", std::uint64_t(steps), "steps");
    int done = 0;
    io::Raster input = io::readRaster(dem.empty() ? pointers : dem);
    io::Raster weights;
    if (!weightsPath.empty()) {
        weights = io::readRaster(weightsPath);
        if (weights.rows() != input.rows() || weights.cols() != input.cols())
            throw Error(weightsPath + " is " + std::to_string(weights.rows()) + "x" + std::to_string(weights.cols()) +
                        ", the " + (dem.empty() ? "pointer grid " : "DEM ") + std::to_string(input.rows()) + "x" +
                        std::to_string(input.cols()));
        for (std::size_t i = 0; i < weights.size(); ++i) {
            if (weights.isNoData(i)) weights.values[i] = 0;
            else if (!std::isfinite(weights.values[i]))
                throw Error(weightsPath + " has a weight that is not finite at row " + std::to_string(i / weights.cols()) +
                            ", column " + std::to_string(i % weights.cols()));
        }
    }
    dr::DirectionGrid grid;
    if (dem.empty()) grid = dr::decodeDirections(input, enc);
    else dr::validateDem(input);
    progress.update(++done, "read");

    std::unique_ptr<Context> ctx;
    std::string where = "serial reference";
    if (!serial) {
        ctx = std::make_unique<Context>(selectDevice(common.device), common.contextOptions());
        where = ctx->device().label();
    }
    if (fill) {
        input = serial ? dr::fillDepressionsReference(input, precision) : dr::fillDepressions(*ctx, input, precision);
        progress.update(++done, "filled");
    }
    if (wantDirections) {
        grid = serial ? dr::d8DirectionsReference(input, precision) : dr::d8Directions(*ctx, input, precision);
        progress.update(++done, "directions");
        if (flats) {
            grid = serial ? dr::resolveFlatsReference(input, grid, precision) : dr::resolveFlats(*ctx, input, grid, precision);
            progress.update(++done, "flats");
        }
    }
    dr::Accumulation acc;
    if (wantAcc) {
        dr::AccumulationOptions opt;
        opt.includeSelf = !excludeSelf;
        opt.edgeContamination = contamination;
        opt.precision = precision;
        if (!weightsPath.empty()) opt.weights = &weights.values;
        acc = serial ? dr::accumulateReference(grid, opt) : dr::accumulate(*ctx, grid, opt);
        progress.update(++done, "accumulation");
    }

    if (!filled.empty())
        io::writeRaster(filled, input.frame, input.values, input.type, input.hasNoData, input.noData);  // DEM heights: its type holds them
    if (!directions.empty()) {
        const auto e = dr::encodeDirections(grid, enc);
        io::writeRaster(directions, grid.frame, e.codes, e.type, true, e.noData);
    }
    double largest = 0;
    std::size_t streamCells = 0;
    if (wantAcc) {
        std::vector<double> values(acc.valid.size());
        for (std::size_t i = 0; i < values.size(); ++i) {
            values[i] = acc.valid[i] ? acc.value(i) : -1;
            if (acc.valid[i]) largest = std::max(largest, acc.value(i));
        }
        if (!accumulation.empty()) {
            if (acc.weighted()) {
                const double nd = -FLT_MAX;
                for (std::size_t i = 0; i < values.size(); ++i)
                    if (!acc.valid[i]) values[i] = nd;
                io::writeRaster(accumulation, grid.frame, values,
                                precision == Precision::Float ? io::RasterType::Float32 : io::RasterType::Float64, true, nd);
            } else {
                io::writeRaster(accumulation, grid.frame, values,
                                largest < 2147483647.0 ? io::RasterType::Int32 : io::RasterType::Float64, true, -1);
            }
        }
        if (!streamsPath.empty()) {
            const auto s = dr::streams(acc, threshold);
            std::vector<double> v(s.begin(), s.end());
            for (auto x : s) streamCells += x == 1;
            io::writeRaster(streamsPath, grid.frame, v, io::RasterType::Byte, true, 255);
        }
    }
    progress.update(++done, "written");
    progress.finish();
    if (ctx) printProfile(*ctx, common);

    std::size_t withData = 0;
    for (std::size_t i = 0; i < input.size(); ++i) withData += !input.isNoData(i);
    std::cout << "drainage of " << (dem.empty() ? pointers : dem) << " (" << input.rows() << "x" << input.cols() << ", "
              << withData << " cells with data) on " << where << "\n";
    if (wantAcc) std::cout << "largest accumulation " << largest << (acc.weighted() ? "" : " cells") << "\n";
    if (!streamsPath.empty()) std::cout << streamCells << " stream cells at threshold " << threshold << "\n";
    return 0;
}

}  // namespace

PORTACL_COMMAND("drainage", "D8 flow directions, flow accumulation and streams of a DEM", runDrainage);

}  // namespace portacl::cli
