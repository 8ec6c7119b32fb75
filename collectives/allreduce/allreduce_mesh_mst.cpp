// allreduce mesh_mst: 004 §12's "fan-in/fan-out" for short vectors: MST reduction-to-one to
// rank 0 (reduce mesh_mst), then MST broadcast of the result from rank 0 (broadcast
// mesh_mst), both on the recursive-splitting trees of the group's mesh (004 §5.1).
//
// Requires: nothing; non-commutative ops are combined in rank order (the reduction's
// subtrees are ranges of ranks).
// Cost: 004 §12: T_MST-REDUCTION-TO-ONE + T_MST-BROADCAST = ceil(log2 p)(2 alpha + n (2 beta +
// gamma)); evaluated as mst_reduce_cost (at most 004's reduction term, see reduce_mesh_mst)
// + ceil(log2 p)(alpha + n beta). The broadcast starts when rank 0 has the result, and
// every other node is idle by then. 0 for n = 0. Exact where both pieces are (mst_claim).
#include "collectives/mesh/mst.hpp"
#include "collectives/primitives/buffers.hpp"
#include "collectives/vocabulary/row.hpp"

namespace vmc::internal {

bool applicable_allreduce_mesh_mst(const CostQuery&) { return true; }

Picos cost_allreduce_mesh_mst(const CostQuery& q) {
  if (q.n == 0) return 0;
  CostQuery at0 = q;
  at0.root = 0;
  return mst_reduce_cost(at0, mst_tree(at0, patterns::MstFlow::inward), q.n) +
         mst_bcast_cost(at0, mst_tree(at0, patterns::MstFlow::outward), q.n);
}

void run_allreduce_mesh_mst(const Call& call) {
  const Comm& c = *call.comm;
  if (call.n == 0) return;
  const patterns::MstTree in = mst_tree(c, 0, patterns::MstFlow::inward);
  const patterns::MstTree out = mst_tree(c, 0, patterns::MstFlow::outward);
  auto acc = contribution(call, call.n);
  auto tmp = scratch(call, call.n);
  mst_reduce(c, whole(in, c), acc.data(), tmp.data(), call.n, call.item_size, *call.op,
             call.tag);
  mst_bcast(c, whole(out, c), acc.data(), call.n, call.item_size, call.tag + 1);
  deliver(call, acc);
}

Claim claim_allreduce_mesh_mst(const CostQuery& q) { return mst_claim(q, Claim::exact, true); }

Algorithm allreduce_mesh_mst_row() {
  return {
      .name = "mesh_mst",
      .description = "MST reduction to rank 0, then MST broadcast, on the group's mesh (004 §12 "
                     "fan-in/fan-out)",
      .requirements = "nothing",
      .applicable = applicable_allreduce_mesh_mst,
      .cost = cost_allreduce_mesh_mst,
      .run = run_allreduce_mesh_mst,
      .claim = claim_allreduce_mesh_mst,
  };
}

}  // namespace vmc::internal
