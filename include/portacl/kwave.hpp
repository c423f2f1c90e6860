// k-Wave-compatible ultrasound simulation: the k-space pseudospectral solver of k-Wave's C++ codes
// (kspaceFirstOrder-OMP/-CUDA) on any OpenCL device, reading and writing k-Wave's HDF5 files.
//
// Conventions (k-Wave's): arrays are (Nz, Ny, Nx) in C order, x fastest; index lists in this API are
// 0-based (the files hold 1-based MATLAB indices and the reader/writer convert). Time step t (0-based)
// produces p at t*dt; sample 0 is p0. Velocities live on the staggered grid (x + dx/2) and time
// (t + dt/2).
#pragma once

#include "portacl/export.hpp"

#include <array>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "portacl/fft.hpp"
#include "portacl/runtime/context.hpp"
#include "portacl/runtime/precision.hpp"

namespace portacl::kwave {

struct PORTACL_API Grid {
    std::size_t nx = 1, ny = 1, nz = 1;
    double dx = 1, dy = 1, dz = 1;
    bool is3D() const { return nz > 1; }
    int dimensions() const { return is3D() ? 3 : 2; }
    std::size_t size() const { return nx * ny * nz; }
    std::size_t reducedNx() const { return nx / 2 + 1; }  // the R2C half-spectrum along x
    std::size_t reducedSize() const { return reducedNx() * ny * nz; }
};

// A medium quantity: one value (homogeneous) or one per grid point (heterogeneous).
struct PORTACL_API Field {
    std::vector<float> values;
    bool scalar() const { return values.size() == 1; }
    bool present() const { return !values.empty(); }
    double at(std::size_t i) const { return values.size() == 1 ? values[0] : values[i]; }
};

enum class Absorption { Lossless = 0, PowerLaw = 1, Stokes = 2 };
enum class SourceMode { Dirichlet = 0, AdditiveNoCorrection = 1, Additive = 2 };

struct PORTACL_API Medium {
    Field c0, rho0, rho0Sgx, rho0Sgy, rho0Sgz;  // rho0_sg*: density on the staggered grids
    bool nonlinear = false;
    Field bOnA;
    Absorption absorption = Absorption::Lossless;
    Field alphaCoeff;        // dB / (MHz^y cm)
    double alphaPower = 0;   // y
};

struct PORTACL_API Pml {
    std::array<std::size_t, 3> size{0, 0, 0};  // grid points, inside the grid, per axis x, y, z
    std::array<double, 3> alpha{2, 2, 2};       // Np per grid point
};

// A pressure or velocity source: `length` steps of signal (the file's *_source_flag), applied at
// `index` (0-based). Signal element (point i, step t) is signal[t*index.size() + i] when `many`,
// else signal[t].
struct PORTACL_API PressureSource {
    std::size_t length = 0;
    SourceMode mode = SourceMode::Additive;
    bool many = false;
    std::vector<std::uint64_t> index;
    std::vector<float> signal;
};

struct PORTACL_API VelocitySource {
    std::array<std::size_t, 3> length{0, 0, 0};  // ux, uy, uz source flags
    SourceMode mode = SourceMode::Additive;
    bool many = false;
    std::vector<std::uint64_t> index;              // u_source_index, shared with the transducer
    std::array<std::vector<float>, 3> signal;
};

// Added to ux at the velocity source index: input[delay[i] + t].
struct PORTACL_API TransducerSource {
    std::size_t length = 0;
    std::vector<float> signal;
    std::vector<std::uint64_t> delay;
};

struct PORTACL_API Cuboid {
    std::array<std::uint64_t, 3> begin{}, end{};  // 0-based, inclusive, (x, y, z)
    std::array<std::uint64_t, 3> extent() const { return {end[0] - begin[0] + 1, end[1] - begin[1] + 1, end[2] - begin[2] + 1}; }
};

struct PORTACL_API SensorMask {
    enum class Type { Index = 0, Corners = 1 } type = Type::Index;
    std::vector<std::uint64_t> index;  // 0-based linear indices, when Type::Index
    std::vector<Cuboid> cuboids;       // when Type::Corners
    // The sampled points in output order: the index list, or every cuboid's points (x fastest),
    // cuboid after cuboid.
    std::vector<std::uint64_t> points(const struct Grid& grid) const;
};

struct PORTACL_API FileHeader {
    std::string createdBy, creationDate, fileDescription, majorVersion = "1", minorVersion = "2";
};

// Planes of the grid's slowest axis (z in 3-D, y in 2-D): [first, first + count); count 0 means
// every plane.
struct PORTACL_API PlaneRange {
    std::size_t first = 0, count = 0;
    bool whole() const { return count == 0; }
};

// Everything an input file describes.
struct PORTACL_API Simulation {
    FileHeader header;
    Grid grid;
    std::size_t nt = 0;
    double dt = 0, cRef = 0;
    Pml pml;
    Medium medium;
    std::vector<float> p0;  // empty: no initial pressure
    PressureSource p;
    VelocitySource u;
    TransducerSource transducer;
    SensorMask sensor;
    std::uint64_t axisymmetric = 0, nonuniformGrid = 0;
    // The planes whose points the per-point arrays hold (the medium's heterogeneous fields, p0): the
    // whole grid, or one MPI rank's slab (readInputFile's `planesOf`), which only the distributed
    // solver takes. Sources, sensor and scalars are always the whole grid's.
    PlaneRange planes;
    // Points of a per-point array: the grid's, or the slab's.
    std::size_t pointsHeld() const;
};

// Reads a k-Wave input file (format 1.2; 1.0/1.1 too, whose precomputed operators are ignored since
// they are regenerated). Throws one sentence per problem: wrong file type or version, a missing or
// mistyped dataset (named), inconsistent sizes.
PORTACL_API Simulation readInputFile(const std::string& path);
// The same with the per-point arrays read only for the planes planesOf(grid) gives (each one a
// hyperslab of the file's dataset): an MPI rank's slab, so that no rank reads or holds the whole grid.
PORTACL_API Simulation readInputFile(const std::string& path, const std::function<PlaneRange(const Grid&)>& planesOf);
// Writes a k-Wave 1.2 input file as k-Wave MATLAB does (for tests, benchmarks and examples).
PORTACL_API void writeInputFile(const std::string& path, const Simulation& sim);
// Checks the description for consistency (sizes, indices inside the grid, supported options) and
// every physical quantity's range (dt, spacings, c_ref, c0, rho0, rho0_sg*: finite and positive;
// alpha_coeff and the PML alphas: finite, zero or more; BonA and source signals: finite).
PORTACL_API void validate(const Simulation& sim, const std::string& source);
// Refuses, before anything is read, a grid whose sides exceed 2^31 - 1, Nt above 2^31, or a grid
// whose fields do not fit the host's memory (`planes` of it, when only they are held).
PORTACL_API void checkGridSize(const Grid& grid, std::size_t nt, const std::string& source, const PlaneRange& planes = {});
// Refuses a simulation that holds only a slab's planes (Simulation::planes) where `what` needs the
// whole grid: the one-device solver, the reference, the input writer, checkpoints.
PORTACL_API void requireWholeGrid(const Simulation& sim, const std::string& what);

// Which quantities to record (k-Wave's command line flags).
struct PORTACL_API OutputSelection {
    bool pRaw = true, pRms = false, pMax = false, pMin = false, pMaxAll = false, pMinAll = false, pFinal = false;
    bool uRaw = false, uNonStaggeredRaw = false, uRms = false, uMax = false, uMin = false, uMaxAll = false,
         uMinAll = false, uFinal = false;
    std::size_t startIndex = 0;  // first sampled step, 0-based (k-Wave's -s minus one)
    bool copySensorMask = false;
    bool anyVelocity() const { return uRaw || uNonStaggeredRaw || uRms || uMax || uMin || uMaxAll || uMinAll || uFinal; }
};

// What a run recorded, by k-Wave dataset name ("p", "p_rms", "ux_max_all", "p_final", ...). Raw
// series are [sample][sensor point]; sensor aggregates [sensor point]; *_all and *_final the grid.
// While running, "*_rms" holds the sum of squares; finalize() turns it into the root mean square.
struct PORTACL_API Recording {
    std::map<std::string, std::vector<double>> data;
    std::size_t samples = 0;  // sampled steps so far
    bool finalized = false;
    void finalize();
};

// Storage precision of the solver's arrays. Full: all in the element precision. The three reduced
// modes (the thesis's "mixed" modes of Table 5.1; PortaCL keeps "mixed" for the two-phase dispatch)
// store chosen quantities in fp16 / bfloat16 with float arithmetic.
enum class Storage { Full, ReducedMin, ReducedMid, ReducedMax };
PORTACL_API const char* storageName(Storage s);

// How a run over several MPI ranks splits the grid along its slowest axis (docs/kwave.md, "Several
// devices"): slabs whose 3-D transforms are global (one transpose each through host memory; the
// one-device answer to rounding), or the local Fourier basis decomposition: each rank's slab plus
// `overlap` planes of each neighbour's, transformed on its own device, the overlap planes exchanged
// with the neighbours after each update (no transposes; an approximation whose error falls as the
// overlap grows).
enum class Decomposition { Slabs, LocalFourierBasis };

struct PORTACL_API RunOptions {
    Precision precision = Precision::Float;  // Float or Double (element precision of arithmetic)
    Storage storage = Storage::Full;         // reduced modes need Float
    fft::Backend fftBackend = fft::Backend::Auto;
    OutputSelection outputs;
    // Keys of the device profile's [kwave] section given another value for this solver (the kernel
    // paths, e.g. {"fftw_fused_z", 1}), so that tests and experiments run every path on one device.
    std::map<std::string, long> profileKeys;
    // Distributed runs only (one rank ignores them): the decomposition, and its overlap in planes.
    Decomposition decomposition = Decomposition::Slabs;
    std::size_t overlap = 0;
};

// Parses the arithmetic precision, "single" (k-Wave's name), "float" or "double".
PORTACL_API Precision parseArithmetic(const std::string& text);
// Parses "full", "reduced-min", "reduced-mid" or "reduced-max" (storageName's names).
PORTACL_API Storage parseStorage(const std::string& text);

// The device solver. Construct, then step() until done() (or run()); recording() downloads what
// was sampled. saveState()/restoreState() carry everything needed to continue (checkpoints).
struct Subdomain;  // a subdomain of the local Fourier basis decomposition (host/kwave/subdomain.hpp)

class PORTACL_API KSpaceSolver {
public:
    KSpaceSolver(Context& ctx, const Simulation& sim, const RunOptions& options);
    // The same solver on one subdomain of the local Fourier basis decomposition (internal: the
    // distributed solver's; `subdomain` must outlive the solver).
    KSpaceSolver(Context& ctx, const Simulation& sim, const RunOptions& options, const Subdomain* subdomain);
    ~KSpaceSolver();
    KSpaceSolver(const KSpaceSolver&) = delete;
    KSpaceSolver& operator=(const KSpaceSolver&) = delete;

