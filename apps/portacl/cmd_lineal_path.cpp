// portacl lineal-path: the lineal path function of one phase of a 2-D image or 3-D volume, written as
// HDF5 (maps, profiles, parameters), CSV (one row per displacement) and a PNG of the 2-D map.
#include <algorithm>
#include <cctype>
#include <chrono>
#include <filesystem>
#include <iostream>
#include <mutex>

#include "batch.hpp"
#include "command.hpp"
#include "portacl/cluster/distributed_batch.hpp"
#include "portacl/io/image.hpp"
#include "portacl/io/volume.hpp"
#include "portacl/lineal_path.hpp"
#include "portacl/lineal_path/output.hpp"
#include "portacl/lineal_path/two_point.hpp"
#include "portacl/runtime/error.hpp"
#include "portacl/runtime/output_file.hpp"

namespace portacl::cli {
namespace {

namespace fs = std::filesystem;

std::string lower(std::string s) {
    for (auto& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return s;
}

// The inputs of a batch: the files named, or every image or volume file of a folder, sorted.
std::vector<std::string> batchInputs(const std::vector<std::string>& named) {
    static const std::vector<std::string> kinds = {".png", ".tif", ".tiff", ".bmp", ".pgm", ".npy", ".h5", ".hdf5", ".nii", ".gz"};
    if (named.size() == 1 && fs::is_directory(named[0])) {
        std::vector<std::string> found;
        for (const auto& e : fs::directory_iterator(named[0]))
            if (e.is_regular_file() && std::find(kinds.begin(), kinds.end(), lower(e.path().extension().string())) != kinds.end())
                found.push_back(e.path().string());
        std::sort(found.begin(), found.end());
        if (found.empty()) throw Error("the folder '" + named[0] + "' holds no image or volume file (.png .tif .bmp .pgm .npy .h5 .nii)");
        return found;
    }
    for (const auto& f : named) {
        if (fs::is_directory(f)) throw Error("'" + f + "' is a folder; give either one folder or a list of files");
        if (!fs::is_regular_file(f)) throw Error("the input '" + f + "' does not exist");
    }
    return named;
}

// The file name of input `in` in the output folder: its name without the extension(s), then `ext`.
std::string batchOutput(const std::string& outDir, const std::string& in, const std::string& ext) {
    std::string stem = fs::path(in).filename().string();
    if (lower(stem).size() > 7 && lower(stem).compare(stem.size() - 7, 7, ".nii.gz") == 0) stem.resize(stem.size() - 7);
    else stem = fs::path(stem).stem().string();
    return (fs::path(outDir) / (stem + "." + ext)).string();
}

struct BatchRequest {
    std::vector<std::string> named;
    std::string outDir, format, dataset;
    bool byPhase = true, s2 = false, serial = false;
    double value = 0, binWidth = 1;
    lineal::Options opt;
};

// Every input's map (and S2) on whichever device of the set is free, or rank of mpirun, each written
// to OUTDIR/<name>.<format> atomically by the process that computed it.
int runLinealPathBatch(const BatchRequest& q, const CommonOptions& common, const BatchCliOptions& batch) {
    if (!fs::is_directory(q.outDir)) throw Error("with several inputs, -o names an existing folder for the outputs ('" + q.outDir + "' is none)");
    if (q.format != "h5" && q.format != "npy" && q.format != "csv") throw Error("--format must be h5, npy or csv, not '" + q.format + "'");
    if (q.s2 && q.format != "h5") throw Error("--s2 writes into HDF5 outputs: use --format h5");
    const std::vector<std::string> inputs = batchInputs(q.named);
    std::vector<std::string> outputs;
    for (const auto& in : inputs) {
        outputs.push_back(batchOutput(q.outDir, in, q.format));
        checkOutputPath(outputs.back(), inputs, "-o");
    }
    for (std::size_t i = 1; i < outputs.size(); ++i)
        for (std::size_t j = 0; j < i; ++j)
            if (outputs[i] == outputs[j]) throw Error("'" + inputs[j] + "' and '" + inputs[i] + "' would both write '" + outputs[i] + "'; rename one");
    const Precision s2Precision = q.s2 ? common.parsedPrecision() : Precision::Float;
    // HDF5 (inputs and outputs) is not thread-safe: files are read and written one at a time.
    std::mutex io;
    auto one = [&](Context* ctx, std::size_t i) -> std::string {
        try {
            io::Volume vol;
            {
                std::lock_guard<std::mutex> lock(io);
                vol = io::readVolume(inputs[i], q.dataset);
            }
            const lineal::PhaseImage img = q.byPhase ? lineal::phaseByLabel(vol, q.value) : lineal::phaseByThreshold(vol, q.value);
            lineal::validate(img, q.opt);
            lineal::Result r = ctx ? lineal::linealPath(*ctx, img, q.opt) : lineal::linealPathReference(img, q.opt);
            std::vector<double> s2map;
            if (q.s2) s2map = ctx ? lineal::twoPointProbability(*ctx, img, q.opt, s2Precision) : lineal::twoPointProbabilityReference(img, q.opt);
            std::lock_guard<std::mutex> lock(io);
            if (q.format == "npy") lineal::writeNpy(outputs[i], r);
            else if (q.format == "csv") lineal::writeCsv(outputs[i], r);
            else {
                std::map<std::string, lineal::Parameter> params = {{"input", inputs[i]}, {"device", ctx ? ctx->device().label() : "serial reference"}};
                params.insert_or_assign(q.byPhase ? "phase" : "threshold", lineal::Parameter(q.value));
                if (q.s2) params.insert_or_assign("s2_precision", lineal::Parameter(ctx ? precisionName(s2Precision) : "serial (exact sums)"));
                lineal::writeHdf5(outputs[i], r, lineal::radialProfile(r, q.binWidth), params, q.s2 ? &s2map : nullptr);
            }
            return "";
        } catch (const ClError&) {
            throw;  // the device's failure: the set retires it and the input goes to another device
        } catch (const Error& e) {
            return "'" + inputs[i] + "': " + e.what();
        }
    };
    std::vector<std::string> failures(inputs.size());
    if (q.serial) {
        if (ranks()) throw Error("--serial runs in one process; run it without mpirun");
        for (std::size_t i = 0; i < inputs.size(); ++i) failures[i] = one(nullptr, i);
    } else {
        auto devices = openDeviceSet(common, batch, s2Precision);
        BatchOptions bo;
        bo.itemName = [&](std::size_t i) { return "'" + inputs[i] + "'"; };
        auto work = [&](Context& ctx, std::size_t b, std::size_t e, std::string* out) {
            for (std::size_t i = b; i < e; ++i) out[i - b] = one(&ctx, i);
        };
        if (cluster::World* world = ranks()) {
            passRankGate();
            cluster::DistributedReport report;
            failures = cluster::runDistributedBatch(*world, *devices, inputs.size(), work, bo, &report);
            if (!world->isRoot()) return 0;
            std::cerr << report.describe();
        } else {
            const BatchReport report = devices->run(inputs.size(), [&](Context& ctx, std::size_t b, std::size_t e) {
                work(ctx, b, e, failures.data() + b);
            }, bo);
            printBatchReport(report, *devices);
        }
        printProfile(*devices, common);
    }
    std::size_t failed = 0;
    std::string first;
    for (const auto& f : failures)
        if (!f.empty() && failed++ == 0) first = f;
    if (failed)
        throw Error(std::to_string(failed) + " of " + std::to_string(inputs.size()) + " inputs failed, the first " + first +
                    " (the other outputs were written)");
    return 0;
}

int runLinealPath(const std::vector<std::string>& args) {
    po::options_description desc("portacl lineal-path options");
    CommonOptions common;
    common.add(desc);
    BatchCliOptions batch;
    batch.add(desc);
    std::vector<std::string> inputs;
    std::string input, dataset, h5, csv, png, format = "h5";
    double phase = 0, threshold = 0, binWidth = 1;
    int maxLength = -1;
    bool periodic = false, serial = false, s2 = false;
    desc.add_options()("input", po::value(&inputs)->composing(), "image or volume (.png .tif .bmp .pgm .npy .h5); several, or a folder, with -o OUTDIR: a batch")(
        "phase", po::value(&phase), "the phase: pixels with this value")(
        "threshold", po::value(&threshold), "the phase: pixels >= this value (grey images)")(
        "max-length,m", po::value(&maxLength), "ML: every displacement with |components| <= ML")(
        "periodic", po::bool_switch(&periodic), "wrap the image (a periodic unit cell)")(
        "dataset", po::value(&dataset), "HDF5 dataset to read (default: the file's only dataset)")(
        "output,o", po::value(&h5), "output: .h5/.hdf5 (L, count, tried, radial and axis/diagonal profiles) or .npy (the L map)")(
        "csv", po::value(&csv), "CSV output: dx,dy[,dz],count,tried,L per displacement")(
        "png", po::value(&png), "PNG picture of the 2-D map (the dz = 0 layer of a 3-D map): L/L(0) on a log colour scale with axes")(
        "bin-width", po::value(&binWidth)->default_value(1.0), "radius bin width of the isotropic L(r)")(
        "s2", po::bool_switch(&s2), "also the two-point probability S2 (FFT; --precision float|double), into -o")(
        "serial", po::bool_switch(&serial), "use the serial C++ reference instead of the device")(
        "format", po::value(&format), "a batch's outputs: h5 (default), npy or csv, one OUTDIR/<input name>.<format> per input");
    po::positional_options_description pos;
    pos.add("input", -1);
    po::variables_map vm;
    const std::string usage =
        "usage: portacl lineal-path IMAGE (--phase V | --threshold T) --max-length ML [--periodic]\n"
        "                           [-o L.h5|L.npy] [--csv L.csv] [--png L.png]\n"
        "       portacl lineal-path IN1 IN2 ... | INDIR (--phase V | --threshold T) --max-length ML -o OUTDIR [--format h5|npy|csv] [--device all]";
    if (!parseArgs(args, desc, pos, vm, usage, common.help)) return 0;
    if (inputs.empty()) throw Error("name the input image or volume");
    const bool isBatch = inputs.size() > 1 || fs::is_directory(inputs[0]) || (!h5.empty() && fs::is_directory(h5));
    if (!isBatch && vm.count("format")) throw Error("--format is for a batch (several inputs, -o OUTDIR); one input takes its format from -o");
    input = inputs[0];
    if (vm.count("phase") == vm.count("threshold")) throw Error("choose the phase with exactly one of --phase and --threshold");
    if (!vm.count("max-length")) throw Error("give the maximum segment length with --max-length");
    if (!(binWidth > 0)) throw Error("the radius bin width must be positive");
    if (isBatch) {
        if (h5.empty()) throw Error("a batch needs -o OUTDIR, the folder for the outputs");
        if (!csv.empty() || !png.empty()) throw Error("--csv and --png name one file; a batch writes OUTDIR/<input name>.<--format> for each input");
        BatchRequest q;
        q.named = inputs;
        q.outDir = h5;
        q.format = lower(format);
        q.dataset = dataset;
        q.byPhase = vm.count("phase") > 0;
        q.value = q.byPhase ? phase : threshold;
        q.s2 = s2;
        q.serial = serial;
        q.binWidth = binWidth;
        q.opt = lineal::Options{maxLength, periodic};
        return runLinealPathBatch(q, common, batch);
    }
    const auto endsWith = [](std::string s, const std::string& e) {
        for (auto& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
        return s.size() >= e.size() && s.compare(s.size() - e.size(), e.size(), e) == 0;
    };
    const bool npy = endsWith(h5, ".npy");  // the L map alone; .h5 and .hdf5: every result
    if (s2 && (h5.empty() || npy)) throw Error("--s2 writes into the HDF5 output: give -o FILE.h5");
    if (s2 && !serial) parsePrecision(common.precision);
    // The outputs are checked before the input is read and the map computed.
    if (!h5.empty()) {
        checkOutputExtension(h5, {"h5", "hdf5", "npy"}, "-o");
        checkOutputPath(h5, {input}, "-o");
    }
    if (!csv.empty()) checkOutputPath(csv, {input}, "--csv");
    if (!png.empty()) {
        checkOutputExtension(png, io::writableImageExtensions(), "--png");
        checkOutputPath(png, {input}, "--png");
    }
    if (ranks()) throw Error("one input runs in one process; give several inputs or a folder to spread over the ranks of mpirun");
    checkDistinctOutputs({{"-o", h5}, {"--csv", csv}, {"--png", png}});

    const io::Volume vol = io::readVolume(input, dataset);
    const lineal::PhaseImage img = vm.count("phase") ? lineal::phaseByLabel(vol, phase) : lineal::phaseByThreshold(vol, threshold);
    const lineal::Options opt{maxLength, periodic};
    lineal::validate(img, opt);

    const auto t0 = std::chrono::steady_clock::now();
    lineal::Result r;
    std::vector<double> s2map;
    std::string where = "serial reference";
    if (serial) {
        r = lineal::linealPathReference(img, opt);
        if (s2) s2map = lineal::twoPointProbabilityReference(img, opt);
    } else {
        Context ctx(selectDevice(common.device), common.contextOptions());
        where = ctx.device().label();
        r = lineal::linealPath(ctx, img, opt);
        if (s2) s2map = lineal::twoPointProbability(ctx, img, opt, common.parsedPrecision());
        printProfile(ctx, common);
    }
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    const auto radial = lineal::radialProfile(r, binWidth);

    std::map<std::string, lineal::Parameter> params = {{"input", input}, {"device", where}};
    params.insert_or_assign(vm.count("phase") ? "phase" : "threshold", lineal::Parameter(vm.count("phase") ? phase : threshold));
    if (s2) params.insert_or_assign("s2_precision", lineal::Parameter(serial ? "serial (exact sums)" : common.precision));
    if (npy) lineal::writeNpy(h5, r);
    else if (!h5.empty()) lineal::writeHdf5(h5, r, radial, params, s2 ? &s2map : nullptr);
    if (!csv.empty()) lineal::writeCsv(csv, r);
    if (!png.empty()) lineal::writePng(png, r);

    std::cout << "lineal path of " << (img.is3d() ? std::to_string(img.nz) + "x" : "") << img.ny << "x" << img.nx
              << (periodic ? " (periodic)" : " (non-periodic)") << ", ML " << maxLength << ": "
              << r.count.size() << " displacements in " << seconds << " s on " << where << "\n"
              << "volume fraction L(0) = " << r.L(0, 0, 0) << "\n";
    return 0;
}

}  // namespace

PORTACL_OVER_RANKS("lineal-path", lineal_path);
PORTACL_COMMAND("lineal-path", "lineal path function L of a phase (2-D/3-D, periodic or not)", runLinealPath);

}  // namespace portacl::cli
