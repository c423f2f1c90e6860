// The job's MPI communicator, for code that exchanges data over MPI itself (a distributed solver).
// Only in builds with MPI (PORTACL_WITH_MPI); its users include <mpi.h>'s folder (MPI::MPI_C).
#pragma once

#ifndef OMPI_SKIP_MPICXX
#define OMPI_SKIP_MPICXX 1  // the C API alone
#endif
#ifndef MPICH_SKIP_MPICXX
#define MPICH_SKIP_MPICXX 1
#endif
#include <mpi.h>

#include "portacl/cluster/world.hpp"

namespace portacl::cluster {

// Every rank of the job. Valid while `world` runs MPI (world.distributed(), or MPI_Initialized).
inline MPI_Comm communicator(const World&) { return MPI_COMM_WORLD; }

}  // namespace portacl::cluster
