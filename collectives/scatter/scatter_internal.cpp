// Helpers of the scatter algorithms.
#include "collectives/scatter/scatter_internal.hpp"

namespace vmc::internal {

Blocks scatter_layout(const Call& call) {
  if (call.send_counts.empty()) return Blocks::equal(call.n, call.comm->size());
  return Blocks::explicit_layout(call.send_counts, call.send_displs);
}

}  // namespace vmc::internal
