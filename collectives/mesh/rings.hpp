// The ring primitives of 004 on byte buffers, for the mesh algorithms and their compositions:
// collect and distributed reduction over a RingPlan (patterns/mesh_rings.hpp: dimensional
// rings, §6.1, or prime factors rings, §5.2), the ring all-to-all, and their costs. The DR
// pieces (dr_collect, dr_reduce_scatter) work on a sub-range of the dimensions, for the
// scatter-collect broadcast (§9), the distributed-reduction-gather reduction (§11) and the
// hybrids built on them.
//
// Conventions:
// - `buf` is an item array of `item_size`-byte items laid out by `blocks`, one block per
//   layout index of the plan (blocks.size() == plan.blocks(); the same layout on every
//   rank). For the dimensional rings of the whole mesh the layout index is the rank; over
//   dimensions lo .. hi-1 it is the rank's place in its sub-mesh (its coordinates in those
//   dimensions, dimension lo fastest).
// - A message is a contiguous range of layout blocks. Where those blocks are not contiguous
//   in `buf` (an explicit layout) it is packed and unpacked, charged as rearrangement
//   (Comm::charge_rearrange, 004's delta); with contiguous blocks nothing is rearranged.
// - Empty messages are skipped (every rank knows every block size).
// - Every combine of k items is charged comm.charge_combine(k) where it happens.
// - One tag: messages of one pair never overtake each other, so steps cannot mix.
#pragma once

#include <span>
#include <string>
#include <vector>

#include "collectives/costs/claims.hpp"
#include "collectives/op.hpp"
#include "collectives/patterns/mesh_rings.hpp"
#include "collectives/primitives/blocks.hpp"
#include "runtime/comm.hpp"

