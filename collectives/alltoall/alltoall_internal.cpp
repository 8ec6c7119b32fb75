// Helpers of the alltoall algorithms.
#include "collectives/alltoall/alltoall_internal.hpp"

namespace vmc::internal {

Blocks alltoall_send_layout(const Call& call) {
  if (call.send_counts.empty()) return Blocks::equal(call.n, call.comm->size());
  return Blocks::explicit_layout(call.send_counts, call.send_displs);
}
Blocks alltoall_recv_layout(const Call& call) {
  if (call.recv_counts.empty()) return Blocks::equal(call.n, call.comm->size());
  return Blocks::explicit_layout(call.recv_counts, call.recv_displs);
}

}  // namespace vmc::internal
