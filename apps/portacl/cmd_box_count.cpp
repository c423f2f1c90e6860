// portacl box-count: box counts N(s) of a binary volume (its object or surface), the fractal
// dimension fitted over a range of sides with its R² and the local slopes, optionally the mean over
// the grid placements; printed as a table and written as JSON. A folder or list of volumes is a batch
// over the devices (and ranks), one JSON file each.
#include <chrono>
#include <iomanip>
#include <iostream>
#include <memory>
#include <sstream>

#include "batch.hpp"
#include "command.hpp"
#include "json_writer.hpp"
#include "portacl/box_count.hpp"
#include "portacl/io/binary_volume.hpp"
#include "portacl/io/image.hpp"
#include "portacl/io/volume.hpp"
#include "portacl/runtime/error.hpp"
#include "portacl/runtime/output_file.hpp"
#include "portacl/skeleton.hpp"
#include "volume_batch.hpp"
#include "volume_input.hpp"

namespace portacl::cli {
namespace {

std::vector<int> parseSizes(const std::string& text) {
    std::vector<int> out;
    std::stringstream ss(text);
    std::string item;
    while (std::getline(ss, item, ',')) {
        std::size_t used = 0;
        int v = 0;
        try {
            v = std::stoi(item, &used);
        } catch (const std::exception&) {
            used = 0;
        }
        if (used == 0 || used != item.size()) throw Error("--sizes takes box sides as integers separated by commas, not '" + text + "'");
        out.push_back(v);
    }
    if (out.empty()) throw Error("--sizes takes box sides as integers separated by commas");
    return out;
}

void writeJson(std::ostream& os, const boxcount::Result& r, const boxcount::Options& opt, const std::string& input,
               const std::string& of, const std::string& selection, const std::string& where, const std::array<double, 3>& spacing, const std::string& unit) {
    os << std::setprecision(10);
    JsonWriter w(os);
    auto fit = [&](const std::string& name, const boxcount::Fit& f) {
        w.key(name);
        w.beginObject();
        w.field("dimension", f.dimension);
        w.field("r2", f.r2);
        w.field("intercept", f.intercept);
        w.field("fit_min", f.first);
        w.field("fit_max", f.last);
        w.field("points", f.points);
        w.endObject();
    };
    w.beginObject();
    w.field("input", input);
    w.field("object", selection);
    w.field("of", of);
    w.field("count", std::string(opt.count == boxcount::Count::Mixed ? "mixed" : "occupied"));
    w.field("device", where);
    w.key("spacing");  // voxel size (z, y, x) from the file; box sides are in voxels
    w.beginArray();
    for (double d : spacing) w.value(d);
    w.endArray();
    w.field("unit", unit);
    w.key("sizes");
    w.beginArray();
    for (std::size_t i = 0; i < r.sizes.size(); ++i) {
        w.beginObject();
        w.field("side", r.sizes[i]);
        w.field("count", r.counts[i]);
        if (opt.offsetAverage) {
            w.field("offset_mean", r.offsetMean[i]);
            w.field("offset_min", r.offsetMin[i]);
        }
        if (i + 1 < r.sizes.size()) w.field("local_slope", r.localSlopes[i]);
        w.endObject();
    }
    w.endArray();
    fit("fit", r.fit);
    if (opt.offsetAverage) fit("offset_fit", r.offsetFit);
    w.endObject();
    os << "\n";
}

// A folder or list of volumes, each counted on whichever device of the set (or rank of mpirun) is
// free, its JSON written to OUTDIR/<name>.json; one line per volume on standard output, in input order.
int runBoxCountBatch(const VolumeInputOptions& in, const po::variables_map& vm, const std::string& outDir, const boxcount::Options& opt,
                     const std::string& of, bool serial, const CommonOptions& common, const BatchCliOptions& batch) {
    VolumeBatch vb(in, vm, outDir, "json");
    const std::vector<std::string>& inputs = vb.inputs;
    const std::vector<std::string>& outputs = vb.outputs;
    const std::string selection = in.describe(vm);
    FileBatch fb = vb.fileBatch(serial);
    fb.compute = [&](Context* ctx, std::size_t i) -> std::function<std::string()> {
        io::BinaryVolume v = vb.read(i);
        if (of == "surface") v = boxcount::surfaceOf(v);
        boxcount::validate(v, opt);
        if (of == "skeleton") v = ctx ? skeleton::thin(*ctx, v) : skeleton::thinReference(v);
        auto r = std::make_shared<boxcount::Result>(ctx ? boxcount::boxCount(*ctx, v, opt) : boxcount::boxCountReference(v, opt));
        const std::string where = ctx ? ctx->device().label() : "serial reference";
        std::ostringstream line;
        line << std::setprecision(5) << inputs[i] << ": dimension " << r->fit.dimension << " (R² " << r->fit.r2 << ") over sides "
             << r->fit.first << " to " << r->fit.last << " -> " << outputs[i] << "\n";
        return [&, i, r, where, spacing = v.spacing, unit = v.unit, text = line.str()] {
            writeFileAtomically(outputs[i], [&](std::ostream& os) { writeJson(os, *r, opt, inputs[i], of, selection, where, spacing, unit); });
            return text;
        };
    };
    VolumeBatch::run(fb, common, batch);
    return 0;
}

int runBoxCount(const std::vector<std::string>& args) {
    po::options_description desc("portacl box-count options");
    CommonOptions common;
    common.add(desc, "", false);
    BatchCliOptions batch;
    batch.add(desc);
    VolumeInputOptions in;
    in.add(desc);
    std::string json, plot, sizes, of = "object", count = "occupied", outDir;
    int fitMin = 0, fitMax = 0;
    bool offsets = false, serial = false;
    desc.add_options()("json", po::value(&json), "write the counts, the fit range, the dimension and R² as JSON")(
        "plot", po::value(&plot), "write the log-log plot of N(s) with the fitted line(s) as a picture (.png, ...)")(
        "sizes", po::value(&sizes), "box sides in voxels, increasing, comma-separated (default 1,2,4,... up to one box)")(
        "of", po::value(&of), "what is counted: object (default), surface (object voxels with a background face neighbour) or skeleton (portacl skeleton's)")(
        "count", po::value(&count), "occupied (boxes holding object; default) or mixed (boxes holding both phases, as porespy)")(
        "offsets", po::bool_switch(&offsets), "also count the 8 grid placements {0, s/2}^3 and fit their mean")(
        "fit-min", po::value(&fitMin), "smallest side in the fit (default: the smallest)")(
        "fit-max", po::value(&fitMax), "largest side in the fit (default: the largest)")(
        "serial", po::bool_switch(&serial), "use the serial C++ reference instead of the device")(
        "output,o", po::value(&outDir), "a batch's folder: each volume's JSON as OUTDIR/<name>.json");
    po::positional_options_description pos;
    pos.add("input", -1);
    po::variables_map vm;
    const std::string usage =
        "usage: portacl box-count VOLUME [--threshold T | --label L] [--json R.json] [--plot P.png] [--sizes 1,2,4,...]\n"
        "                         [--of object|surface|skeleton] [--count occupied|mixed] [--offsets] [--fit-min S] [--fit-max S]\n"
        "       portacl box-count V1 V2 ... | INDIR -o OUTDIR [options as above] [--device all]   (a batch over the devices)";
    if (!parseArgs(args, desc, pos, vm, usage, common.help)) return 0;
    in.resolve();
    boxcount::Options opt;
    if (!sizes.empty()) opt.sizes = parseSizes(sizes);
    if (of != "object" && of != "surface" && of != "skeleton") throw Error("--of takes object, surface or skeleton, not '" + of + "'");
    if (count != "occupied" && count != "mixed") throw Error("--count takes occupied or mixed, not '" + count + "'");
    opt.count = count == "mixed" ? boxcount::Count::Mixed : boxcount::Count::Occupied;
    opt.offsetAverage = offsets;
    opt.fitMin = fitMin;
    opt.fitMax = fitMax;
    if (in.isBatch()) {
        if (outDir.empty()) throw Error("a batch of volumes needs -o OUTDIR, the folder for the JSON files");
        if (!json.empty() || !plot.empty()) throw Error("--json and --plot are for one volume; a batch writes OUTDIR/<name>.json");
        return runBoxCountBatch(in, vm, outDir, opt, of, serial, common, batch);
    }
    if (!outDir.empty()) throw Error("-o names a batch's folder; for one volume, --json names the file");
    if (ranks()) throw Error("one volume runs in one process; give a folder or several volumes to spread over the ranks of mpirun");
    if (!json.empty()) {
        checkOutputExtension(json, {"json"}, "--json");
        checkOutputPath(json, {in.path}, "--json");
    }
    if (!plot.empty()) {
        checkOutputExtension(plot, io::writableImageExtensions(), "--plot");
        checkOutputPath(plot, {in.path}, "--plot");
    }
    checkDistinctOutputs({{"--json", json}, {"--plot", plot}});
    io::BinaryVolume v = in.read(vm, false);
    if (of == "surface") v = boxcount::surfaceOf(v);
    boxcount::validate(v, opt);

    boxcount::Result r;
    std::string where = "serial reference";
    const auto t0 = std::chrono::steady_clock::now();
    double deviceSeconds = 0;  // first transfer's start to the last command's end
    if (serial) {
        if (of == "skeleton") v = skeleton::thinReference(v);
        r = boxcount::boxCountReference(v, opt);
    } else {
        Context ctx(selectDevice(common.device), common.contextOptions());
        where = ctx.device().label();
        ctx.beginTiming();
        if (of == "skeleton") v = skeleton::thin(ctx, v);
        r = boxcount::boxCount(ctx, v, opt);
        deviceSeconds = ctx.endTiming();
        printProfile(ctx, common);
    }
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (!plot.empty()) boxcount::writePlot(plot, r);
    if (!json.empty())
        writeFileAtomically(json, [&](std::ostream& os) { writeJson(os, r, opt, in.path, of, in.describe(vm), where, v.spacing, v.unit); });

    std::cout << "box counts of the " << of << " (" << in.describe(vm) << ") of " << v.nz << "x" << v.ny << "x" << v.nx
              << ", " << count << " boxes, on " << where << ", in " << seconds << " s";
    if (!serial) std::cout << " (" << deviceSeconds << " s of device time)";
    std::cout << "\n";
    if (const std::string voxel = VolumeInputOptions::voxelSize(v); !voxel.empty()) std::cout << voxel << "; box sides are in voxels\n";
    std::cout << std::setw(8) << "side" << std::setw(14) << "N(s)";
    if (offsets) std::cout << std::setw(14) << "mean 8 grids" << std::setw(12) << "min";
    std::cout << std::setw(14) << "local slope" << "\n";
    for (std::size_t i = 0; i < r.sizes.size(); ++i) {
        std::cout << std::setw(8) << r.sizes[i] << std::setw(14) << r.counts[i];
        if (offsets) std::cout << std::setw(14) << std::setprecision(6) << r.offsetMean[i] << std::setw(12) << r.offsetMin[i];
        if (i + 1 < r.sizes.size()) std::cout << std::setw(14) << std::setprecision(4) << r.localSlopes[i];
        std::cout << "\n";
    }
    std::cout << std::setprecision(5) << "dimension " << r.fit.dimension << " (R² " << r.fit.r2 << ") over sides "
              << r.fit.first << " to " << r.fit.last << " (" << r.fit.points << " sizes)\n";
    if (offsets)
        std::cout << "dimension of the 8-placement mean " << r.offsetFit.dimension << " (R² " << r.offsetFit.r2 << ")\n";
    return 0;
}

}  // namespace

PORTACL_OVER_RANKS("box-count", box_count);
PORTACL_COMMAND("box-count", "box counts and fractal dimension of a 3-D binary volume", runBoxCount);

}  // namespace portacl::cli
