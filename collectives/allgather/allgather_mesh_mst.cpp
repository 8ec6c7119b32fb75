// allgather mesh_mst: 004 §8 MST collect: MST gather of every block to rank 0 (gather
// mesh_mst), then MST broadcast of the whole buffer from rank 0 (broadcast mesh_mst), both
// on the recursive-splitting trees of the group's mesh (004 §5.1). Few startups, much
// volume: 004's choice "if the number of nodes does not factor well" for short vectors.
//
// Requires: nothing (allgatherv: any counts, the gather partitioned by data, 004 §7).
// Cost: 004 §8: T_MST-GATHER + T_MST-BROADCAST; with m items per node and N = p m,
// ceil(log2 p) alpha + (p-1) m beta + ceil(log2 p)(alpha + N beta); in general
// gather_mesh_mst_cost (root 0) + ceil(log2 p)(alpha + N beta) (no broadcast when N = 0).
// The broadcast starts when rank 0 has every block, and every other node is idle by then.
// Exact where both pieces are: on private links, and with equal counts on the group's own
// mesh where the trees are contention-free (mst_claim).
#include "collectives/allgather/allgather_internal.hpp"
#include "collectives/costs/claims.hpp"
#include "collectives/gather/gather_internal.hpp"
#include "collectives/mesh/mst.hpp"

namespace vmc::internal {

void allgather_mesh_mst(const Comm& comm, void* buf, std::size_t item_size, const Blocks& blocks,
                        Tag tag) {
  const int p = comm.size(), r = comm.rank();
  if (p == 1) return;
  gather_mesh_mst(comm, r == 0 ? nullptr : at(buf, blocks.displs[r], item_size), buf,
                  item_size, blocks, 0, tag);
  if (blocks.total() == 0) return;
  Bytes all(blocks.total() * item_size);
  if (r == 0) pack_blocks(buf, item_size, blocks, 0, p, all.data());
  const patterns::MstTree tree = mst_tree(comm, 0, patterns::MstFlow::outward);
  mst_bcast(comm, whole(tree, comm), all.data(), blocks.total(), item_size, tag + 4);
  if (r != 0) unpack_blocks(all.data(), item_size, blocks, 0, p, buf);
}

Picos allgather_mesh_mst_cost(const CostQuery& q, std::span<const std::size_t> counts) {
  if (q.p == 1) return 0;
  CostQuery at0 = q;
  at0.root = 0;
  std::size_t total = 0;
  for (std::size_t c : counts) total += c;
  const Picos bcast =
      total == 0 ? 0 : mst_bcast_cost(at0, mst_tree(at0, patterns::MstFlow::outward), total);
  return gather_mesh_mst_cost(at0, counts) + bcast;
}

void run_allgather_mesh_mst(const Call& call) {
  allgather_mesh_mst(*call.comm, call.recv, call.item_size, prepare_allgather(call), call.tag);
}
Picos cost_allgather_mesh_mst(const CostQuery& q) {
  return allgather_mesh_mst_cost(q, counts_of(q));
}

Claim claim_allgather_mesh_mst(const CostQuery& q) {
  return equal_counts(q) ? mst_claim(q, Claim::exact, true) : on_machine(q, Claim::exact, false);
}

Algorithm allgather_mesh_mst_row() {
  return {
      .name = "mesh_mst",
      .description = "MST gather to rank 0, then MST broadcast, on the group's mesh (004 §8 MST "
                     "collect)",
      .requirements = "nothing",
      .applicable = applies_always,
      .cost = cost_allgather_mesh_mst,
      .run = run_allgather_mesh_mst,
      .claim = claim_allgather_mesh_mst,
  };
}

}  // namespace vmc::internal
