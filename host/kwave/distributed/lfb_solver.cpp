#include "lfb_solver.hpp"

#include <algorithm>
#include <chrono>
#include <climits>
#include <cmath>
#include <cstring>

#include "kwave/k_space_operators.hpp"
#include "kwave/subdomain.hpp"
#include "portacl/cluster/block_exchange.hpp"
#include "portacl/cluster/mpi_comm.hpp"
#include "portacl/kwave/distributed.hpp"
#include "slab_output.hpp"
#include "slab_simulation.hpp"
#include "slab_state.hpp"
#include "kwave/setup_trace.hpp"

namespace portacl::kwave::distributed {

namespace {

using Clock = std::chrono::steady_clock;

double since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

std::vector<std::size_t> shapeOf(const Grid& g) {
    return g.is3D() ? std::vector<std::size_t>{g.nz, g.ny, g.nx} : std::vector<std::size_t>{g.ny, g.nx};
}

// The bell's steepness: erfc(kSteepness (2 s - 1)) / 2 over s in (0, 1) across the overlap runs from
// 1 - 1e-5 to 1e-5 at the ends (s = 0, 1), and the planes sit at s = 1/(N+1), ..., N/(N+1). Chosen by
// the error against the one-device run (48^3 example, 2 ranks, p_final; docs/engineering/kwave.md):
// 1.5, 2, 2.5, 3, 3.5, 4 gave 6.5e-2, 2.4e-2, 6.5e-3, 2.1e-3, 3.2e-3, 5.6e-3 at an overlap of 4.
constexpr double kSteepness = 3.0;

// A length whose only prime factors are 2, 3, 5, 7, 11 and 13: clFFT's radices (it refuses other
// lengths) and VkFFT's own (it takes slower ways, Rader's or Bluestein's, for larger primes).
bool smooth(std::size_t n) {
    for (std::size_t p : {2, 3, 5, 7, 11, 13})
        while (n % p == 0) n /= p;
    return n == 1;
}

}  // namespace

OverlapPlan::OverlapPlan(const SlabLayout& l, std::size_t overlap) {
    const std::size_t R = static_cast<std::size_t>(l.ranks);
    below.assign(R, 0);
    above.assign(R, 0);
    for (std::size_t r = 0; r < R; ++r) {
        if (r > 0) below[r] = overlap;
        if (r + 1 < R) above[r] = overlap;
        // The planes held rounded up to a smooth length by more planes of one neighbour's (the upper
        // one's, the last rank's lower one's), as many as that neighbour's slab has.
        std::size_t& grow = r + 1 < R ? above[r] : below[r];
        const std::size_t most = R == 1 ? 0 : l.count0[r + 1 < R ? r + 1 : r - 1];
        for (std::size_t extra = 0; grow + extra <= most; ++extra)
            if (smooth(below[r] + l.count0[r] + above[r] + extra)) {
                grow += extra;
                break;
            }
    }
}

std::vector<double> bellPlanes(std::size_t planes) {
    std::vector<double> b(planes);
    for (std::size_t j = 0; j < planes; ++j) {
        const double s = static_cast<double>(planes - j) / static_cast<double>(planes + 1);  // 1: the subdomain's end
        b[j] = 0.5 * std::erfc(kSteepness * (2.0 * s - 1.0));
    }
    return b;
}

// Refuses an overlap that a neighbour's slab cannot fill (every rank gives the same answer).
void checkOverlap(const SlabLayout& l, std::size_t overlap) {
    if (overlap == 0) throw EveryRankError("the local Fourier basis decomposition needs an overlap of 1 plane or more (--overlap N)");
    const std::size_t smallest = l.count0.back();  // the last ranks take the smaller share
    if (overlap > smallest)
        throw EveryRankError("--overlap " + std::to_string(overlap) + " does not fit: the smallest slab of this " + l.describe() +
                             " grid over " + std::to_string(l.ranks) + " ranks has " + std::to_string(smallest) +
                             " planes, and a rank's overlap planes are its neighbour's; use --overlap " + std::to_string(smallest) +
                             " or less, or fewer ranks");
}

PlaneRange lfbPlanes(const Grid& grid, int rankCount, int rank, std::size_t overlap) {
    const SlabLayout l(shapeOf(grid), rankCount, rank);
    checkOverlap(l, overlap);
    const OverlapPlan plan(l, overlap);
    const auto r = static_cast<std::size_t>(rank);
    return {l.firstPlane() - plan.below[r], l.planes() + plan.below[r] + plan.above[r]};
}

struct LfbSolver::Impl {
    Context& ctx;
    const Simulation& sim;
    RunOptions opt;
    SlabLayout l;
    std::size_t overlap;
    OverlapPlan plan;
    // Planes held below and above the rank's own, and how many of its own it sends each neighbour
    // (their above and below counts).
    std::size_t below, above, sendBelow, sendAbove;
    SlabSimulation part;
    Subdomain sub;
    std::unique_ptr<KSpaceSolver> solver;
    std::size_t heldPlanes;
    TransposeTimes times;
    std::string method;
    bool localTaken = false;
    Recording local;  // this rank's recording, its own planes of the whole-grid datasets (taken once, at the end)

