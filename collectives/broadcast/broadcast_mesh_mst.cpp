// broadcast mesh_mst: 004 §9 MST broadcast. The whole vector goes down the recursive-
// splitting minimum spanning tree of the group's mesh (004 §5.1, patterns/mesh_mst.hpp):
// each partition is cut in two halves along its slowest dimension, the holder sends the
// vector to the other half's node next to the cut, and both halves go on alone.
//
// Requires: nothing (any p, root and n; a group that is not a whole mesh is a linear
// array, 004 §15.3).
// Cost: ceil(log2 p)(alpha + n beta) (004 §9, T_MST-BROADCAST); 0 for n = 0. Exact on every
// port model on private links, and on the group's own mesh under wormhole routing where
// the tree is contention-free: every mesh, ring and complete hypercube, and tori whose
// lengths are all powers of two (mesh/mst.hpp, mst_claim).
#include "collectives/broadcast/broadcast_internal.hpp"
#include "collectives/mesh/mst.hpp"

namespace vmc::internal {

bool applicable_broadcast_mesh_mst(const CostQuery&) { return true; }

Picos cost_broadcast_mesh_mst(const CostQuery& q) {
  if (q.n == 0) return 0;
  return mst_bcast_cost(q, mst_tree(q, patterns::MstFlow::outward), q.n);
}

void run_broadcast_mesh_mst(const Call& call) {
  const Comm& c = *call.comm;
  if (call.n == 0) return;
  const patterns::MstTree tree = mst_tree(c, call.root, patterns::MstFlow::outward);
  mst_bcast(c, whole(tree, c), call.recv, call.n, call.item_size, call.tag);
}

Claim claim_broadcast_mesh_mst(const CostQuery& q) { return mst_claim(q, Claim::exact, false); }

Algorithm broadcast_mesh_mst_row() {
  return {
      .name = "mesh_mst",
      .description = "the vector down 004 §5.1's recursive-splitting MST of the group's mesh (004 "
                     "§9): ceil(log2 p)(alpha + n beta)",
      .requirements = "nothing",
      .applicable = applicable_broadcast_mesh_mst,
      .cost = cost_broadcast_mesh_mst,
      .run = run_broadcast_mesh_mst,
      .claim = claim_broadcast_mesh_mst,
  };
}

}  // namespace vmc::internal
