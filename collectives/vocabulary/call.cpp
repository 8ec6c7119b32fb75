// The query of a running call (call.hpp).
#include "collectives/vocabulary/call.hpp"

namespace vmc {

CostQuery call_query(const Call& call) {
  const bool counts = !call.recv_counts.empty();
  CostQuery q = make_query(*call.comm, counts ? 0 : call.n, call.root, call.item_size,
                           call.op, false, *call.options);
  if (counts) q.counts.assign(call.recv_counts.begin(), call.recv_counts.end());
  return q;
}

}  // namespace vmc
