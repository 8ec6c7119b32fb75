// Point to point: sends, receives and their statuses.
#include <string>

#include "mpi/state.hpp"

using namespace vmc;
using namespace vmc::mpi;

namespace {

void set_status(MPI_Status* status, int source, int tag, std::size_t bytes) {
  if (status == MPI_STATUS_IGNORE) return;
  status->MPI_SOURCE = source;
  status->MPI_TAG = tag;
  status->MPI_ERROR = MPI_SUCCESS;
  status->vmc_bytes = static_cast<long long>(bytes);
}

}  // namespace

extern "C" {

int MPI_Type_size(MPI_Datatype datatype, int* size) {
  *size = static_cast<int>(type_or_fail("MPI_Type_size", datatype).size);
  return MPI_SUCCESS;
}

int MPI_Send(const void* buf, int count, MPI_Datatype datatype, int dest, int tag,
             MPI_Comm comm) {
  const char* fn = "MPI_Send";
  const auto [c, t] = data_call(fn, comm, count, datatype);
  check_buffer(fn, buf, count);
  if (tag < 0) fail(fn, MPI_ERR_TAG, "negative tag " + std::to_string(tag));
  if (dest == MPI_PROC_NULL) return MPI_SUCCESS;
  check_rank(fn, MPI_ERR_RANK, "destination", dest, c);
  if (comm == MPI_COMM_SELF) {
    fail(fn, MPI_ERR_UNSUPPORTED_OPERATION, "messages on MPI_COMM_SELF are not supported yet");
  }
  const std::size_t items = static_cast<std::size_t>(count);
  c.send_raw(buf, items * t.size, items, dest, static_cast<Tag>(tag));
  return MPI_SUCCESS;
}

int MPI_Recv(void* buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm,
             MPI_Status* status) {
  const char* fn = "MPI_Recv";
  const auto [c, t] = data_call(fn, comm, count, datatype);
  check_buffer(fn, buf, count);
  if (source == MPI_ANY_SOURCE) {
    fail(fn, MPI_ERR_UNSUPPORTED_OPERATION,
         "MPI_ANY_SOURCE: receives from any source are not supported yet (give the source)");
  }
  if (tag == MPI_ANY_TAG) {
    fail(fn, MPI_ERR_UNSUPPORTED_OPERATION,
         "MPI_ANY_TAG: receives of any tag are not supported yet (give the tag)");
  }
  if (tag < 0) fail(fn, MPI_ERR_TAG, "negative tag " + std::to_string(tag));
  if (source == MPI_PROC_NULL) {
    set_status(status, MPI_PROC_NULL, MPI_ANY_TAG, 0);
    return MPI_SUCCESS;
  }
  check_rank(fn, MPI_ERR_RANK, "source", source, c);
  if (comm == MPI_COMM_SELF) {
    fail(fn, MPI_ERR_UNSUPPORTED_OPERATION, "messages on MPI_COMM_SELF are not supported yet");
  }
  const std::size_t bytes = c.recv_raw(buf, static_cast<std::size_t>(count) * t.size, t.size,
                                       source, static_cast<Tag>(tag));
  set_status(status, source, tag, bytes);
  return MPI_SUCCESS;
}

int MPI_Get_count(const MPI_Status* status, MPI_Datatype datatype, int* count) {
  const TypeInfo t = type_or_fail("MPI_Get_count", datatype);
  if (status == MPI_STATUS_IGNORE) fail("MPI_Get_count", MPI_ERR_ARG, "MPI_STATUS_IGNORE given");
  const long long bytes = status->vmc_bytes;
  *count = bytes % static_cast<long long>(t.size) == 0
               ? static_cast<int>(bytes / static_cast<long long>(t.size))
               : MPI_UNDEFINED;
  return MPI_SUCCESS;
}

}  // extern "C"
