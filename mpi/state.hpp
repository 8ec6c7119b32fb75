// What the MPI functions share: each rank's state (its session, its communicators and the
// other objects its handles name), the predefined datatypes, and the checks every function
// makes of its arguments.
//
// The calling rank is the node whose function runs (vmc::this_node()); its world rank is its
// MPI rank and indexes the table of rank states, which begin_job (mpi/job.hpp) sizes before
// the run. A rank touches only its own entry, so no lock is needed; handles are per rank (a
// handle's value on one rank says nothing of another's).
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "mpi/errors.hpp"
#include "mpi/include/mpi.h"
#include "mpi/pt2pt.hpp"
#include "runtime/comm.hpp"
#include "runtime/machine.hpp"

namespace vmc::mpi {

// A communicator handle's object: index = handle (0 MPI_COMM_NULL, 1 MPI_COMM_WORLD,
// 2 MPI_COMM_SELF, then the ones the rank made). Freed ones stay, marked, so that a call on
// them says so.
struct CommEntry {
  Comm comm;  // vmc's comm (invalid for MPI_COMM_NULL and once freed)
  std::string name;
  bool freed = false;
};

struct RankState {
  bool initialized = false;
  bool finalized = false;
  std::vector<CommEntry> comms;

  // --- point to point (mpi/pt2pt.cpp): requests, matched messages, the Bsend buffer --------
  PointToPointState p2p;
};

// The calling rank's node, or an error: no node runs this thread.
Node& node_or_fail(const char* function);
// Records the first rank that called MPI_Abort and its code, for end_job.
void record_abort(int rank, int code);
// The calling rank's state (its node's world rank).
RankState& rank_state(const Node& node);
// The calling rank, checked to be between MPI_Init and MPI_Finalize.
Node& rank_in_session(const char* function);

// The communicator `comm` names on this rank, or an error (MPI_ERR_COMM): null, unknown or
// freed.
const CommEntry& comm_or_fail(const char* function, RankState& state, MPI_Comm comm);

// A predefined datatype: its name and size.
struct TypeInfo {
  const char* name;
  std::size_t size;
};
std::optional<TypeInfo> type_info(MPI_Datatype t);
TypeInfo type_or_fail(const char* function, MPI_Datatype t);

void check_count(const char* function, int count);
// A null buffer is an error when it must hold items.
void check_buffer(const char* function, const void* buf, int count);
// r is a rank of `comm` (error class `error_class`: MPI_ERR_RANK, MPI_ERR_ROOT; `what`
// names the argument: "destination", "root").
void check_rank(const char* function, int error_class, const char* what, int r,
                const Comm& comm);

// What every call that moves data checks first, in this order: the rank's session, the
// communicator, the count, the datatype.
struct DataCall {
  const Comm& comm;
  TypeInfo t;
};
DataCall data_call(const char* function, MPI_Comm comm, int count, MPI_Datatype datatype);

// Runs an MPI function's body, which returns its result (MPI_SUCCESS) or throws MpiError
// (fail); an MpiError is raised through the error handler of `comm` and its class returned.
template <class Body>
int mpi_call(MPI_Comm comm, Body&& body) {
  try {
    return body();
  } catch (const MpiError& e) {
    return raise_error(e.function(), comm, e.error_class(), e.text());
  }
}

}  // namespace vmc::mpi
