// The k-Wave time loop over MPI ranks by the local Fourier basis decomposition (Jaros, Vaverka and
// Treeby, "Spectral domain decomposition using local Fourier basis: application to ultrasound
// simulation on a cluster of GPUs", Supercomputing Frontiers and Innovations 3(3), 2016): each rank
// holds its slab of the slowest axis plus `overlap` planes of each neighbour's, runs the one-device
// solver (KSpaceSolver, its transforms and fast paths) on that subdomain with the bell over the
// overlap planes before every forward transform and the PML at the whole grid's edges only, and after
// each field update exchanges the overlap planes with its neighbours through pinned host memory, on a
// transfer queue of its own while the device updates the rest of the rank's planes
// (between ranks of one node the transposes' shared-memory window, cluster::BlockExchange, with
// blocks for the two neighbours only; across nodes, or with PORTACL_EXCHANGE=mpi, MPI point-to-point). No global transform: the derivatives are approximate near the slabs' edges, an
// error that falls as the overlap grows (docs/kwave.md). The interface is DistributedSolver's, so
// that the run loop and the output are the slab decomposition's.
#pragma once

#include <memory>

#include "kwave/streamed_grid_fields.hpp"
#include "portacl/kwave.hpp"
#include "slab_fft.hpp"
#include "slab_layout.hpp"

namespace portacl::kwave::distributed {

// The bell over `planes` overlap planes, from the subdomain's end inwards: smoothly from near 0 to
// near 1 (an erfc step over the overlap); the rank's own planes have 1.
PORTACL_API std::vector<double> bellPlanes(std::size_t planes);

// Refuses (EveryRankError, one sentence) an overlap of 0 or one larger than the smallest slab, whose
// rank's neighbour could not fill it.
void checkOverlap(const SlabLayout& layout, std::size_t overlap);
// The overlap planes every rank holds below and above its slab: `overlap` where it has a neighbour,
// one side grown by as many more planes of that neighbour's slab as make the planes held a product
// of 2, 3, 5, 7, 11 and 13 (the upper side; the last rank's lower one), when its slab has them, so
// that each rank's transforms along the slab axis take the FFT libraries' own radices (clFFT has no
// others). The same on every rank.
struct PORTACL_API OverlapPlan {  // exported for the distributed tests
    OverlapPlan(const SlabLayout& layout, std::size_t overlap);
    std::vector<std::size_t> below, above;  // per rank
};
// The planes `rank` holds: its slab and its overlap planes (slabPlanes' answer).
PlaneRange lfbPlanes(const Grid& grid, int rankCount, int rank, std::size_t overlap);

class PORTACL_API LfbSolver {  // exported for the distributed tests
public:
    LfbSolver(Context& ctx, const Simulation& sim, const RunOptions& options);  // options.overlap planes
    ~LfbSolver();
    LfbSolver(const LfbSolver&) = delete;
    LfbSolver& operator=(const LfbSolver&) = delete;

    std::size_t timeIndex() const;
    std::size_t completedSteps();
    bool done() const;
    void step();
    void run(std::size_t endStep = 0, const std::function<bool(std::size_t)>& stop = {});
    // As DistributedSolver's: rank 0 gets the whole sensor's recording; gridFields streams the
    // whole-grid datasets (each rank's own planes, the overlap left out).
    Recording recording(bool withGridFields = true);
    StreamedGridFields gridFields(std::size_t roundBytes = std::size_t(256) << 20);
    // As DistributedSolver's: saveState gathers every rank's own planes into the whole grid's state on
    // rank 0 (empty elsewhere), marked with this decomposition; restoreState takes the whole state on
    // every rank and keeps its held planes, and refuses (EveryRankError) one of other ranks, another
    // overlap or another decomposition.
    KSpaceSolver::State saveState();
    void restoreState(const KSpaceSolver::State& state);
    std::size_t deviceBytes() const;
    // The overlap exchanges: waiting for the planes' reads (with the device work queued before them),
    // MPI's part, the fields exchanged, the bytes through host memory and the device's wait for the
    // planes written back (waits for the queues).
    const TransposeTimes& transposeTimes() const;
    const std::string& exchangeMethod() const;

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

}  // namespace portacl::kwave::distributed