    // Pinned staging: [side: below, above][field][overlap planes], up to 3 fields of the element size.
    cl::Buffer sendPinned, recvPinned;
    // Between ranks of one node the planes go through BlockExchange's shared-memory window, copied by
    // several threads a rank (MPI's shared-memory transport copies at one core's rate); else, and
    // with PORTACL_EXCHANGE=mpi, MPI point-to-point with the two neighbours.
    std::unique_ptr<cluster::BlockExchange> window;
    unsigned char* sendHost = nullptr;
    unsigned char* recvHost = nullptr;
    std::size_t stagingBytes = 0;
    // The planes' reads and writes run on a queue of their own on the device's OpenCL context, so
    // that they overlap the solver's kernels (the copy engines beside the compute units).
    std::unique_ptr<Context> transfers;
    // The exchange under way (between send and receive).
    struct Pending {
        const cl::Buffer* fields = nullptr;
        std::size_t count = 0, planeBytes = 0;
        std::vector<cl::Event> reads;
    } pending;
    // Each exchange's events, kept until complete for the time the device waited on the planes.
    struct Waited {
        cl::Event lastWork, firstRead, lastWrite;
        bool hasWork = false;
    };
    std::vector<Waited> waited;
    bool profiled = true;  // the queues give timestamps

    std::size_t me() const { return static_cast<std::size_t>(l.rank); }

    Impl(Context& c, const Simulation& s, const RunOptions& o)
        : ctx(c), sim(s), opt(o), l(shapeOf(s.grid), ranks(), rank()), overlap(o.overlap),
          plan((checkOverlap(l, o.overlap), l), o.overlap), below(plan.below[me()]), above(plan.above[me()]),
          sendBelow(l.rank > 0 ? plan.above[me() - 1] : 0), sendAbove(me() + 1 < plan.below.size() ? plan.below[me() + 1] : 0),
          part(s, l, below, above), heldPlanes(l.planes() + below + above) {
        traceSetup("the input's validation");
        try {
            validate(sim, "the simulation");
        } catch (const Error& e) {
            throw EveryRankError(e.what());
        }
        sub.below = below;
        sub.above = above;
        sub.bellBelow = bellPlanes(below);
        sub.bellAbove = bellPlanes(above);
        // The whole grid's PML along the slab axis over the held planes; the subdomain's own grid has
        // none there (its edges are not the grid's).
        const int slow = l.is3D ? 2 : 1;
        const PerfectlyMatchedLayer layer(sim);
        const auto first = static_cast<std::ptrdiff_t>(l.firstPlane() - below), last = first + static_cast<std::ptrdiff_t>(heldPlanes);
        sub.pml.assign(layer.regular[slow].begin() + first, layer.regular[slow].begin() + last);
        sub.pmlStaggered.assign(layer.staggered[slow].begin() + first, layer.staggered[slow].begin() + last);
        part.slab.pml.size[slow] = 0;
        sub.sendBelow = sendBelow;
        sub.sendAbove = sendAbove;
        sub.send = [this](const cl::Buffer* fields, int count, std::size_t elementBytes, const cl::Event& ready) {
            send(fields, count, elementBytes, ready);
        };
        sub.receive = [this](const cl::Event* lastWork) { return receive(lastWork); };
        transfers = std::make_unique<Context>(ctx.device(), ctx.options(), ctx);

        const std::size_t realBytes = opt.precision == Precision::Double ? 8 : 4;
        stagingBytes = std::max<std::size_t>(3 * std::max(below + above, sendBelow + sendAbove) * l.plane * realBytes, 8);
        auto pinned = [&](cl::Buffer& b, const std::string& what) {
            b = ctx.buffer(stagingBytes, what, CL_MEM_READ_WRITE | CL_MEM_ALLOC_HOST_PTR);
            return static_cast<unsigned char*>(ctx.map(b, CL_MAP_READ | CL_MAP_WRITE, stagingBytes, "map " + what));
        };
        traceSetup("the overlap planes' pinned staging and exchange window");
        sendHost = pinned(sendPinned, "overlap planes sent (host)");
        recvHost = pinned(recvPinned, "overlap planes received (host)");
        window = std::make_unique<cluster::BlockExchange>(stagingBytes, "the " + l.describe() + " grid's overlap planes");
        if (window->method() != cluster::BlockExchange::Method::SharedWindow) window.reset();
        method = (window ? window->describe() : std::string("MPI point-to-point with the neighbouring ranks")) +
                 " (local Fourier basis, overlap " + std::to_string(overlap) + ")";
        traceSetup("the subdomain's solver");
        solver = std::make_unique<KSpaceSolver>(ctx, part.slab, opt, &sub);
    }

