// Communicators and groups.
#include "mpi/state.hpp"

using namespace vmc;
using namespace vmc::mpi;

extern "C" {

int MPI_Comm_rank(MPI_Comm comm, int* rank) {
  const char* fn = "MPI_Comm_rank";
  return mpi_call(comm, [&] {
    Node& n = rank_in_session(fn);
    *rank = comm_or_fail(fn, rank_state(n), comm).comm.rank();
    return MPI_SUCCESS;
  });
}

int MPI_Comm_size(MPI_Comm comm, int* size) {
  const char* fn = "MPI_Comm_size";
  return mpi_call(comm, [&] {
    Node& n = rank_in_session(fn);
    *size = comm_or_fail(fn, rank_state(n), comm).comm.size();
    return MPI_SUCCESS;
  });
}

}  // extern "C"
