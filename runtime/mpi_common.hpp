// What the MPI transport and the spread machine share (mpi_common.cpp; built with MPI only).
#pragma once

#include <mpi.h>

#include "runtime/machine.hpp"

namespace vmc::detail {

// The communicator whose processes run a machine (MachineConfig::mpi_communicator).
MPI_Comm base_communicator(const MachineConfig& c);
// Starts MPI (MPI_THREAD_MULTIPLE) when the program has not, and finishes it at exit.
void ensure_mpi();
// A UsageError naming the MPI call and MPI's text for `code`.
[[noreturn]] void mpi_failed(const char* call, int code);
// mpi_failed unless code is MPI_SUCCESS.
void check(int code, const char* call);
// The pause of a wait that has lasted `waited` seconds: a yield of the core for the first
// `spin` seconds, then sleeps growing from 20 us to 1 ms.
void back_off(double waited, double spin);
// The processes of `comm` on this host (MPI_COMM_TYPE_SHARED).
int processes_here(MPI_Comm comm);

}  // namespace vmc::detail
