// The host's side of the MPI front door (libvmc_mpi): what the program that runs the ranks
// (vmc mpirun, tests) calls around a run. The MPI functions themselves are in mpi/*.cpp
// behind mpi/include/mpi.h.
//
// libvmc_mpi is a shared library that the host executable links (so that the program copies
// bind their MPI calls to it, mpi/program.hpp) and that leaves vmc's runtime and collectives
// to the host: its references to them are resolved against the executable, which links
// vmc_runtime and vmc_collectives (static), so that one runtime serves both (one
// vmc::this_node(), one current node per thread). A host must link them and export what the
// library uses (linking the library before them does: the linker then takes what it needs).
#pragma once

#include <cstddef>
#include <map>
#include <string>
#include <vector>

namespace vmc::mpi {

// What a job's ranks share, set by the host before the run.
struct JobOptions {
  int ranks = 0;
  // The algorithm each collective runs, by vmc's operation name ("allreduce" -> "ring",
  // from `vmc mpirun --coll`); an operation not named runs `auto`.
  std::map<std::string, std::string> algorithms;
  // `vmc mpirun --shared-malloc BYTES` (timing only): the program's malloc and calloc of at
  // least this many bytes return shared blocks (mpi/shared_malloc.cpp); 0: libc's.
  std::size_t shared_malloc = 0;
};

// The threshold of the shared allocations from now on (0: none); begin_job sets the job's.
void set_shared_malloc(std::size_t threshold);
// What the job's shared allocations did, for end_job's notes ("--shared-malloc 4096: 2048
// blocks of the program (2048.0 MiB asked for) shared one memory of 16 MiB"); "" when off.
std::string shared_malloc_note();

// Before a run: every rank not initialized, not finalized, the options in force. Not during
// a run.
void begin_job(const JobOptions& options);

// After the run: what the ranks left.
struct JobOutcome {
  std::vector<int> unfinalized;  // called MPI_Init but not MPI_Finalize
  int abort_rank = -1;           // the first rank that aborted the job, or -1
  int abort_code = 0;            // ... and the code it gave
  bool abort_by_handler = false;  // ... through MPI_ERRORS_ABORT (an error), not MPI_Abort
  // What the MPI layer decided for the run that its user should know, each line once, in the
  // order first made ("MPI_Cart_create placed a grid of 4 x 4 on the machine: ...").
  std::vector<std::string> notes;
};
JobOutcome end_job();

}  // namespace vmc::mpi
