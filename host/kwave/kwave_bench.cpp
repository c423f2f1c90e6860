// Bench case "kwave": time per step of the k-Wave solver. --quick: 32^3, heterogeneous, power-law
// absorbing, nonlinear, p0 source. Full: 64^3 and 128^3 (absorbing linear homogeneous, and the
// heterogeneous absorbing nonlinear case), and on GPUs 256^3 heterogeneous absorbing nonlinear with
// p0 (the size of k-Wave CUDA's figure in docs/kwave.md), each reduced-storage mode
// beside single precision. One run = a burst of consecutive time steps (FFTs, kernels and sensor
// sampling); the time per step is the burst's device time over its length.
#include <unistd.h>

#include <atomic>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <sstream>
#include <thread>

#include "portacl/bench.hpp"
#include "portacl/io/hdf5_file.hpp"
#include "portacl/kwave.hpp"
#include "portacl/runtime/error.hpp"
#include "portacl/runtime/progress.hpp"

namespace portacl::kwave {
namespace {

Field constant(float v) { return Field{{v}}; }

// A smooth Gaussian ball of 1 MPa in water-like tissue; heterogeneous media get +-5 % noise.
Simulation benchSimulation(std::size_t n, bool heterogeneous, bool nonlinear) {
    Simulation s;
    s.grid.nx = s.grid.ny = s.grid.nz = n;
    s.grid.dx = s.grid.dy = s.grid.dz = 1e-4;
    s.nt = 1u << 30;  // the bench steps as often as it likes
    s.cRef = 1600;
    s.dt = 0.3 * s.grid.dx / s.cRef;
    s.pml.size = {10, 10, 10};
    const std::size_t total = s.grid.size();
    std::mt19937 rng(3);
    std::uniform_real_distribution<float> noise(-1.0f, 1.0f);
    auto field = [&](float base) {
        if (!heterogeneous) return constant(base);
        Field f;
        f.values.resize(total);
        for (auto& v : f.values) v = base * (1.0f + 0.05f * noise(rng));
        return f;
    };
    s.medium.c0 = field(1500);
    s.medium.rho0 = field(1000);
    s.medium.rho0Sgx = heterogeneous ? s.medium.rho0 : constant(1000);
    s.medium.rho0Sgy = s.medium.rho0Sgx;
    s.medium.rho0Sgz = s.medium.rho0Sgx;
    s.medium.absorption = Absorption::PowerLaw;
    s.medium.alphaCoeff = field(0.75f);
    s.medium.alphaPower = 1.5;
    s.medium.nonlinear = nonlinear;
    if (nonlinear) s.medium.bOnA = field(6.0f);
    s.p0.resize(total);
    const double c = n / 2.0, r = n / 10.0;
    for (std::size_t z = 0; z < n; ++z)
        for (std::size_t y = 0; y < n; ++y)
            for (std::size_t x = 0; x < n; ++x) {
                const double d2 = (x - c) * (x - c) + (y - c) * (y - c) + (z - c) * (z - c);
                s.p0[x + n * (y + n * z)] = static_cast<float>(1e6 * std::exp(-d2 / (r * r)));
            }
    for (std::size_t i = 0; i < total; i += 997) s.sensor.index.push_back(i);
    return s;
}

// k-Wave's kspaceFirstOrder-OMP on the same simulation, `steps` time steps on `threads` threads:
// seconds per step, from the simulation phase's time it writes into its output file (its set-up and
// the file's reading and writing are not in it). Its files go to a scratch folder, removed after.
double ompSecondsPerStep(const std::string& exe, Simulation sim, int steps, int threads) {
    static std::atomic<int> runs{0};
    namespace fs = std::filesystem;
    const fs::path dir = fs::temp_directory_path() / ("portacl-kwave-omp-" + std::to_string(::getpid()) + "-" + std::to_string(runs++));
    fs::create_directories(dir);
    struct Remove {
        fs::path p;
        ~Remove() {
            std::error_code ec;
            fs::remove_all(p, ec);
        }
    } remove{dir};
    sim.nt = static_cast<std::size_t>(steps);
    const std::string in = (dir / "in.h5").string(), out = (dir / "out.h5").string(), log = (dir / "log.txt").string();
    writeInputFile(in, sim);
    const std::string cmd = shellQuote(exe) + " -i " + shellQuote(in) + " -o " + shellQuote(out) + " -t " + std::to_string(threads) + " > " +
                            shellQuote(log) + " 2>&1";
    if (std::system(cmd.c_str()) != 0) {
        std::ifstream f(log);
        std::string line, last;
        while (std::getline(f, line))
            if (!line.empty()) last = line;
        throw Error("kspaceFirstOrder-OMP failed" + (last.empty() ? std::string() : ": " + last));
    }
    const std::string t = io::Hdf5File::open(out).readStringAttribute("/", "simulation_phase_execution_time");
    char* end = nullptr;
    const double seconds = std::strtod(t.c_str(), &end);
    if (end == t.c_str() || !(seconds >= 0)) throw Error("kspaceFirstOrder-OMP wrote a simulation time of '" + t + "'");
    return seconds / steps;
}

// The CPU peer of a simulation's rows on a CPU device: kspaceFirstOrder-OMP where --kwave-omp names
// it, run once per simulation (its time is single precision's, beside every row of that simulation).
using PeerRuns = std::map<std::string, std::pair<std::string, double>>;  // by case: the peer's name and time
void addOmpPeer(Context& ctx, const BenchOptions& opts, const Simulation& sim, const std::string& name, PeerRuns& runs,
                std::vector<BenchRecord>& rows, std::size_t first) {
    if (!ctx.device().isCpu || first >= rows.size()) return;
    const std::string key = name + " " + std::to_string(sim.grid.nx);
    std::string peer;
    double seconds = NAN;
    if (const auto it = runs.find(key); it != runs.end()) {
        peer = it->second.first;
        seconds = it->second.second;
    } else if (opts.kwaveOmp.empty()) {
        peer = "kspaceFirstOrder-OMP: not given (--kwave-omp PATH)";
    } else {
        const int threads = static_cast<int>(peerThreads(ctx));
        // Enough steps that its time (written to 10 ms) is read to 1 % or better.
        const int steps = sim.grid.nx <= 64 ? 40 : sim.grid.nx <= 128 ? 20 : 10;
        Progress current("kspaceFirstOrder-OMP " + std::to_string(sim.grid.nx) + "^3", 0, "");
        try {
            seconds = ompSecondsPerStep(opts.kwaveOmp, sim, steps, threads);
            peer = "kspaceFirstOrder-OMP, " + threadsText(unsigned(threads)) + ", single";
        } catch (const Error& e) {
            peer = std::string("kspaceFirstOrder-OMP: ") + e.what();
        }
        runs[key] = {peer, seconds};
    }
    for (std::size_t i = first; i < rows.size(); ++i) {
        rows[i].peer = peer;
        rows[i].peerSeconds = seconds;
    }
}

BenchRecord runCase(Context& ctx, const BenchOptions& opts, const Simulation& sim, const std::string& name,
                    Precision prec, Storage storage, bool serial) {
    RunOptions o;
    o.precision = prec;
    o.storage = storage;
    // The case under way on the progress line (a 256^3 case on a CPU takes minutes).
    Progress current(name + " " + std::to_string(sim.grid.nx) + "^3 " +
                         (storage == Storage::Full ? precisionName(prec) : storageName(storage)), 0, "");
    KSpaceSolver solver(ctx, sim, o);
    BenchRecord r;
    r.workload = "kwave/" + name;
    r.size = std::to_string(sim.grid.nx) + "^3";
    r.precision = storage == Storage::Full ? precisionName(prec) : storageName(storage);
    // Steady state: one timed run is a burst of consecutive steps enqueued without waiting (as in a
    // whole simulation), timed from the first command's start to the last one's end and divided by
    // their number, so that launch latency and host enqueue time overlap the device work as they do
    // in a long run. The warm-up bursts cover step 0 (the p0 set-up) and each kernel's first launch.
    const int burst = opts.quick ? 4 : 20;
    r.seconds = medianDeviceSeconds(ctx, [&] { for (int i = 0; i < burst; ++i) solver.step(); }, opts) / burst;
    std::ostringstream note;
    note << "per time step (bursts of " << burst << " steps); device memory " << (solver.deviceBytes() >> 20) << " MiB";
    if (serial) {
        // The serial reference (double, radix-2 DFTs) timed over 2 steps with its set-up.
        r.serialSeconds = medianHostSeconds([&] { referenceRun(sim, OutputSelection{}, 2); }, 1) / 2;
        note << "; serial reference: double precision, set-up included";
    }
    r.note = note.str();
    return r;
}

std::vector<BenchRecord> run(Context& ctx, const BenchOptions& opts) {
    std::vector<BenchRecord> out;
    PeerRuns peers;
    auto both = [&](const Simulation& sim, const std::string& name, bool serial) {
        const std::size_t first = out.size();
        if (opts.wants(Precision::Float)) out.push_back(runCase(ctx, opts, sim, name, Precision::Float, Storage::Full, serial));
        if (runsOn(ctx, opts, Precision::Double, "kwave/" + name, out))
            out.push_back(runCase(ctx, opts, sim, name, Precision::Double, Storage::Full, false));
        addOmpPeer(ctx, opts, sim, name, peers, out, first);
    };
    auto reduced = [&](const Simulation& sim, const std::string& name) {
        if (!opts.wants(Precision::Float)) return;  // reduced storage, float arithmetic
        const std::size_t first = out.size();
        for (const Storage s : {Storage::ReducedMin, Storage::ReducedMid, Storage::ReducedMax})
            out.push_back(runCase(ctx, opts, sim, name, Precision::Float, s, false));
        addOmpPeer(ctx, opts, sim, name, peers, out, first);
    };
    const std::string hard = "heterogeneous-absorbing-nonlinear-p0";
    if (opts.quick) {
        both(benchSimulation(32, true, true), hard, opts.serial);
        return out;
    }
    for (const std::size_t n : {64u, 128u}) {
        both(benchSimulation(n, false, false), "homogeneous-absorbing-linear-p0", opts.serial && n == 64);
        both(benchSimulation(n, true, true), hard, false);
    }
    reduced(benchSimulation(128, true, true), hard);
    if (ctx.device().isGpu) {
        const Simulation big = benchSimulation(256, true, true);
        both(big, hard, false);
        reduced(big, hard);
    }
    return out;
}

}  // namespace

PORTACL_REGISTER_BENCH("kwave", "k-Wave pseudospectral ultrasound solver: time per step (64^3, 128^3; 256^3 on GPUs)", run);

}  // namespace portacl::kwave
