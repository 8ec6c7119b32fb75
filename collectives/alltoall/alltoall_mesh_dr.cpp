// alltoall mesh_dr: 004 §13 DR all-to-all scatter on the dimensional rings of §6.1: ring by
// ring, one dimension after the other, the nodes of each ring run the ring all-to-all of
// 001 ("All-to-all personalized", ring): in step k = 1 .. m_i - 1 a node sends its right
// neighbour the m_i - k groups still travelling (at k = 1 its own groups for the other
// m_i - 1 members, later the tail of what it received) and keeps the first group it
// receives, which is home. A group is every block whose destination has one coordinate i,
// p / m_i blocks (ring_alltoall, patterns/mesh_rings.hpp); after the phase of dimension i
// every block sits on the node that agrees with its destination in dimensions 0 .. i. 001's
// mesh algorithm (ring all-to-all on the rows, then on the columns, messages of sqrt(p) m
// items: 2 (sqrt(p) - 1) t_s + p (sqrt(p) - 1) m t_w) is this schedule on a square 2-D
// mesh, so it has no row of its own.
//
// Requires: nothing (alltoall only: a node forwards blocks whose sizes alltoallv tells only
// their sender and receiver).
// Cost, blocks of n items (vmc's count: the items for each destination), so a node holds
// p n items and a group p n / m_i:
//   duplex, all:  sum_i (m_i - 1) (alpha + (p n / 2) beta + 2 (p n / m_i) delta).
// Step k moves (m_i - k) p n / m_i items, on average p n / 2. 004 writes sum_i (m_i - 1)
// (alpha + N/(2p) (beta + delta)) with N "the length of all of the vectors on all of the
// nodes", N = p^2 n in vmc's count, so N/(2p) = p n / 2: the same alpha and beta terms. 004
// charges delta on every item sent; this code rearranges only a node's own groups when a
// phase starts and each group that arrives home, 2 (m_i - 1) p n / m_i items per phase.
// The two agree where m_i = 4 and differ elsewhere (docs/004-formulas.md, its delta table).
// 004's text rearranges once between the phases ("The data on each node would then be
// rearranged so that each node's portion is contiguous"), its formula with every item sent;
// since the two disagree, this code charges what its schedule moves: kept, a modelling
// choice the table names.
// One-partner ports as allgather_mesh_dr.cpp. Exact under duplex and all ports on the
// group's own mesh (no two messages of a step share a link) and on private links.
#include "collectives/alltoall/alltoall_internal.hpp"
#include "collectives/mesh/rings.hpp"
#include "collectives/primitives/group_mesh.hpp"

namespace vmc::internal {

void run_alltoall_mesh_dr(const Call& call) {
  const Comm& c = *call.comm;
  copy_items(call.recv, call.send, call.n * c.size(), call.item_size);
  ring_alltoall(c, patterns::dimensional_rings(mesh_shape_of(c)), Alternation::none, call.recv,
                call.n, call.item_size, call.tag);
}

Picos cost_alltoall_mesh_dr(const CostQuery& q) {
  return ring_alltoall_cost(q, patterns::dimensional_rings(mesh_shape_of(q)), q.n, {});
}

Algorithm alltoall_mesh_dr_row() {
  return {
      .name = "mesh_dr",
      .description = "dimensional rings: a ring all-to-all in each dimension of the mesh (004 §13 "
                     "DR; 001 mesh rows then columns)",
      .requirements = "nothing",
      .applicable = applies_always,
      .cost = cost_alltoall_mesh_dr,
      .run = run_alltoall_mesh_dr,
      .claim = dr_claim,
  };
}

}  // namespace vmc::internal
