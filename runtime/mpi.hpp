// For programs that use MPI themselves: a machine on the processes of any MPI communicator.
//
//   MPI_Comm half;                       // say, from MPI_Comm_split
//   vmc::MachineConfig c;
//   c.transport = vmc::Transport::spread;
//   c.topology = vmc::parse_topology("hypercube:1024");
//   vmc::Machine m(vmc::on_communicator(c, half));   // its 1024 nodes over half's processes
//
// The program must start MPI with MPI_THREAD_MULTIPLE for a spread machine (its progress
// thread and the thread that runs it both call MPI); vmc starts it so when the program has not.
// Needs vmc built with MPI.
#pragma once

#include <mpi.h>

#include "runtime/machine.hpp"

namespace vmc {

// c, to run on the processes of comm (MachineConfig::mpi_communicator).
inline MachineConfig on_communicator(MachineConfig c, MPI_Comm comm) {
  c.mpi_communicator = static_cast<int>(MPI_Comm_c2f(comm));
  return c;
}

}  // namespace vmc
