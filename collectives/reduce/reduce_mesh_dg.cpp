// reduce mesh_dg: 004 §11 DG (distributed reduction - gather) reduction-to-one, the SC
// broadcast reversed: a DR distributed reduction over the group's mesh, the highest
// dimension first (internal/mesh_rings.hpp, dr_reduce_scatter: a ring along each line, 004
// §6.1), leaves every node with its own block of the result; then the blocks are MST-
// gathered within each dimension, the lowest first, until the whole result is at the root
// (internal/mesh_mst.hpp, mst_gather_dims).
//
// Requires: a commutative op (the rings combine a block starting after its owner). Any p,
// root and n; a group that is not a whole mesh is a linear array. Blocks are ceil(n/p)
// items (the last ones padded with zero bytes, combined and dropped).
// Cost: 004 §11, T_DG-REDUCTION-TO-ONE = (sum_i (ceil(log2 m_i) + m_i - 1)) alpha +
// (p-1)/p n (2 beta + gamma); with b = ceil(n/p): dr_reduce_scatter_cost + mst_gather_dims_
// cost = sum_i (m_i - 1)(alpha + stride_i b (beta + gamma)) + sum_i ceil(log2 m_i) alpha +
// (p-1) b beta. The rings run in lockstep and end together; every line of a dimension's
// gather is alike, so the phases add up. Exact where the DR distributed reduction is
// (dims_claim, equal blocks): private links and the group's own mesh under duplex ports
// (all-port nodes take a line's gather messages at once over shared links: only on private
// links); a lower bound under exchange and half ports. 0 for n = 0.
#include "collectives/internal/claims.hpp"
#include "collectives/internal/combine_call.hpp"
#include "collectives/internal/mesh.hpp"
#include "collectives/internal/mesh_mst.hpp"
#include "collectives/internal/mesh_rings.hpp"
#include "collectives/reduce/algorithms.hpp"

namespace vmc::internal {

bool applicable_reduce_mesh_dg(const CostQuery& q) { return q.commutative; }

Picos cost_reduce_mesh_dg(const CostQuery& q) {
  if (q.n == 0) return 0;
  const patterns::MeshShape shape = mesh_shape_of(q);
  const std::size_t b = ceil_div(q.n, q.p);
  const std::vector<std::size_t> counts(q.p, b);
  return dr_reduce_scatter_cost(q, shape, 0, shape.dimensions(), counts) +
         mst_gather_dims_cost(q, shape, b);
}

void run_reduce_mesh_dg(const Call& call) {
  const Comm& c = *call.comm;
  if (call.n == 0) return;
  const int p = c.size();
  const patterns::MeshShape shape = mesh_shape_of(c);
  const std::size_t b = ceil_div(call.n, p);
  auto all = contribution(call, p * b);
  dr_reduce_scatter(c, shape, 0, shape.dimensions(), all.data(), call.item_size,
                    Blocks::equal(b, p), *call.op, call.tag);
  mst_gather_dims(c, shape, call.root, all.data(), b, call.item_size, call.tag + 1);
  if (c.rank() == call.root) deliver(call, all);
}

Claim claim_reduce_mesh_dg(const CostQuery& q) {
  const Claim rings = dims_claim(q);
  // All-port nodes take a line's gather messages at once, and they may share links.
  if (rings == Claim::exact && q.model.port == Port::all && !links_private(q)) {
    return Claim::lower_bound;
  }
  return rings;
}

}  // namespace vmc::internal
