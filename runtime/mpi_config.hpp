// What the MPI transport and the spread machine ask of a machine's configuration, checked
// before the machine's topology is made, in any build (mpi_config.cpp; MPI's side in
// mpi_common.cpp, or no_mpi.cpp without MPI). Internal.
#pragma once

#include "runtime/machine.hpp"

namespace vmc::detail {

// The MPI transport: refuses the real clock and timing-only runs; one node per process, so a
// machine given no topology gets as many nodes as processes.
void check_mpi_config(MachineConfig& config);
// The spread machine: refuses the real clock.
void check_spread_config(MachineConfig& config);

// The size of the communicator a machine runs on (MachineConfig::mpi_communicator, else
// MPI_COMM_WORLD) and this process's rank in it, starting MPI when the program has not. Throw
// UsageError when vmc was built without MPI.
int mpi_processes(const MachineConfig& c);
int mpi_process_rank(const MachineConfig& c);

}  // namespace vmc::detail
