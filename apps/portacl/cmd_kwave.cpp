// portacl kwave (also installed as kspaceFirstOrder-OpenCL): k-Wave's C++ solver command line on any
// OpenCL device. Reads a k-Wave input file, runs the simulation, writes k-Wave's output file.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <iomanip>
#include <iostream>
#include <sstream>

#include "batch.hpp"
#include "command.hpp"
#include "portacl/kwave.hpp"
#include "portacl/kwave/run.hpp"
#if PORTACL_WITH_MPI
#include "portacl/kwave/distributed.hpp"
#endif
#include "portacl/runtime/cpu_runtime_threads.hpp"
#include "portacl/runtime/error.hpp"
#include "portacl/runtime/output_file.hpp"
#include "portacl/version.hpp"

namespace portacl::cli {
namespace {

using Clock = std::chrono::steady_clock;

double since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

std::string clockIn(double seconds) {
    const std::time_t when = std::time(nullptr) + static_cast<std::time_t>(seconds);
    char buf[32];
    std::strftime(buf, sizeof buf, "%d/%m/%y %H:%M:%S", std::localtime(&when));
    return buf;
}

// The device for -g N or the default "auto": the N-th GPU, else the first; a machine without a GPU
// runs on its CPU device, as auto does, saying so once (k-wave-python sends -g whenever a device
// number is set). Any other --device spec goes to the general selection.
DeviceInfo kwaveDevice(const std::string& spec, int gpu, bool talk) {
    if (gpu < 0 && spec != "auto") return selectDevice(spec);
    const std::vector<DeviceInfo> all = listDevices();
    std::vector<DeviceInfo> gpus;
    for (const auto& d : all)
        if (d.isGpu) gpus.push_back(d);
    if (!gpus.empty()) {
        const std::size_t n = gpu < 0 ? 0 : static_cast<std::size_t>(gpu);
        if (n >= gpus.size())
            throw Error("-g " + std::to_string(gpu) + " asks for a GPU that does not exist (" + std::to_string(gpus.size()) +
                        " found, numbered from 0)");
        return gpus[n];
    }
    if (all.empty()) throw Error("no OpenCL device found (is an OpenCL driver such as PoCL installed?)");
    auto cpu = std::find_if(all.begin(), all.end(), [](const DeviceInfo& d) { return d.isCpu; });
    const DeviceInfo chosen = cpu != all.end() ? *cpu : all.front();
    if (talk)
        std::cout << "No GPU found" << (gpu >= 0 ? " for -g " + std::to_string(gpu) : std::string()) << "; running on "
                  << chosen.label() << "\n";
    return chosen;
}

#if PORTACL_WITH_MPI
// Under mpirun each rank takes a device of `spec` by its rank on the host: the GPUs (from -g N on),
// else the devices the spec selects, in turn; ranks share a device when there are fewer.
DeviceInfo rankDevice(const std::string& spec, int gpu, int localRank) {
    if (gpu >= 0 || spec == "auto") {
        std::vector<DeviceInfo> gpus;
        for (const auto& d : listDevices())
            if (d.isGpu) gpus.push_back(d);
        if (!gpus.empty()) return gpus[(static_cast<std::size_t>(std::max(gpu, 0)) + static_cast<std::size_t>(localRank)) % gpus.size()];
        return kwaveDevice(spec, gpu, false);
    }
    const std::vector<DeviceInfo> all = selectDevices(spec);
    return all[static_cast<std::size_t>(localRank) % all.size()];
}
#endif

int runKwaveOn(const std::vector<std::string>& args, bool distributed, bool& collective);

// Under mpirun with several ranks, every rank runs the command. Refusals every rank meets alike
// (options, the input, a grid the ranks cannot hold) are printed once, by rank 0, and end every rank
// with status 1; an error of one rank once the ranks work together is printed with its rank and
// ends them all (the others would wait for it forever).
int runKwave(const std::vector<std::string>& args) {
    bool collective = false;
#if PORTACL_WITH_MPI
    namespace dist = kwave::distributed;
    const bool distributed = dist::launchedByMpi() && dist::ranks() > 1;
    if (!distributed) return runKwaveOn(args, false, collective);
    try {
        return runKwaveOn(args, true, collective);
    } catch (const dist::EveryRankError&) {
        if (dist::rank() == 0) throw;
        return 1;
    } catch (const std::exception& e) {
        if (!collective) {
            if (dist::rank() == 0) throw;
            return 1;
        }
        std::cerr << "portacl kwave (rank " << dist::rank() << " of " << dist::ranks() << "): " << e.what() << "\n";
        dist::abortAll(1);
    }
#else
    return runKwaveOn(args, false, collective);
#endif
}

// A distributed run's transposes: the host's time in them (waiting for the device's packed blocks,
// with the device work queued before them, and MPI), MPI's part, and the traffic through host memory.
// With the local Fourier basis decomposition, the overlap exchanges in their place.
std::string transposeLines(const kwave::RunSummary& run, bool localBasis) {
    const std::size_t steps = std::max<std::size_t>(run.steps(), 1);
    auto share = [&](double s) { return std::to_string(static_cast<int>(100.0 * s / std::max(run.simulationSeconds, 1e-9) + 0.5)) + " %"; };
    std::ostringstream os;
    if (localBasis) {
        os << std::fixed << std::setprecision(3) << "Overlap exchanges: " << run.transposeSeconds << " s on the slowest rank, "
           << share(run.transposeSeconds) << " of the simulation time (waiting for the device's planes, MPI)\n"
           << "  MPI:             " << run.exchangeSeconds << " s, " << share(run.exchangeSeconds) << "; " << run.transposes / steps
           << " fields and " << (run.transposeHostBytes / steps) / 1000000 << " MB through host memory per step, through "
           << run.exchangeMethod << "\n";
        if (run.deviceWaitSeconds >= 0)
            os << "  Device waiting:  " << run.deviceWaitSeconds << " s, " << share(run.deviceWaitSeconds)
               << " (for the planes written back, beyond the work beside their transfers)\n";
        return os.str();
    }
    os << std::fixed << std::setprecision(3) << "Transposes:        " << run.transposeSeconds << " s on the slowest rank, "
       << share(run.transposeSeconds) << " of the simulation time (waiting for the device's blocks, MPI)\n"
       << "  MPI all-to-all:  " << run.exchangeSeconds << " s, " << share(run.exchangeSeconds) << "; " << run.transposes / steps
       << " transposes and " << (run.transposeHostBytes / steps) / 1000000 << " MB through host memory per step, through "
       << run.exchangeMethod << "\n";
    return os.str();
}

int runKwaveOn(const std::vector<std::string>& args, bool distributed, bool& collective) {
    po::options_description desc("portacl kwave (kspaceFirstOrder-OpenCL) options");
    std::string input, output, checkpointFile, device = defaultDeviceSpec(), fftName = "auto", precisionText = "single", storageText = "full",
                decomposition = "slabs";
    std::size_t overlap = 0;
    float progressPercent = 5;
    int compression = 0, verbose = 1, threads = 0, gpu = -1;
    std::size_t benchmarkSteps = 0, checkpointSteps = 0, startIndex = 1;
    double checkpointInterval = 0;
    bool help = false, version = false, profile = false, noCache = false;
    kwave::OutputSelection out;
    out.pRaw = false;
    bool pRaw = false;
    desc.add_options()("help,h", po::bool_switch(&help), "show this help")(
        "version", po::bool_switch(&version), "print the version and the file format it reads")(
        "input,i", po::value(&input), "k-Wave input file (HDF5, format 1.0 to 1.2)")(
        "output,o", po::value(&output), "output file to write")(
        "progress,r", po::value(&progressPercent)->default_value(5), "progress print interval in percent")(
        "compression,c", po::value(&compression)->default_value(0), "deflate level 0-9 of the output datasets")(
        "benchmark", po::value(&benchmarkSteps), "run only this many time steps")(
        "verbose", po::value(&verbose)->default_value(1), "0 quiet, 1 progress, 2 also the set-up details")(
        "checkpoint_file", po::value(&checkpointFile), "checkpoint file: continue from it when it exists, write it when interrupted")(
        "checkpoint_interval", po::value(&checkpointInterval), "checkpoint after this many seconds")(
        "checkpoint_timesteps", po::value(&checkpointSteps), "checkpoint after this many time steps")(
        "p_raw,p", po::bool_switch(&pRaw), "store the pressure time series at the sensor (the default)")(
        "p_rms", po::bool_switch(&out.pRms), "store the RMS pressure at the sensor")(
        "p_max", po::bool_switch(&out.pMax), "store the maximum pressure at the sensor")(
        "p_min", po::bool_switch(&out.pMin), "store the minimum pressure at the sensor")(
        "p_max_all", po::bool_switch(&out.pMaxAll), "store the maximum pressure over the whole grid")(
        "p_min_all", po::bool_switch(&out.pMinAll), "store the minimum pressure over the whole grid")(
        "p_final", po::bool_switch(&out.pFinal), "store the final pressure field")(
        "u_raw,u", po::bool_switch(&out.uRaw), "store the particle velocity time series at the sensor")(
        "u_non_staggered_raw", po::bool_switch(&out.uNonStaggeredRaw), "store the velocity time series moved to the regular grid")(
        "u_rms", po::bool_switch(&out.uRms), "store the RMS velocity at the sensor")(
        "u_max", po::bool_switch(&out.uMax), "store the maximum velocity at the sensor")(
        "u_min", po::bool_switch(&out.uMin), "store the minimum velocity at the sensor")(
        "u_max_all", po::bool_switch(&out.uMaxAll), "store the maximum velocity over the whole grid")(
        "u_min_all", po::bool_switch(&out.uMinAll), "store the minimum velocity over the whole grid")(
        "u_final", po::bool_switch(&out.uFinal), "store the final velocity fields")(
        "start,s", po::value(&startIndex)->default_value(1), "first time step to sample (1-based)")(
        "copy_sensor_mask", po::bool_switch(&out.copySensorMask), "copy the sensor mask into the output file")(
        "gpu,g", po::value(&gpu), "the N-th GPU (k-Wave CUDA's -g); --device is the general form")(
        "threads,t", po::value(&threads), "CPU threads for the PoCL CPU device")(
        "device,d", po::value(&device)->default_value(device), "device: auto, gpu, cpu, P:D, or a vendor/name substring (also PORTACL_DEVICE)")(
        "fft", po::value(&fftName)->default_value("auto"), "FFT library: vkfft, clfft or fftw (auto = the device profile's: fftw on CPU devices, else vkfft)")(
        "precision", po::value(&precisionText)->default_value("single"), "arithmetic: single or double")(
        "storage", po::value(&storageText)->default_value("full"), "with single: full, or 16-bit storage of chosen arrays: reduced-min, reduced-mid or reduced-max (docs/kwave.md)")(
        "decomposition", po::value(&decomposition)->default_value("slabs"),
        "under mpirun: slabs (global transforms, exact) or lfb (local Fourier basis: overlapping slabs, approximate; needs --overlap)")(
        "overlap", po::value(&overlap), "with --decomposition lfb: planes each rank holds of each neighbour's slab (docs/kwave.md gives the error)")(
        "profile", po::bool_switch(&profile), "print per-kernel and per-transfer event times")(
        "no-cache", po::bool_switch(&noCache), "do not use the on-disk program binary cache");
    po::variables_map vm;
    if (!parseArgs(args, desc, {}, vm,
                   "usage: portacl kwave -i input.h5 -o output.h5 [options]\n"
                   "       kspaceFirstOrder-OpenCL -i input.h5 -o output.h5 [options]",
                   help))
        return 0;
    if (version) {
        std::cout << "kspaceFirstOrder-OpenCL (PortaCL " << kVersion << "), k-Wave HDF5 file format 1.2 (reads 1.0-1.2)\n";
        return 0;
    }
    // The options first, then the files.
    kwave::RunOptions options;
    if (precisionText.rfind("mixed-", 0) == 0)
        throw Error("--precision " + precisionText + " is now --storage reduced-" + precisionText.substr(6) + " (\"mixed\" means the two-phase float/double dispatch elsewhere)");
    options.precision = kwave::parseArithmetic(precisionText);
    options.storage = kwave::parseStorage(storageText);
    if (options.storage != kwave::Storage::Full && options.precision != Precision::Float)
        throw Error("--storage " + storageText + " needs --precision single");
    if (input.empty()) throw Error("no input file; give one with -i");
    if (output.empty()) throw Error("no output file; give one with -o");
    if (startIndex < 1) throw Error("-s counts time steps from 1");
    if (!(progressPercent >= 0.01 && progressPercent <= 100))
        throw Error("-r takes a progress interval from 0.01 to 100 percent, not " + std::to_string(progressPercent));
    if (verbose < 0 || verbose > 2) throw Error("--verbose takes 0, 1 or 2");
    if (!(checkpointInterval >= 0) || !std::isfinite(checkpointInterval))
        throw Error("--checkpoint_interval takes a finite number of seconds, zero or more");
    if (threads < 0 || threads > 65536) throw Error("-t takes a thread count from 1 to 65536");
    if (compression < 0 || compression > 9) throw Error("-c takes a compression level from 0 to 9");
    if ((checkpointInterval > 0 || checkpointSteps > 0) && checkpointFile.empty())
        throw Error("--checkpoint_interval and --checkpoint_timesteps need --checkpoint_file");
    if (decomposition == "lfb") {
        options.decomposition = kwave::Decomposition::LocalFourierBasis;
        options.overlap = overlap;
        if (!distributed) throw Error("--decomposition lfb splits the grid over MPI ranks; run it under mpirun with 2 ranks or more");
        if (overlap == 0) throw Error("--decomposition lfb needs --overlap N, the planes each rank holds of each neighbour's slab (1 or more)");
    } else if (decomposition != "slabs") {
        throw Error("--decomposition takes slabs or lfb, not " + decomposition);
    } else if (vm.count("overlap")) {
        throw Error("--overlap is the local Fourier basis decomposition's; give it with --decomposition lfb");
    }
    // The outputs are checked before the input is read: their folders, and that neither is the input.
    checkOutputPath(output, {input, checkpointFile}, "-o");
    if (!checkpointFile.empty()) {
        checkOutputPath(checkpointFile, {input}, "--checkpoint_file");
        checkDistinctOutputs({{"-o", output}, {"--checkpoint_file", checkpointFile}});
    }
    // k-Wave stores p by default when no other quantity is asked for.
    const bool anyOther = out.pRms || out.pMax || out.pMin || out.pMaxAll || out.pMinAll || out.pFinal || out.anyVelocity();
    out.pRaw = pRaw || !anyOther;
    out.startIndex = startIndex - 1;

    options.fftBackend = fft::parseBackend(fftName);
    options.outputs = out;
    // -t: PoCL's worker threads, and so FFTW's (one per compute unit), before the first OpenCL call.
    if (threads > 0) setCpuRuntimeThreads(static_cast<unsigned>(threads), true);

    const auto t0 = Clock::now();
#if PORTACL_WITH_MPI
    const int rankCount = distributed ? kwave::distributed::ranks() : 1;
    const bool talk = verbose > 0 && (!distributed || kwave::distributed::rank() == 0);
#else
    const int rankCount = 1;
    const bool talk = verbose > 0;
#endif
    // Under mpirun each rank reads the per-point datasets for its own slab only (hyperslabs), unless a
    // checkpoint is asked for: a checkpoint names its input by a fingerprint of the whole grid.
    kwave::Simulation sim;
#if PORTACL_WITH_MPI
    if (distributed && checkpointFile.empty())
        sim = kwave::readInputFile(input, [rankCount, &options](const kwave::Grid& g) {
            return kwave::distributed::slabPlanes(g, rankCount, kwave::distributed::rank(), options.overlap);
        });
    else
#endif
        sim = kwave::readInputFile(input);
    if (sim.nt <= out.startIndex) throw Error("-s " + std::to_string(startIndex) + " is past the last time step (Nt = " + std::to_string(sim.nt) + ")");
    const double loadSeconds = since(t0);

    // From here on a rank's error may leave the others waiting in a collective.
    collective = distributed;
#if PORTACL_WITH_MPI
    const DeviceInfo info = distributed ? rankDevice(device, gpu, kwave::distributed::localRank()) : kwaveDevice(device, gpu, talk);
#else
    const DeviceInfo info = kwaveDevice(device, gpu, talk);
#endif
    ContextOptions co = defaultContextOptions();
    if (noCache) co.useDiskCache = false;
    co.profile = profile;
    // Event timestamps only for --profile (without them a 256^3 step ran about 2 % faster on an H200)
    // and the local Fourier basis, whose device wait for the overlap planes is read from them.
    co.queueProfiling = profile || options.decomposition == kwave::Decomposition::LocalFourierBasis;
    Context ctx(info, co);

    const auto& g = sim.grid;
    if (talk) {
        std::cout << "┌───────────────────────────────────────────────────────────────┐\n"
                  << "│                  kspaceFirstOrder-OpenCL (PortaCL)            │\n"
                  << "└───────────────────────────────────────────────────────────────┘\n"
                  << "Device:            " << info.label() << (rankCount > 1 ? " (rank 0)" : "") << "\n"
                  << (info.isCpu ? "Threads:           " + std::to_string(info.computeUnits) + " (the CPU device's compute units; -t)\n" : std::string())
                  << (rankCount > 1 ? "Ranks:             " + std::to_string(rankCount) +
                                          (options.overlap ? " (a slab of the grid each, " + std::to_string(options.overlap) +
                                                                 " overlap planes with each neighbour: local Fourier basis)\n"
                                                           : " (a slab of the grid each)\n")
                                    : std::string())
                  << "Input file:        " << input << "\n"
                  << "Output file:       " << output << "\n"
                  << "Domain size:       " << g.nx << " x " << g.ny << (g.is3D() ? " x " + std::to_string(g.nz) : std::string()) << "\n"
                  << "Time steps:        " << sim.nt << "\n"
                  << "Precision:         " << precisionText
                  << (options.storage == kwave::Storage::Full ? std::string() : ", " + storageText + " storage") << "\n";
    }
    kwave::RunPlan plan;
    plan.options = options;
    plan.outputFile = output;
    plan.compression = compression;
    plan.checkpointFile = checkpointFile;
    plan.checkpointSteps = checkpointSteps;
    plan.checkpointSeconds = checkpointInterval;
    plan.maxSteps = benchmarkSteps;
    plan.started = t0;
    plan.loadSeconds = loadSeconds;

    // k-Wave's lines on stdout: the set-up, a progress table, the summary.
    kwave::RunObserver observer;
    if (talk) {
        // The solver builds its kernels first: a minute on a CPU device the first time, then from the
        // kernel cache. Said before it starts, so that a cold cache does not look like a hang.
        observer.buildingSolver = [] {
            std::cout << "Pre-processing:    building the kernels (cached after the first run on this device) ..." << std::flush;
        };
        observer.solverBuilt = [](double seconds) {
            std::cout << " " << std::fixed << std::setprecision(1) << seconds << " s\n" << std::defaultfloat;
        };
        observer.restored = [&](std::size_t step) {
            std::cout << "Restored from:     " << checkpointFile << " at time step " << step << "\n";
        };
        observer.loopStarts = [](std::size_t deviceBytes) {
            std::cout << "Device memory:     " << (deviceBytes >> 20) << " MB\n"
                      << "+---------------+----------------+--------------+----------------------+\n"
                      << "| progress      |  elapsed time  |  time to go  |  est. finish time    |\n"
                      << "+---------------+----------------+--------------+----------------------+\n";
        };
        // A line each time the finished steps pass the next multiple of -r percent, and at the end.
        observer.progress = [&, nextReport = static_cast<double>(progressPercent),
                             reported = std::size_t(-1)](const kwave::RunProgress& at) mutable {
            const double percent = 100.0 * at.done / at.nt;
            if (reported == std::size_t(-1)) reported = at.first;
            if (at.done == reported || at.done == at.first || (percent + 1e-9 < nextReport && at.done != at.end)) return;
            reported = at.done;
            const double left = at.elapsedSeconds / static_cast<double>(at.done - at.first) * static_cast<double>(at.end - at.done);
            std::printf("| %5.1f%%        | %12.3fs  | %10.3fs  | %20s |\n", percent, at.elapsedSeconds, left, clockIn(left).c_str());
            std::fflush(stdout);
            nextReport = (std::floor((percent + 1e-9) / progressPercent) + 1) * progressPercent;  // the next multiple
        };
    }
    const kwave::RunSummary run = [&] {
#if PORTACL_WITH_MPI
        if (distributed) return kwave::distributed::run(ctx, sim, plan, observer);
        try {
            return kwave::run(ctx, sim, plan, observer);
        } catch (const Error& e) {
            // A grid one device cannot hold: how many ranks with such devices would.
            const std::string what = e.what();
            if (what.find("of device memory") == std::string::npos || options.storage != kwave::Storage::Full) throw;
            const int fit = kwave::distributed::ranksToFit(sim, options, info.globalMemBytes);
            if (fit < 2) throw;
            throw Error(what + "; split over MPI ranks it fits " + std::to_string(fit) + " such devices (mpirun -n " +
                        std::to_string(fit) + " portacl kwave ...)");
        }
#else
        return kwave::run(ctx, sim, plan, observer);
#endif
    }();
    if (talk && run.checkpointed)
        std::cout << "Checkpoint:        " << checkpointFile << " at time step " << run.timeIndex << "; " << output
                  << " holds the steps so far; run the same command again to continue\n";
    if (talk) {
        const std::size_t steps = run.steps();
        std::cout << "+---------------+----------------+--------------+----------------------+\n"
                  << std::fixed << std::setprecision(3)
                  << "Time steps run:    " << steps << "\n"
                  << "Time per step:     " << (steps ? 1e3 * run.simulationSeconds / steps : 0.0) << " ms\n"
                  << "Input:             " << run.loadSeconds << " s" << (run.ranks > 1 ? " (the slowest rank's slab)" : "") << "\n"
                  << "Set-up:            " << run.preprocessingSeconds << " s (medium and operators, kernels, uploads, a warm-up step)\n"
                  << "Simulation time:   " << run.simulationSeconds << " s\n"
                  << (run.ranks > 1 ? transposeLines(run, options.overlap > 0) : std::string())
                  << "Output:            " << run.outputSeconds << " s (" << (run.ranks > 1 ? "gathering and " : "") << "writing " << output << ")\n"
                  << "Total time:        " << since(t0) << " s\n"
                  << "Device memory:     " << (run.deviceBytes >> 20) << " MB\n"
                  << "Host memory peak:  " << run.hostMemoryMB << " MB\n";
    }
    if (profile) {
        ctx.finish();
        ctx.profiler().print(std::cerr, ctx.device().label());
    }
    return 0;
}

}  // namespace

// Under mpirun: the distributed solver; rank 0 says a failure once (runKwave).
PORTACL_OVER_RANKS_OWN_ERRORS("kwave", kwave);
PORTACL_COMMAND("kwave", "k-Wave ultrasound simulation (kspaceFirstOrder-OpenCL): k-Wave HDF5 in, out", runKwave);

}  // namespace portacl::cli
