// What the MPI transport and the spread machine refuse of a configuration (mpi_config.hpp).
#include "runtime/mpi_config.hpp"

namespace vmc::detail {

void check_mpi_config(MachineConfig& config) {
  if (config.clock == Clock::real_time) {
    throw UsageError("Machine: the MPI transport runs on the real network and its own clock "
                     "(MPI_Wtime); the real clock is the local transport's emulation of one");
  }
  if (config.data == Data::none) {
    throw UsageError("Machine: the MPI transport moves the data (timing-only runs, data "
                     "none, are the local transport's)");
  }
  if (perturbed(config.model)) {
    throw UsageError("Machine: the MPI transport runs on the real network, whose stragglers are "
                     "its own: skew, slow nodes and noise are the local and spread machines'");
  }
  const int processes = mpi_processes(config);  // throws when vmc was built without MPI
  if (config.topology == nullptr && config.nodes == 0) config.nodes = processes;
}

void check_spread_config(MachineConfig& config) {
  if (config.clock == Clock::real_time) {
    throw UsageError("Machine: a machine spread over MPI processes runs the virtual clock only: "
                     "the real clock holds link and port tokens for real, and a token held in "
                     "one process cannot be held by a node of another without a round trip "
                     "between them, which would be the network's time, not the model's");
  }
  mpi_processes(config);  // throws when vmc was built without MPI
}

}  // namespace vmc::detail
