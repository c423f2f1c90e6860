// The k-Wave time loop on one rank's slab (the one-device solver's kernels of cl/kwave.cl, its
// generic path without the fused transforms): real-space updates, sources and sensor points on the
// slab; the k-space operators applied to the rank's slab of the transposed spectrum (SlabFft), where
// the kernels see the axes in transposed order (slowest, then the rest) and the operators are laid out
// to match. Every rank constructs it and calls step() the same number of times (the transforms are
// collective). recording() gathers the whole sensor's output on rank 0.
#pragma once

#include <memory>

#include "portacl/kwave.hpp"
#include "kwave/streamed_grid_fields.hpp"
#include "slab_fft.hpp"

namespace portacl::kwave::distributed {

class PORTACL_API DistributedSolver {  // exported for the distributed tests
public:
    DistributedSolver(Context& ctx, const Simulation& sim, const RunOptions& options);
    ~DistributedSolver();
    DistributedSolver(const DistributedSolver&) = delete;
    DistributedSolver& operator=(const DistributedSolver&) = delete;

    std::size_t timeIndex() const;
    std::size_t completedSteps() const { return timeIndex(); }  // each step waits for its transposes
    bool done() const;
    void step();
    // Steps until `endStep` (0 = Nt) or until `stop(timeIndex)` is true after a step (the same answer
    // on every rank: the caller's decision must be collective), then the finite check.
    void run(std::size_t endStep = 0, const std::function<bool(std::size_t)>& stop = {});
    // The whole sensor's recording on rank 0, in the one-device solver's layout; empty elsewhere.
    // Without `withGridFields`, the whole-grid datasets (*_max_all, *_min_all, *_final) are left out:
    // gridFields() streams them instead.
    Recording recording(bool withGridFields = true);
    // The whole-grid datasets streamed to rank 0 a block of planes at a time (a round of blocks, one
    // from each rank, holds at most about `roundBytes` there, and at least a plane from each), for
    // the output file; every rank calls `write` for each name in turn (collective).
    StreamedGridFields gridFields(std::size_t roundBytes = std::size_t(256) << 20);
    // Checkpoints in the one-device solver's layout (whole-grid fields, the whole sensor's
    // recording), so that a run continues on any rank count, one device included. saveState gathers
    // on rank 0 (empty elsewhere); restoreState takes the whole state on every rank and keeps its slab.
    KSpaceSolver::State saveState();
    void restoreState(const KSpaceSolver::State& state);
    std::size_t deviceBytes() const;     // this rank's
    const TransposeTimes& transposeTimes() const;  // this rank's transposes so far
    const std::string& exchangeMethod() const;     // how the transposes' blocks move between the ranks

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

}  // namespace portacl::kwave::distributed