namespace vmc::internal {

using patterns::Alternation;

// Collect (004 §8, Fig. 5(a)): on entry block plan.layout_index(rank) holds this rank's data;
// on return every block, bitwise identical on the ranks of one plan's rings.
void ring_collect(const Comm& comm, const patterns::RingPlan& plan, void* buf,
                  std::size_t item_size, const Blocks& blocks, Tag tag);
// Distributed reduction (004 §10, Fig. 5(b)): on entry every block holds this rank's
// contribution; on return block plan.layout_index(rank) holds op over the plan's rings (the
// other blocks are scratch). A commutative op: a ring combines a block starting after its
// owner.
void ring_reduce_scatter(const Comm& comm, const patterns::RingPlan& plan, void* buf,
                         std::size_t item_size, const Blocks& blocks, const Op& op, Tag tag);
// All-to-all over the plan (004 §13; 001 "All-to-all personalized" on a ring), with 004
// §5.2's dimension alternation `a`: `slots` holds p blocks of n items, slot y
// this rank's block for rank y on entry and rank y's block for this rank on return.
// Rearrangement charged: a node's own groups packed at each phase start, (radix-1) p n /
// radix items, and each group that arrives home unpacked, p n / radix items per step.
void ring_alltoall(const Comm& comm, const patterns::RingPlan& plan, Alternation a,
                   void* slots, std::size_t n, std::size_t item_size, Tag tag);

// DR collect and distributed reduction within the sub-mesh of dimensions lo .. hi-1 that
// holds this rank (the whole mesh: 0, shape.dimensions()): blocks indexed by the rank's
// place in that sub-mesh. Collect goes lowest dimension first, the reduction highest first.
void dr_collect(const Comm& comm, const patterns::MeshShape& shape, int lo, int hi, void* buf,
                std::size_t item_size, const Blocks& blocks, Tag tag);
void dr_reduce_scatter(const Comm& comm, const patterns::MeshShape& shape, int lo, int hi,
                       void* buf, std::size_t item_size, const Blocks& blocks, const Op& op,
                       Tag tag);

// --- costs ---------------------------------------------------------------------------------
// `counts` are the block counts in layout order; `sharers` the messages on the busiest link
// of each phase (patterns::stage_links; empty: 1 everywhere). Each phase t costs
// (radix - 1) steps of its largest chunk c: under duplex and all ports T(c) = alpha +
// c max(beta, sharers beta_net) (exact when the chunks are equal and the rings run in
// lockstep), under exchange and half T(c) for a ring of two (an exchange; 2 T(c) under half)
// and 2 T(c) otherwise (a node's send and receive pass its port one after the other: a
// lower bound). The reduction adds c gamma per step.
Picos ring_collect_cost(const CostQuery& q, const patterns::RingPlan& plan,
                        std::span<const std::size_t> counts, std::span<const int> sharers);
Picos ring_reduce_scatter_cost(const CostQuery& q, const patterns::RingPlan& plan,
                               std::span<const std::size_t> counts, std::span<const int> sharers);
// The all-to-all's time for blocks of n items: phase t of radix f costs (f-1) alpha +
// f(f-1)/2 G beta_c + 2 (f-1) G delta with G = p n / f (steps of (f-k) G items).
Picos ring_alltoall_cost(const CostQuery& q, const patterns::RingPlan& plan, std::size_t n,
                         std::span<const int> sharers);
Picos dr_collect_cost(const CostQuery& q, const patterns::MeshShape& shape, int lo, int hi,
                      std::span<const std::size_t> counts);
Picos dr_reduce_scatter_cost(const CostQuery& q, const patterns::MeshShape& shape, int lo,
                             int hi, std::span<const std::size_t> counts);

// One ring step of `out` and `in` items whose busiest link carries `sharers` messages (see
// above; 0 for an empty message).
Picos ring_step_time(const CostQuery& q, int radix, std::size_t out, std::size_t in,
                     int sharers);

// The links of q's machine as a plan's stages load them, where rank r is node r (the comm
// is the whole machine) and messages take the topology's routes (wormhole): per stage the
// busiest link's messages, and whether every message of every stage sees that many.
// Elsewhere (a sub-group, direct routing, store-and-forward) nothing is known: `known`
// is false and the stages count 1.
struct PlanSharing {
  std::vector<int> sharers;
  bool uniform = true;
  bool known = false;
  bool shared() const;  // some stage puts two messages on one link
};
PlanSharing plan_sharing(const CostQuery& q, const patterns::RingPlan& plan,
                         Alternation a, int split = 0);
// What a formula charges for that sharing: the sharers under shared contention (004's
// c_{i,j}: max(beta, c beta_net) per item), none under exclusive (messages wait instead).
std::vector<int> charged_sharers(const CostQuery& q, const PlanSharing& s);

// The claim of a ring algorithm over `plan` costed with charged_sharers: with equal
// blocks, exact under duplex and all ports, and under every port model when every ring has
// two nodes (an exchange); a lower bound for longer rings under exchange and half (a node's
// send and receive take turns). On q's machine: the ideal claim where no link is shared or
// links are private; under shared contention also where every stage's messages share
// alike and move in lockstep (two-sided ports, or rings of two), an estimate where they do
// not; under exclusive contention
// with shared links a lower bound; on_machine's claim where the routes are not known.
Claim plan_claim(const CostQuery& q, const patterns::RingPlan& plan, Alternation a,
                 int split = 0);
// That ideal claim alone (equal blocks assumed): exact, or a lower bound (see above).
Claim ring_ideal(const CostQuery& q, const patterns::RingPlan& plan);
// The claim of the DR algorithms (dimensional rings of mesh_shape_of(q), costed without
// sharers): with equal blocks, ring_ideal on the group's own mesh, where no two messages of
// a step share a link (004 §6.1; tests/collectives/mesh_rings_test.cpp), and on private
// links; on_machine's elsewhere; an estimate for unequal blocks.
Claim dr_claim(const CostQuery& q);

// The ring of digit t through this rank circulates whole vectors (004 §12 PFR
// reduction-to-all, one ring): every member ends with x_0 op x_1 op ... op x_{f-1} of its
// ring's n-item vectors in `acc`, in the digit's value order (the same bits on every
// member, any op). Cost: (f - 1) ring steps of n items plus (f - 1) combines of n items.
void ring_combine(const Comm& comm, const patterns::RingPlan& plan, int t, void* acc,
                  std::size_t n, std::size_t item_size, const Op& op, Tag tag);
Picos ring_combine_cost(const CostQuery& q, int radix, std::size_t n, int sharers);

// 004 §12 reduction-to-all over a plan, the PFR-PFR-DC family ("the distributed reduction
// is performed over a subset of the rings, leaving" the rest to the PFR reduction-to-all):
// a distributed reduction over the plan's last `dc` digits (the closest rings, which move
// the most data; run closest first), then the rings of the other digits combine whole
// chunks (ring_combine, on the one block a node then holds), then a collect over the last
// `dc` digits. The vector is cut into B blocks of ceil(n/B) items, B the product of those
// digits' radices (the last blocks padded); block x belongs to the nodes of layout index x
// in them, so every chunk is contiguous and nothing is rearranged. dc = phases is 004's
// buckets (PFR-DC, or DR-DC on dimensional rings), dc = 0 the PFR reduction-to-all.
// Requires a commutative op when dc > 0. Cost, with s_t the sharers of digit t (empty: 1):
// the tail's ring_reduce_scatter_cost and ring_collect_cost on B blocks of ceil(n/B) items
// plus sum over the other digits of ring_combine_cost(f_t, ceil(n/B), s_t).
// With alternation (mesh_pfr_dc_alt, mesh_pfr_pfr_dc_alt) the plan is split where the tail
// starts (patterns::stage_order's split, phases - dc). Where the tail alternates each rank
// runs its staged tail on the blocks in its owners' order (layout_owners over the tail):
// block x sits where the rank's layout holds the block of the rank of tail layout index x.
// Putting the vector in that order and back moves every block but the rank's own through a
// buffer, charged 2 (B - 1) c delta, as allgather_mesh_pfr.cpp charges its layout buffer.
// The head's rings combine in the rank's stage order, which the nodes holding one block
// share (their classes count the tail's digits), so every node ends with the same bits;
// whole chunks need no rearrangement (004 §12: "there is no need to rearrange data since
// the entire vector is being used"). Without a tail (dc = 0) no class differs and nothing
// rotates.
void plan_allreduce(const Call& call, const patterns::RingPlan& plan, int dc,
                    Alternation a = Alternation::none);
// Whether plan_allreduce with `a` runs otherwise than without alternation: the tail
// alternates (its blocks reordered and staged) or the head's groups rotate. Where not, its
// run is Alternation::none's, message for message (Algorithm::same_run).
bool plan_allreduce_alternates(const patterns::RingPlan& plan, int dc, Alternation a);
Picos plan_allreduce_cost(const CostQuery& q, const patterns::RingPlan& plan, int dc,
                          std::span<const int> sharers,
                          Alternation a = Alternation::none);

// The prime factors rings of the group's mesh, widest first (004 §8's collect order): the
// plan of the mesh_pfr rows of collect, distributed reduction and all-to-all, of PFR-DC, and
// of their _alt rows.
patterns::RingPlan pfr_plan(const CostQuery& q);
patterns::RingPlan pfr_plan(const Comm& comm);

// The PFR-DR families of the collect and the distributed reduction (allgather and
// reduce_scatter mesh_pfr_dr, mesh_pfr_dr_alt): their members (patterns::pfr_dr_rings, h =
// 0 .. pfr_dr_merges) and each member's label for explain, member 0 named mesh_pfr (or
// mesh_pfr_alt with alternation), the last mesh_dr.
int pfr_dr_members(const CostQuery& q);
std::string pfr_dr_label(const CostQuery& q, int h, Alternation a);
// Member h's claim (plan_claim over patterns::pfr_dr_rings): the same for both operations.
Claim pfr_dr_claim(const CostQuery& q, int h, Alternation a);
// The two as a MeshFamily takes them, functions of (q, h).
template <Alternation A>
std::string pfr_dr_label_of(const CostQuery& q, int h) {
  return pfr_dr_label(q, h, A);
}
template <Alternation A>
Claim pfr_dr_claim_of(const CostQuery& q, int h) {
  return pfr_dr_claim(q, h, A);
}

// q.counts (or q.n for every rank) in the plan's layout order (a whole-mesh plan).
std::vector<std::size_t> layout_counts(const CostQuery& q, const patterns::RingPlan& plan);

// Algorithms whose plan's layout is not the rank order (prime factors rings) work in a
// buffer in layout order. A rank running `plan` with alternation `a` holds at place x of
// that buffer the block of rank owners[x]: plan.rank_at(rank, x) without rotation,
// patterns::staged_owners with it (then the rank runs patterns::staged_plan).
std::vector<int> layout_owners(const patterns::RingPlan& plan, int rank,
                               Alternation a);
// The rank-ordered blocks `by_rank` laid out contiguously in the owners' order.
Blocks plan_layout(std::span<const int> owners, const Blocks& by_rank);
// Copies blocks between the rank-ordered buffer and the layout-ordered one (to_layout or
// back): `rank`'s block only, every other one, or all. Charges nothing.
enum class WhichBlocks { own, others, all };
void move_blocks(std::span<const int> owners, int rank, const Blocks& by_rank, void* ranked,
                 const Blocks& by_layout, void* layout, std::size_t item_size, bool to_layout,
                 WhichBlocks which);
// What putting the p - 1 other blocks in (or out of) layout order costs: delta times all
// items but the smallest block (the rank's own stays); 0 when the layout is the rank order.
Picos plan_rearrange_cost(const CostQuery& q, const patterns::RingPlan& plan,
                          std::span<const std::size_t> counts);

}  // namespace vmc::internal
