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
#include "file_batch.hpp"
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

// The pictures among the inputs a batch takes (the rest are volumes).
const std::vector<std::string> kPictureExtensions = {".png", ".tif", ".tiff", ".bmp", ".pgm"};

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
    std::vector<std::string> extensions = kPictureExtensions;
    extensions.insert(extensions.end(), {".npy", ".h5", ".hdf5", ".nii", ".gz"});
    const std::vector<std::string> inputs = listBatchInputs(q.named, extensions, "image or volume file (.png .tif .bmp .pgm .npy .h5 .nii)");
    std::vector<std::string> outputs;
    for (const auto& in : inputs) outputs.push_back(batchOutputPath(q.outDir, in, q.format));
    checkBatchOutputs(q.outDir, inputs, outputs);
    const Precision s2Precision = q.s2 ? common.parsedPrecision() : Precision::Float;
    FileBatch fb;
    fb.outputs = outputs;
    fb.items = inputs.size();
    fb.itemName = [&](std::size_t i) { return "'" + inputs[i] + "'"; };
    fb.precision = s2Precision;
    fb.serial = q.serial;
    fb.compute = [&](Context* ctx, std::size_t i) -> std::function<std::string()> {
        io::Volume vol;
        {
            const auto turn = hdf5TurnFor(inputs[i]);
            PhaseScope reading(BatchPhase::Read);
            vol = io::readVolume(inputs[i], q.dataset);
        }
        const lineal::PhaseImage img = q.byPhase ? lineal::phaseByLabel(vol, q.value) : lineal::phaseByThreshold(vol, q.value);
        lineal::validate(img, q.opt);
        auto r = std::make_shared<lineal::Result>(ctx ? lineal::linealPath(*ctx, img, q.opt) : lineal::linealPathReference(img, q.opt));
        auto s2map = std::make_shared<std::vector<double>>();
        if (q.s2) *s2map = ctx ? lineal::twoPointProbability(*ctx, img, q.opt, s2Precision) : lineal::twoPointProbabilityReference(img, q.opt);
        const std::string device = ctx ? ctx->device().label() : "serial reference";
        return [&, i, r, s2map, device, onDevice = ctx != nullptr] {
            const auto turn = hdf5TurnFor(outputs[i]);
            if (q.format == "npy") lineal::writeNpy(outputs[i], *r);
            else if (q.format == "csv") lineal::writeCsv(outputs[i], *r);
            else {
                std::map<std::string, lineal::Parameter> params = {{"input", inputs[i]}, {"device", device}};
                params.insert_or_assign(q.byPhase ? "phase" : "threshold", lineal::Parameter(q.value));
                if (q.s2) params.insert_or_assign("s2_precision", lineal::Parameter(onDevice ? precisionName(s2Precision) : "serial (exact sums)"));
                lineal::writeHdf5(outputs[i], *r, lineal::radialProfile(*r, q.binWidth), params, q.s2 ? s2map.get() : nullptr);
            }
            return std::string();
        };
    };
    // A picture's map on a GPU is mostly host work (reading and decoding: 10 of an item's 15 ms for a
    // 1024^2 PNG on an H200), so a batch of pictures takes a member per core, as Voronoi's frames do
    // (8 members 2.8 times the speed of 2 on 16 cores, docs/multi_device.md). Volumes, whose device
    // work and memory grow with their depth, keep batch.membersPerGpu.
    BatchCliOptions members = batch;
    const auto picture = [](const std::string& path) {
        const std::string ext = lowerCase(fs::path(path).extension().string());
        return std::find(kPictureExtensions.begin(), kPictureExtensions.end(), ext) != kPictureExtensions.end();
    };
    if (std::all_of(inputs.begin(), inputs.end(), picture)) members.coreMembersItems = inputs.size();
    runFileBatch(fb, common, members);
    return 0;
}

int runLinealPath(const std::vector<std::string>& args) {
    po::options_description desc("portacl lineal-path options");
    CommonOptions common;
    common.add(desc);
    BatchCliOptions batch;
    batch.membersPerGpu = 2;  // a microstructure on a GPU is mostly host work (reading, writing)
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
        q.format = lowerCase(format);
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
