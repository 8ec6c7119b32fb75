// Helpers of the gather algorithms.
#include "collectives/gather/gather_internal.hpp"

namespace vmc::internal {

Blocks gather_layout(const Call& call) {
  if (call.recv_counts.empty()) return Blocks::equal(call.n, call.comm->size());
  return Blocks::explicit_layout(call.recv_counts, call.recv_displs);
}

}  // namespace vmc::internal
