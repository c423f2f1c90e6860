// k-Wave over several MPI ranks, one device each (built with PORTACL_WITH_MPI): the fields split in
// slabs along the slowest axis, the 3-D transforms distributed with one global transpose each
// (docs/kwave.md, "Several devices"). `mpirun -n R portacl kwave ...` runs it; with one rank the
// command runs the one-device solver.
#pragma once

#include "portacl/export.hpp"

#include <cstddef>
#include <string>

#include "portacl/kwave.hpp"
#include "portacl/kwave/run.hpp"
#include "portacl/runtime/error.hpp"

namespace portacl::kwave::distributed {

// True when an MPI launcher (mpirun, mpiexec, srun) started this process; MPI is not started by it.
PORTACL_API bool launchedByMpi();
// MPI_COMM_WORLD's rank, size, and the rank among the ranks on this host (to pick a device by);
// the first call starts MPI (ended at exit).
PORTACL_API int rank();
PORTACL_API int ranks();
PORTACL_API int localRank();
// Ends every rank with `code` (after an error seen on some ranks only).
[[noreturn]] PORTACL_API void abortAll(int code);

// A refusal every rank raises alike (a grid the ranks cannot hold, an option distributed runs do not
// take), so that a command prints it once and every rank ends without waiting for the others.
class PORTACL_API EveryRankError : public Error {
public:
    using Error::Error;
};

// The planes of the slowest axis that `rank` of `rankCount` holds (its slab): what it reads of each
// per-point dataset of the input (readInputFile's `planesOf`). Throws when the grid cannot be split so.
// With `overlap` (the local Fourier basis decomposition), its slab and `overlap` planes of each
// neighbour's; throws EveryRankError when the overlap is larger than the smallest slab.
PORTACL_API PlaneRange slabPlanes(const Grid& grid, int rankCount, int rank, std::size_t overlap = 0);

// Device bytes one rank needs for `sim` split over `rankCount` ranks (the fields, spectra, transpose
// buffer, medium, operators and p0 of its slab; the sensor's buffers not included).
PORTACL_API std::size_t bytesPerRank(const Simulation& sim, const RunOptions& options, int rankCount);
// The fewest ranks whose devices of `deviceBytes` each hold `sim`, or 0 when no split along the
// slowest axis does.
PORTACL_API int ranksToFit(const Simulation& sim, const RunOptions& options, std::size_t deviceBytes);

// The whole run (kwave::run's) on every rank: each rank's ctx is its device; rank 0 writes the
// output file and the checkpoints. Collective: every rank calls it. A checkpoint holds whole-grid
// fields, as a one-device run's does, so a run continues on any rank count.
PORTACL_API RunSummary run(Context& ctx, const Simulation& sim, const RunPlan& plan, const RunObserver& observer = {});

}  // namespace portacl::kwave::distributed
