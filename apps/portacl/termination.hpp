// A command that a signal ends (mpirun's SIGTERM to the other ranks when one died, Ctrl-C, a batch
// scheduler's SIGTERM at the end of its time) leaves none of its outputs' temporaries behind: the
// handler wakes a thread that removes them (removeUncommittedTemporaries), and the process then ends
// by the same signal, with the status a shell or mpirun expects.
#pragma once

namespace portacl::cli {

// Installs the handlers for SIGTERM, SIGINT and SIGHUP and starts the thread that acts on them.
// Called once by main, after MPI has started.
void removeTemporariesOnSignals();

}  // namespace portacl::cli