    // The staging layout of an exchange: what goes to (comes from) the neighbour below first, then
    // what goes to (comes from) the one above; bytes.
    struct Sides {
        std::size_t sendBelow, sendAbove, recvBelow, recvAbove;
    };

    void sendPlanes(const Sides& b) {
        if (window) {
            const std::size_t R = static_cast<std::size_t>(l.ranks), r = me();
            std::vector<std::size_t> sendCounts(R, 0), sendOffsets(R, 0), recvCounts(R, 0), recvOffsets(R, 0);
            if (r > 0) {
                sendCounts[r - 1] = b.sendBelow;
                recvCounts[r - 1] = b.recvBelow;
            }
            if (r + 1 < R) {
                sendCounts[r + 1] = b.sendAbove;
                sendOffsets[r + 1] = b.sendBelow;
                recvCounts[r + 1] = b.recvAbove;
                recvOffsets[r + 1] = b.recvBelow;
            }
            window->allToAll(sendHost, sendCounts, sendOffsets, recvHost, recvCounts, recvOffsets, 1);
            return;
        }
        if (std::max({b.sendBelow, b.sendAbove, b.recvBelow, b.recvAbove}) > static_cast<std::size_t>(INT_MAX))
            throw Error("an overlap exchange is more than one MPI message carries; use a smaller --overlap");
        MPI_Comm comm = cluster::communicator(cluster::World::process());
        MPI_Request req[4];
        int n = 0;
        constexpr int kTag = 30;
        auto count = [](std::size_t v) { return static_cast<int>(v); };
        if (l.rank > 0) MPI_Irecv(recvHost, count(b.recvBelow), MPI_BYTE, l.rank - 1, kTag, comm, &req[n++]);
        if (l.rank + 1 < l.ranks) MPI_Irecv(recvHost + b.recvBelow, count(b.recvAbove), MPI_BYTE, l.rank + 1, kTag, comm, &req[n++]);
        if (l.rank > 0) MPI_Isend(sendHost, count(b.sendBelow), MPI_BYTE, l.rank - 1, kTag, comm, &req[n++]);
        if (l.rank + 1 < l.ranks) MPI_Isend(sendHost + b.sendBelow, count(b.sendAbove), MPI_BYTE, l.rank + 1, kTag, comm, &req[n++]);
        if (MPI_Waitall(n, req, MPI_STATUSES_IGNORE) != MPI_SUCCESS) throw Error("the overlap planes' exchange between the ranks failed");
    }

    ~Impl() {
        try {
            if (transfers) transfers->finish();
            ctx.finish();
            if (sendHost) ctx.unmap(sendPinned, sendHost, "unmap overlap planes sent (host)");
            if (recvHost) ctx.unmap(recvPinned, recvHost, "unmap overlap planes received (host)");
            ctx.finish();
        } catch (...) {
        }
    }

    // The overlap planes of `count` fields: each rank sends its own first planes to the neighbour
    // below (as many as it holds above its slab) and its own last planes to the one above (as many as
    // it holds below), and takes theirs into its overlap planes. send queues the reads into pinned
    // memory once `ready` has completed; receive waits for them, moves the planes and queues the writes
    // back (the next exchange's reads come after them on the transfer queue, so the pinned memory is
    // free again by then).
    void send(const cl::Buffer* fields, int count, std::size_t elementBytes, const cl::Event& ready) {
        const std::size_t planeBytes = l.plane * elementBytes, k = static_cast<std::size_t>(count);
        if (std::max(sendBelow + sendAbove, below + above) * planeBytes * k > stagingBytes)
            throw Error("the overlap exchange's staging memory is too small");
        pending.fields = fields;
        pending.count = k;
        pending.planeBytes = planeBytes;
        pending.reads.clear();
        transfers->barrier({ready}, "overlap: after the update");
        for (std::size_t f = 0; f < k; ++f) {
            if (sendBelow)
                pending.reads.push_back(transfers->readAsync(fields[f], sendHost + f * sendBelow * planeBytes, sendBelow * planeBytes,
                                                             "overlap: to host", below * planeBytes));
            if (sendAbove)
                pending.reads.push_back(transfers->readAsync(fields[f], sendHost + sendBelow * planeBytes * k + f * sendAbove * planeBytes,
                                                             sendAbove * planeBytes, "overlap: to host",
                                                             (heldPlanes - above - sendAbove) * planeBytes));
        }
        transfers->flush();
    }

