// The public header's view of the job's ranks (kwave/distributed.hpp): the process's World of the
// cluster layer (portacl/cluster/world.hpp), which starts MPI on first use.
#include "portacl/cluster/collectives.hpp"
#include "portacl/kwave/distributed.hpp"

namespace portacl::kwave::distributed {

bool launchedByMpi() { return cluster::launchedByMpi(); }
int rank() { return cluster::World::process().rank(); }
int ranks() { return cluster::World::process().size(); }
int localRank() { return cluster::World::process().localRank(); }
void abortAll(int code) { cluster::abortAll(code); }

}  // namespace portacl::kwave::distributed