    // Steps enqueued so far. The host runs at most a few steps ahead of the device (the [kwave]
    // profile key steps_ahead, 8): step() waits only for the step that many back.
    std::size_t timeIndex() const;
    // Steps the device has finished, as far as can be told without waiting (<= timeIndex()).
    std::size_t completedSteps();
    bool done() const;
    void step();
    // Steps until `endStep` (0 = Nt) or until `stop(timeIndex)` returns true after a step.
    // Every 32 steps, and at the end of run(), the fields are checked to be finite; a simulation
    // that became unstable throws portacl::Error naming the step, the CFL number and the PML alphas.
    void run(std::size_t endStep = 0, const std::function<bool(std::size_t)>& stop = {});
    void checkFinite();  // the same check, now (after step() calls)
    // What was sampled so far (downloads the device's buffers); not finalized, so that a run can go on.
    Recording recording();
    std::size_t deviceBytes() const;

    struct State {
        std::size_t timeIndex = 0;
        std::map<std::string, std::vector<double>> fields;  // p, ux_sgx, ..., rhox, ...
        Recording recording;
        // The decomposition whose run it continues: empty for the whole grid's state of one device
        // or the global slabs (it continues on any rank count), else the local Fourier basis's with
        // its ranks and overlap (it continues only on those: the approximation depends on them).
        std::string decomposition;
    };
    State saveState();
    void restoreState(const State& state);

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

// The serial C++ reference of the same time step, in double precision with its own FFT (a direct
// mixed-radix DFT): for validation on small grids. Runs `steps` steps (0 = Nt).
PORTACL_API Recording referenceRun(const Simulation& sim, const OutputSelection& outputs, std::size_t steps = 0);

// Facts for the output file header and the closing summary.
struct PORTACL_API RunInfo {
    std::string createdBy = "kspaceFirstOrder-OpenCL (PortaCL)";
    std::string hostName;
    double loadSeconds = 0, preprocessingSeconds = 0, simulationSeconds = 0, postprocessingSeconds = 0;
    double totalSeconds = 0;
    std::size_t hostMemoryMB = 0;
    std::size_t timeIndex = 0;  // steps done
};

// Writes k-Wave's output file (datasets, shapes, attributes as kspaceFirstOrder-OMP/-CUDA) to a
// temporary name and renames it to `path`; removes the temporary on failure.
PORTACL_API void writeOutputFile(const std::string& path, const Simulation& sim, const OutputSelection& outputs,
                                 const Recording& recording, const RunInfo& info, int compression = 0);

// Checkpoint files: the solver state plus what identifies the input (grid, Nt, file description).
PORTACL_API void writeCheckpointFile(const std::string& path, const Simulation& sim, const KSpaceSolver::State& state);
// A checkpointed stop, as k-Wave's solvers do it: the checkpoint, and the output file with what was
// recorded so far (t_index says how far), committed together so that neither is older than the other.
PORTACL_API void writeCheckpointAndOutput(const std::string& checkpointPath, const std::string& outputPath, const Simulation& sim,
                                          const KSpaceSolver::State& state, const OutputSelection& outputs, const RunInfo& info,
                                          int compression = 0);
// Throws when the checkpoint belongs to another input.
PORTACL_API KSpaceSolver::State readCheckpointFile(const std::string& path, const Simulation& sim);
// Refuses (portacl::Error, one sentence) a checkpoint of another decomposition than `decomposition`
// (State::decomposition's form: empty for one device and the global slabs).
PORTACL_API void requireDecomposition(const KSpaceSolver::State& state, const std::string& decomposition);

}  // namespace portacl::kwave