    std::vector<cl::Event> receive(const cl::Event* lastWork) {
        const auto t0 = Clock::now();
        const std::size_t planeBytes = pending.planeBytes, k = pending.count;
        const cl::Buffer* fields = pending.fields;
        const Sides b{sendBelow * planeBytes * k, sendAbove * planeBytes * k, below * planeBytes * k, above * planeBytes * k};
        for (auto& e : pending.reads) transfers->wait(e, "overlap planes to host");
        const auto t1 = Clock::now();
        sendPlanes(b);
        times.exchangeSeconds += since(t1);
        std::vector<cl::Event> writes;
        for (std::size_t f = 0; f < k; ++f) {
            if (below)
                writes.push_back(transfers->writeAsync(fields[f], recvHost + f * below * planeBytes, below * planeBytes, "overlap: to device",
                                                       nullptr, 0));
            if (above)
                writes.push_back(transfers->writeAsync(fields[f], recvHost + b.recvBelow + f * above * planeBytes, above * planeBytes,
                                                       "overlap: to device", nullptr, (heldPlanes - above) * planeBytes));
        }
        transfers->flush();
        times.waitSeconds += std::chrono::duration<double>(t1 - t0).count();
        times.transposes += k;
        times.hostBytes += 2 * (b.sendBelow + b.sendAbove + b.recvBelow + b.recvAbove);
        if (profiled && !pending.reads.empty() && !writes.empty()) {
            Waited w;
            w.hasWork = lastWork != nullptr;
            if (lastWork) w.lastWork = *lastWork;
            w.firstRead = pending.reads.front();
            w.lastWrite = writes.back();
            waited.push_back(w);
            settleWaits(false);
        }
        return writes;
    }

    // Adds the device's wait for each completed exchange's planes: from the end of the solver's last
    // command beside the transfers (or, when none ran beside them, the first read's start) to the end
    // of the last write, when positive. `all`: waits for the rest first.
    void settleWaits(bool all) {
        auto at = [](const cl::Event& e, cl_profiling_info what) {
            cl_ulong v = 0;
            if (clGetEventProfilingInfo(e(), what, sizeof v, &v, nullptr) != CL_SUCCESS) throw std::runtime_error("no timestamp");
            return v;
        };
        std::size_t done = 0;
        for (; done < waited.size(); ++done) {
            const Waited& w = waited[done];
            if (all) transfers->wait(w.lastWrite, "overlap planes to device");
            else if (w.lastWrite.getInfo<CL_EVENT_COMMAND_EXECUTION_STATUS>() != CL_COMPLETE) break;
            try {
                if (w.hasWork && !all && w.lastWork.getInfo<CL_EVENT_COMMAND_EXECUTION_STATUS>() != CL_COMPLETE) break;
                if (w.hasWork) ctx.wait(w.lastWork, "the update beside the overlap planes");
                const cl_ulong from = w.hasWork ? at(w.lastWork, CL_PROFILING_COMMAND_END) : at(w.firstRead, CL_PROFILING_COMMAND_START);
                const cl_ulong to = at(w.lastWrite, CL_PROFILING_COMMAND_END);
                if (to > from) times.deviceWaitSeconds += 1e-9 * static_cast<double>(to - from);
            } catch (const std::runtime_error&) {
                profiled = false;  // a queue without profiling: the measure is left out
                times.deviceWaitSeconds = -1;
                waited.clear();
                return;
            }
        }
        waited.erase(waited.begin(), waited.begin() + static_cast<std::ptrdiff_t>(done));
    }

    // State::decomposition of this run: a checkpoint continues only on the same ranks and overlap.
    std::string decomposition() const {
        return "the local Fourier basis decomposition on " + std::to_string(l.ranks) + " ranks at an overlap of " + std::to_string(overlap);
    }

