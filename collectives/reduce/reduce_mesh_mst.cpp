// reduce mesh_mst: 004 §11 MST reduction-to-one, the MST broadcast reversed: the leaves of
// the recursive-splitting tree of the group's mesh (004 §5.1, patterns/mesh_mst.hpp) send
// their vectors to their parents, which combine them with their own and pass the result on
// until the root has the reduction of every node's vector.
//
// Order: the tree of the inward flow splits the rank order, so every subtree is a range of
// ranks and a node combines each child's range on its side of its own: the root gets
// x0 op x1 op ... op x(p-1) for any root and any op, commutative or not.
// Requires: nothing.
// Cost: 004 §11 gives ceil(log2 p)(alpha + n (beta + gamma)). The cost function evaluates the
// tree (mesh/mst.hpp, mst_reduce_cost): a node takes its children from the last
// step's to the first's, combining each; a child whose subtree is smaller than the
// receiver's remaining part is done early and its eager message arrives while the receiver
// combines, so for p not a power of two and gamma > 0 the time is below 004's formula
// (equal to it for p = 2^k or gamma = 0). 0 for n = 0. Exact on private links under
// exchange, duplex and half ports, and on the group's own mesh where the tree is
// contention-free (mst_claim); under all-port nodes only on private links.
#include "collectives/mesh/mst.hpp"
#include "collectives/primitives/buffers.hpp"
#include "collectives/reduce/reduce_internal.hpp"

namespace vmc::internal {

bool applicable_reduce_mesh_mst(const CostQuery&) { return true; }

Picos cost_reduce_mesh_mst(const CostQuery& q) {
  if (q.n == 0) return 0;
  return mst_reduce_cost(q, mst_tree(q, patterns::MstFlow::inward), q.n);
}

void run_reduce_mesh_mst(const Call& call) {
  const Comm& c = *call.comm;
  if (call.n == 0) return;
  const patterns::MstTree tree = mst_tree(c, call.root, patterns::MstFlow::inward);
  auto acc = contribution(call, call.n);
  auto tmp = scratch(call, call.n);
  mst_reduce(c, whole(tree, c), acc.data(), tmp.data(), call.n, call.item_size, *call.op,
             call.tag);
  if (c.rank() == call.root) deliver(call, acc);
}

Claim claim_reduce_mesh_mst(const CostQuery& q) { return mst_claim(q, Claim::exact, true); }

Algorithm reduce_mesh_mst_row() {
  return {
      .name = "mesh_mst",
      .description = "up 004 §5.1's recursive-splitting MST of the group's mesh, combining in "
                     "rank order (004 §11): at most ceil(log2 p)(alpha + n (beta + gamma))",
      .requirements = "nothing",
      .applicable = applicable_reduce_mesh_mst,
      .cost = cost_reduce_mesh_mst,
      .run = run_reduce_mesh_mst,
      .claim = claim_reduce_mesh_mst,
  };
}

}  // namespace vmc::internal
