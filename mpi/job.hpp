// The host's side of the MPI front door (libvmc_mpi): what the program that runs the ranks
// (vmc mpirun, tests) calls around a run. The MPI functions themselves are in mpi/mpi.cpp
// behind mpi/include/mpi.h.
//
// libvmc_mpi is a shared library that the host executable links (so that the program copies
// bind their MPI calls to it, mpi/program.hpp) and that leaves vmc's runtime and collectives
// to the host: its references to them are resolved against the executable, which links
// vmc_runtime and vmc_collectives (static), so that one runtime serves both (one
// vmc::this_node(), one current node per thread). A host must link them and export what the
// library uses (linking the library before them does: the linker then takes what it needs).
#pragma once

#include <string>
#include <vector>

namespace vmc::mpi {

// Before a run of `ranks` ranks: every rank not initialized, not finalized. Not during one.
void begin_job(int ranks);
// After the run: the ranks that called MPI_Init but not MPI_Finalize.
std::vector<int> unfinalized_ranks();

}  // namespace vmc::mpi