    // The whole grid's state on rank 0, as the global slabs' (each rank's own planes gathered), with
    // the decomposition it belongs to. The overlap planes are left out: after a step they hold the
    // neighbours' own planes (rho, p) or are replaced before they are read (u, belled in place).
    KSpaceSolver::State saveState() {
        const KSpaceSolver::State held = solver->saveState();
        KSpaceSolver::State st;
        st.timeIndex = held.timeIndex;
        st.decomposition = decomposition();
        const auto from = static_cast<std::ptrdiff_t>(below * l.plane), count = static_cast<std::ptrdiff_t>(l.realPoints());
        for (const auto& [name, values] : held.fields)
            gatherStateField(st, name, std::vector<double>(values.begin() + from, values.begin() + from + count));
        st.recording = recording(true);
        return st;
    }

    // The held planes (the rank's own and its overlap) of a whole-grid state of this decomposition.
    void restoreState(const KSpaceSolver::State& st) {
        try {
            requireDecomposition(st, decomposition());
        } catch (const Error& e) {
            throw EveryRankError(e.what());
        }
        const std::size_t first = (l.firstPlane() - below) * l.plane, count = heldPlanes * l.plane, points = sim.grid.size();
        KSpaceSolver::State held;
        held.timeIndex = st.timeIndex;
        for (const auto& [name, values] : st.fields) held.fields[name] = stateFieldPart(st, name, points, first, count);
        held.recording = recordingPart(st.recording, part, points, first, count);
        solver->restoreState(held);
    }

    bool gridDataset(const std::string& name) const {
        auto ends = [&](const char* tail) {
            const std::size_t k = std::strlen(tail);
            return name.size() >= k && name.compare(name.size() - k, k, tail) == 0;
        };
        return ends("_all") || ends("_final");
    }

    // This rank's recording once, its whole-grid datasets cut to its own planes.
    const Recording& localRecording() {
        if (localTaken) return local;
        local = solver->recording();
        for (auto& [name, values] : local.data)
            if (gridDataset(name)) {
                const auto from = static_cast<std::ptrdiff_t>(below * l.plane);
                values = std::vector<double>(values.begin() + from, values.begin() + from + static_cast<std::ptrdiff_t>(l.realPoints()));
            }
        localTaken = true;
        return local;
    }

    Recording recording(bool withGridFields) {
        Recording mine = localRecording();
        if (!withGridFields)
            for (auto it = mine.data.begin(); it != mine.data.end();) it = gridDataset(it->first) ? mine.data.erase(it) : std::next(it);
        return gatherRecording(mine, sim, l, part.wholeSensorPoints);
    }

    StreamedGridFields gridFields(std::size_t roundBytes) {
        StreamedGridFields grids;
        for (const auto& [name, values] : localRecording().data)
            if (gridDataset(name)) grids.names.push_back(name);
        grids.write = [this, roundBytes](const std::string& name, const StreamedGridFields::Sink& put) {
            auto it = local.data.find(name);
            if (it == local.data.end()) throw Error("no whole-grid dataset '" + name + "' is recorded");
            const std::vector<double>& v = it->second;
            streamGridField(
                [&](std::size_t from, std::size_t to) {
                    return std::vector<float>(v.begin() + static_cast<std::ptrdiff_t>(from * l.plane),
                                              v.begin() + static_cast<std::ptrdiff_t>(to * l.plane));
                },
                l, roundBytes, put);
        };
        return grids;
    }
};

LfbSolver::LfbSolver(Context& ctx, const Simulation& sim, const RunOptions& options) : impl_(std::make_unique<Impl>(ctx, sim, options)) {}
LfbSolver::~LfbSolver() = default;
std::size_t LfbSolver::timeIndex() const { return impl_->solver->timeIndex(); }
std::size_t LfbSolver::completedSteps() { return impl_->solver->completedSteps(); }
bool LfbSolver::done() const { return impl_->solver->done(); }
void LfbSolver::step() { impl_->solver->step(); }
void LfbSolver::run(std::size_t endStep, const std::function<bool(std::size_t)>& stop) { impl_->solver->run(endStep, stop); }
Recording LfbSolver::recording(bool withGridFields) { return impl_->recording(withGridFields); }
StreamedGridFields LfbSolver::gridFields(std::size_t roundBytes) { return impl_->gridFields(roundBytes); }
KSpaceSolver::State LfbSolver::saveState() { return impl_->saveState(); }
void LfbSolver::restoreState(const KSpaceSolver::State& state) { impl_->restoreState(state); }
std::size_t LfbSolver::deviceBytes() const { return impl_->solver->deviceBytes(); }
const TransposeTimes& LfbSolver::transposeTimes() const {
    impl_->settleWaits(true);
    return impl_->times;
}
const std::string& LfbSolver::exchangeMethod() const { return impl_->method; }

}  // namespace portacl::kwave::distributed
