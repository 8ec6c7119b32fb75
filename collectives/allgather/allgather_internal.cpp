// Helpers of the allgather algorithms.
#include "collectives/allgather/allgather_internal.hpp"

namespace vmc::internal {

Blocks prepare_allgather(const Call& call) {
  const int p = call.comm->size(), r = call.comm->rank();
  Blocks b = call.recv_counts.empty() ? Blocks::equal(call.n, p)
                                      : Blocks::explicit_layout(call.recv_counts, call.recv_displs);
  if (call.send != nullptr) {
    copy_items(at(call.recv, b.displs[r], call.item_size), call.send, b.counts[r], call.item_size);
  }
  return b;
}

}  // namespace vmc::internal
