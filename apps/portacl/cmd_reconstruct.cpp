// portacl reconstruct: a periodic two-phase image whose lineal path function matches a target (from
// an image or a `portacl lineal-path -o` file), by simulated annealing over pixel swaps.
#include <chrono>
#include <cmath>
#include <iostream>
#include <memory>
#include <mutex>

#include "batch.hpp"
#include "command.hpp"
#include "file_batch.hpp"
#include "portacl/cluster/distributed_batch.hpp"
#include "portacl/io/image.hpp"
#include "portacl/io/volume.hpp"
#include "portacl/lineal_path/output.hpp"
#include "portacl/lineal_path/reconstruct.hpp"
#include "portacl/runtime/error.hpp"
#include "portacl/runtime/output_file.hpp"

namespace portacl::cli {
namespace {

std::string extensionOf(const std::string& p) {
    const auto dot = p.find_last_of('.');
    return dot == std::string::npos ? "" : p.substr(dot + 1);
}

// Run k (from 1) of an ensemble of n: "out.png" -> "out.<k>.png" (as Voronoi's frames); one run keeps the name.
std::string memberPath(const std::string& path, int k, int n) {
    if (n == 1 || path.empty() || isSpecialOutput(path)) return path;
    const auto dot = path.find_last_of('.');
    const auto slash = path.find_last_of('/');
    const std::string tag = "." + std::to_string(k);
    if (dot == std::string::npos || (slash != std::string::npos && dot < slash)) return path + tag;
    return path.substr(0, dot) + tag + path.substr(dot);
}

void writeResultImage(const std::string& path, const lineal::PhaseImage& img) {
    const std::string ext = extensionOf(path);
    if (ext == "npy") {
        io::Volume v;
        v.nz = img.nz;
        v.ny = img.ny;
        v.nx = img.nx;
        v.data.assign(img.mask.begin(), img.mask.end());
        io::writeNpyU8(path, v);
        return;
    }
    if (img.is3d()) throw Error("a 3-D result can only be written as .npy, not ." + ext);
    io::Image out = io::makeImage(img.nx, img.ny, 1, io::PixelType::U8);
    for (std::size_t i = 0; i < img.size(); ++i) out.data[i] = img.mask[i] ? 255 : 0;
    io::writeImage(path, out);
}

int runReconstruct(const std::vector<std::string>& args) {
    po::options_description desc("portacl reconstruct options");
    CommonOptions common;
    common.add(desc);
    BatchCliOptions batch;
    batch.add(desc);
    int ensemble = 1;
    std::string input, dataset, targetFile, output, history, descriptors, checkpoint, resume, size;
    double phase = 0, threshold = 0, s2Weight = 0;
    int maxLength = -1;
    bool unbiased = false, serial = false;
    lineal::AnnealOptions opt;
    desc.add_options()("input", po::value(&input), "target image or volume (its phase is matched)")(
        "phase", po::value(&phase), "the phase of the target image: pixels with this value")(
        "threshold", po::value(&threshold), "the phase of the target image: pixels >= this value")(
        "dataset", po::value(&dataset), "HDF5 dataset of the target image")(
        "max-length,m", po::value(&maxLength), "ML of the matched lineal path function")(
        "target", po::value(&targetFile), "a descriptor file of `portacl lineal-path -o` (periodic) instead of an image")(
        "s2-weight", po::value(&s2Weight)->default_value(0.0), "also match S2 with this weight (0: L only)")(
        "size", po::value(&size), "cell to reconstruct, NYxNX or NZxNYxNX (default: the target's)")(
        "steps", po::value(&opt.steps)->default_value(opt.steps), "step budget (candidate swaps)")(
        "tmax", po::value(&opt.tMax)->default_value(opt.tMax), "start temperature of each cooling cycle")(
        "tmin", po::value(&opt.tMin)->default_value(opt.tMin), "end temperature")(
        "reheats", po::value(&opt.reheats)->default_value(0), "extra cooling cycles from Tmax")(
        "seed", po::value(&opt.seed)->default_value(1), "random seed (the chain is reproducible)")(
        "ensemble", po::value(&ensemble)->default_value(1), "K independent runs with seeds S, S+1, ... S+K-1 over every device --device names (and the ranks of mpirun); -o OUT.png gives OUT.1.png ... OUT.K.png")(
        "unbiased", po::bool_switch(&unbiased), "choose swap pixels uniformly, not on phase boundaries")(
        "batch", po::value(&opt.maxBatch)->default_value(256), "candidate swaps per device evaluation, at most")(
        "checkpoint", po::value(&checkpoint), "checkpoint file, rewritten every --checkpoint-every steps")(
        "checkpoint-every", po::value(&opt.checkpointEvery)->default_value(10000), "steps between checkpoints")(
        "resume", po::value(&resume), "continue from this checkpoint (same target)")(
        "output,o", po::value(&output), "the reconstructed image (.png .tif .bmp for 2-D, .npy)")(
        "history", po::value(&history), "error history CSV: step,temperature,error,accepted")(
        "descriptors", po::value(&descriptors), "final lineal path of the result, HDF5")(
        "serial", po::bool_switch(&serial), "evaluate swaps with the serial C++ reference");
    po::positional_options_description pos;
    pos.add("input", 1);
    po::variables_map vm;
    const std::string usage =
        "usage: portacl reconstruct (IMAGE (--phase V | --threshold T) --max-length ML | --target L.h5)\n"
        "                           -o RESULT [--steps N] [--tmax T] [--tmin T] [--reheats R] [--seed S]\n"
        "                           [--history H.csv] [--descriptors D.h5] [--checkpoint C] [--resume C]";
    if (!parseArgs(args, desc, pos, vm, usage, common.help)) return 0;
    opt.biased = !unbiased;
    lineal::validate(opt);
    if (output.empty()) throw Error("name the output image with -o");
    if (input.empty() == targetFile.empty()) throw Error("give the target either as an image or with --target, not both");
    const Precision precision = common.parsedPrecision();
    if (ensemble < 1) throw Error("--ensemble must be at least 1");
    if (ensemble > 1 && (!checkpoint.empty() || !resume.empty()))
        throw Error("an ensemble runs from fresh starts: --checkpoint and --resume are for one run");
    if (ensemble == 1 && ranks()) throw Error("one run takes one process; give --ensemble K to spread K runs over the ranks of mpirun");
    if (ensemble > 1 && serial && ranks()) throw Error("--serial runs in one process; run it without mpirun");
    // Every output is checked before the target is read and the annealing starts.
    std::vector<std::string> resultExtensions = io::writableImageExtensions();
    resultExtensions.insert(resultExtensions.begin(), "npy");
    checkOutputExtension(output, resultExtensions, "-o");
    const std::vector<std::string> inputs = {input, targetFile, resume};
    if (!descriptors.empty()) checkOutputExtension(descriptors, {"h5", "hdf5"}, "--descriptors");
    for (int k = 1; k <= ensemble; ++k) {
        checkOutputPath(memberPath(output, k, ensemble), inputs, "-o");
        if (!history.empty()) checkOutputPath(memberPath(history, k, ensemble), inputs, "--history");
        if (!descriptors.empty()) checkOutputPath(memberPath(descriptors, k, ensemble), inputs, "--descriptors");
    }
    if (!checkpoint.empty()) checkOutputPath(checkpoint, {input, targetFile}, "--checkpoint");  // may be the --resume file
    checkDistinctOutputs({{"-o", output}, {"--history", history}, {"--descriptors", descriptors}, {"--checkpoint", checkpoint}});

    // One device for one run; an ensemble's set (--device all, pocl*2, ...) computes the target on its first.
    std::unique_ptr<DeviceSet> devices;
    if (!serial || !input.empty()) devices = ensemble > 1 ? openDeviceSet(common, batch, precision) : std::make_unique<DeviceSet>(std::vector<DeviceInfo>{selectDevice(common.device)}, common.contextOptions());
    Context* ctx = devices ? &devices->context(0) : nullptr;
    lineal::Target t;
    if (!input.empty()) {
        if (vm.count("phase") == vm.count("threshold")) throw Error("choose the phase with exactly one of --phase and --threshold");
        if (maxLength < 1) throw Error("give the maximum segment length with --max-length (at least 1)");
        const io::Volume vol = io::readVolume(input, dataset);
        const auto img = vm.count("phase") ? lineal::phaseByLabel(vol, phase) : lineal::phaseByThreshold(vol, threshold);
        lineal::validate(img, {maxLength, true});
        t = lineal::targetFromImage(*ctx, img, maxLength, s2Weight);
    } else {
        t = lineal::targetFromFile(targetFile, s2Weight);
    }
    if (s2Weight < 0) throw Error("the S2 weight must be zero or positive");
    if (!size.empty()) {
        std::vector<int> d;
        std::size_t at = 0;
        while (at <= size.size()) {
            const auto x = size.find('x', at);
            d.push_back(std::atoi(size.substr(at, x == std::string::npos ? std::string::npos : x - at).c_str()));
            if (x == std::string::npos) break;
            at = x + 1;
        }
        if ((d.size() != 2 && d.size() != 3) || *std::min_element(d.begin(), d.end()) < 1)
            throw Error("--size must be NYxNX or NZxNYxNX, got " + size);
        if ((d.size() == 3) != (t.nz > 1)) throw Error("--size must have the target's dimension");
        const double fraction = t.L[t.L.size() / 2];
        t.nz = d.size() == 3 ? d[0] : 1;
        t.ny = d[d.size() - 2];
        t.nx = d[d.size() - 1];
        t.phasePixels = std::uint64_t(std::llround(fraction * double(t.nz) * t.ny * t.nx));
        const int smallest = t.nz > 1 ? std::min({t.nz, t.ny, t.nx}) : std::min(t.ny, t.nx);
        if (t.maxLength >= smallest) throw Error("the cell " + size + " is too small for ML " + std::to_string(t.maxLength));
        if (t.phasePixels == 0) throw Error("the cell " + size + " is too small to hold the target's phase fraction");
    }

    if (t.nz > 1 && extensionOf(output) != "npy" && !isSpecialOutput(output))
        throw Error("a 3-D result can only be written as .npy, not " + output);

    if (ensemble > 1) {
        // Each run from its own seed on whichever device (or rank) is free, its files written atomically
        // where it ran; the HDF5 descriptors one at a time (the HDF5 library is not thread-safe).
        opt.checkpointEvery = 0;
        FileBatch fb;
        fb.items = static_cast<std::size_t>(ensemble);
        fb.itemName = [&](std::size_t i) { return "run " + std::to_string(i + 1) + " (seed " + std::to_string(opt.seed + i) + ")"; };
        fb.noun = "runs";
        fb.precision = precision;
        fb.serial = serial;
        fb.devices = devices.get();
        fb.compute = [&](Context* on, std::size_t i) -> std::function<std::string()> {
            const int k = static_cast<int>(i) + 1;
            lineal::AnnealOptions o = opt;
            o.seed = opt.seed + i;
            auto st = std::make_shared<lineal::AnnealState>();
            st->image = lineal::randomStart(t, o.seed);
            auto ev = on ? lineal::makeDeviceEvaluator(*on, t, st->image, precision) : lineal::makeReferenceEvaluator(t, st->image);
            lineal::anneal(*ev, t, o, *st);
            return [&, k, o, st] {
                writeResultImage(memberPath(output, k, ensemble), st->image);
                if (!history.empty())
                    writeFileAtomically(memberPath(history, k, ensemble), [&](std::ostream& os) {
                        os << "step,temperature,error,accepted\n";
                        os.precision(17);
                        for (const auto& r : st->history) os << r.step << ',' << r.temperature << ',' << r.error << ',' << r.accepted << '\n';
                    });
                if (!descriptors.empty()) {
                    const auto r = lineal::linealPathReference(st->image, {t.maxLength, true});
                    const auto turn = hdf5TurnFor(memberPath(descriptors, k, ensemble));
                    lineal::writeHdf5(memberPath(descriptors, k, ensemble), r, lineal::radialProfile(r),
                                      {{"target", t.fingerprint()}, {"error", st->error}, {"seed", static_cast<std::int64_t>(o.seed)}});
                }
                char line[200];
                std::snprintf(line, sizeof line, "run %d seed %llu: %llu steps, %llu accepted, error %.9g\n", k,
                              static_cast<unsigned long long>(o.seed), static_cast<unsigned long long>(st->step),
                              static_cast<unsigned long long>(st->accepted), st->error);
                return std::string(line);
            };
        };
        const auto t0 = std::chrono::steady_clock::now();
        const auto done = runFileBatch(fb, common, batch);
        if (!done) return 0;  // rank 0 reports
        const std::vector<std::string>& lines = *done;
        const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        for (const auto& l : lines) std::cout << l;
        std::cout << "ensemble of " << ensemble << " runs in " << seconds << " s\n";
        return 0;
    }

    lineal::AnnealState st;
    if (!resume.empty()) {
        st = lineal::readCheckpoint(resume, t, opt);
        if (vm["steps"].defaulted() == false) opt.steps = vm["steps"].as<std::uint64_t>();
        if (checkpoint.empty()) checkpoint = resume;
    } else {
        st.image = lineal::randomStart(t, opt.seed);
    }
    opt.checkpointPath = checkpoint;
    if (checkpoint.empty()) opt.checkpointEvery = 0;

    auto ev = serial ? lineal::makeReferenceEvaluator(t, st.image) : lineal::makeDeviceEvaluator(*ctx, t, st.image, precision);
    const std::uint64_t startStep = st.step;
    const auto t0 = std::chrono::steady_clock::now();
    lineal::anneal(*ev, t, opt, st);
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (!checkpoint.empty()) lineal::writeCheckpoint(checkpoint, t, opt, st);

    writeResultImage(output, st.image);
    if (!history.empty())
        writeFileAtomically(history, [&](std::ostream& os) {
            os << "step,temperature,error,accepted\n";
            os.precision(17);
            for (const auto& r : st.history) os << r.step << ',' << r.temperature << ',' << r.error << ',' << r.accepted << '\n';
        });
    if (!descriptors.empty()) {
        const auto r = lineal::linealPathReference(st.image, {t.maxLength, true});
        lineal::writeHdf5(descriptors, r, lineal::radialProfile(r), {{"target", t.fingerprint()}, {"error", st.error}});
    }
    const double steps = double(st.step - startStep);
    std::cout << "reconstructed " << (t.nz > 1 ? std::to_string(t.nz) + "x" : "") << t.ny << "x" << t.nx << " against L with ML "
              << t.maxLength << ": " << st.step << " steps, " << st.accepted << " accepted, error " << st.error << ", "
              << (seconds > 0 ? steps / seconds : 0.0) << " steps/s\n";
    if (ctx) printProfile(*ctx, common);
    return 0;
}

}  // namespace

PORTACL_OVER_RANKS("reconstruct", reconstruct);
PORTACL_COMMAND("reconstruct", "periodic two-phase image matching a target lineal path (simulated annealing)", runReconstruct);

}  // namespace portacl::cli
