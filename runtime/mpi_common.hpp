// What the MPI transport and the spread machine share (mpi_common.cpp; built with MPI only).
#pragma once

#include <mpi.h>

#include <array>
#include <vector>

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
// How many processes of a communicator run on this host: every process's processor name
// (MPI_Get_processor_name), gathered by a nonblocking allgather so that the wait for it can
// be bounded; count() once `request` completed.
struct HostNames {
  std::array<char, MPI_MAX_PROCESSOR_NAME> mine{};
  std::vector<char> all;
  MPI_Request request = MPI_REQUEST_NULL;
  explicit HostNames(MPI_Comm comm);
  int count() const;
};
// The processes of `comm` on this host (HostNames, waited for without a bound).
int processes_here(MPI_Comm comm);
// Waits for every request of `requests` for at most `seconds` (back_off between tests);
// whether they all completed.
bool wait_within(std::vector<MPI_Request>& requests, double seconds, double spin);

}  // namespace vmc::detail
