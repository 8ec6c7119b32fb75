// Start and end of a rank's MPI session, the clock and the environment's queries.
#include <cstdio>
#include <cstring>
#include <stdexcept>
#include <string>

#include "mpi/state.hpp"

using namespace vmc;
using namespace vmc::mpi;

namespace {

// Tags of the groups MPI makes for itself with Comm::create_group are negative: no user tag
// (MPI_Comm_create_group's) can be one.
constexpr std::int64_t kSelfTag = -1;

}  // namespace

extern "C" {

int MPI_Init(int*, char***) {
  const char* fn = "MPI_Init";
  return mpi_call(MPI_COMM_NULL, [&] {
    Node& n = node_or_fail(fn);
    RankState& s = rank_state(n);
    if (s.initialized) fail(fn, MPI_ERR_OTHER, "MPI is already initialized");
    s.initialized = true;
    const int me = n.world().rank();
    s.comms.clear();
    s.comms.push_back(CommEntry{});                                      // MPI_COMM_NULL
    s.comms.push_back(CommEntry{n.world(), "MPI_COMM_WORLD"});           // MPI_COMM_WORLD
    s.comms.push_back(CommEntry{n.world().create_group({&me, 1}, kSelfTag),
                                "MPI_COMM_SELF"});                       // MPI_COMM_SELF
    return MPI_SUCCESS;
  });
}

int MPI_Initialized(int* flag) {
  return mpi_call(MPI_COMM_NULL, [&] {
    *flag = rank_state(node_or_fail("MPI_Initialized")).initialized ? 1 : 0;
    return MPI_SUCCESS;
  });
}

int MPI_Finalize(void) {
  return mpi_call(MPI_COMM_NULL, [&] {
    RankState& s = rank_state(rank_in_session("MPI_Finalize"));
    finish_point_to_point(s);  // buffered sends still in flight
    s.finalized = true;
    return MPI_SUCCESS;
  });
}

int MPI_Finalized(int* flag) {
  return mpi_call(MPI_COMM_NULL, [&] {
    *flag = rank_state(node_or_fail("MPI_Finalized")).finalized ? 1 : 0;
    return MPI_SUCCESS;
  });
}

int MPI_Abort(MPI_Comm comm, int errorcode) {
  Node& n = node_or_fail("MPI_Abort");
  record_abort(n.rank(), errorcode);
  throw std::runtime_error("rank " + std::to_string(n.rank()) + " called MPI_Abort(" +
                           (comm == MPI_COMM_SELF ? std::string("MPI_COMM_SELF")
                                                  : std::string("MPI_COMM_WORLD")) +
                           ", " + std::to_string(errorcode) + ")");
}

double MPI_Wtime(void) { return node_or_fail("MPI_Wtime").world().now(); }

double MPI_Wtick(void) { return 1e-12; }  // the clock counts picoseconds

int MPI_Get_processor_name(char* name, int* resultlen) {
  return mpi_call(MPI_COMM_NULL, [&] {
    Node& n = node_or_fail("MPI_Get_processor_name");
    const std::string s = "vmc-node-" + std::to_string(n.rank());
    std::snprintf(name, MPI_MAX_PROCESSOR_NAME, "%s", s.c_str());
    *resultlen = static_cast<int>(std::strlen(name));
    return MPI_SUCCESS;
  });
}

}  // extern "C"
