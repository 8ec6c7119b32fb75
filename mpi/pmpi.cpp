// The profiling interface: PMPI_<name> for every function of the tables
// (include/vmc_mpi_functions.h, include/vmc_mpi_removed_functions.h), each calling <name>,
// so that a tool that defines MPI_Send itself still reaches vmc's through PMPI_Send.
#include "mpi/include/mpi.h"

extern "C" {

#define VMC_MPI_FORWARD(ret, name, params, args, comm) \
  ret P##name params { return name args; }
#define VMC_MPI_IMPLEMENTED(ret, name, params, args, comm) VMC_MPI_FORWARD(ret, name, params, args, comm)
#define VMC_MPI_UNSUPPORTED(ret, name, params, args, comm) VMC_MPI_FORWARD(ret, name, params, args, comm)
#include "mpi/include/vmc_mpi_functions.h"
#include "mpi/include/vmc_mpi_removed_functions.h"
#undef VMC_MPI_IMPLEMENTED
#undef VMC_MPI_UNSUPPORTED
#undef VMC_MPI_FORWARD

}  // extern "C"
