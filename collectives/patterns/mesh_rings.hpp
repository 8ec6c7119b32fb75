// Ring schedules on a mesh (004 §5.2 prime factors rings, §6.1 dimensional rings): who a
// node talks to at each step and which blocks it sends and receives. Pure functions of the
// mesh shape and the rank, no I/O, no threads, tested alone; the algorithms of
// collectives/mesh/rings.hpp only move and combine what these name.
//
// A RingPlan is a list of ring digits. Digit t splits dimension `dim` into rings of `radix`
// nodes `spacing` apart: a rank's value of digit t is (x_dim / spacing) mod radix, its ring
// is the ranks that differ from it in that digit alone, and its right neighbour is the one
// whose value is one more (mod radix). Every step sends to the right and receives from the
// left, so on a mesh without wraparound links all messages of a ring go "east" except the
// logical wraparound from the last member back to the first, which goes "west" alone (004
// §2: restricting communication to one direction keeps the wraparounds from conflicting).
//
// - Dimensional rings (DR, §6.1): one digit per dimension, radix m_i, spacing 1.
// - Prime factors rings (PFR, §5.2): each m_i factored into primes p_{i,j}; the largest
//   prime gets spacing 1 (its rings are contiguous), the next spacing p_{i,0}, ...: the
//   rings of the digit with spacing w interleave with w - 1 others, so w messages share a
//   link (004's c_{i,j}).
//
// Blocks live in the plan's layout: the mixed-radix number of a rank's digit values, digit
// 0 least significant (the identity for DR: layout index = rank, or the rank within the
// sub-mesh of the plan's dimensions). Collect runs the digits in order 0, 1, ...: before
// phase t a node holds the chunk of chunk(t) consecutive layout blocks that agree with it on
// digits t, t+1, ...; distributed reduction runs them in reverse and ends with a node's own
// block. So every message is one contiguous range of layout blocks. The order of the digits
// is 004's choice: collect (004 §8) goes from the widest rings to the closest, so the last
// phases, which move the most data, run on the closest nodes; the distributed reduction
// (§10) runs the same plan backwards, closest first, when its data is largest; DR collects
// the lowest dimension first and reduces the highest first (§9, §10).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "collectives/patterns/mesh_shape.hpp"
#include "topology/topology.hpp"

namespace vmc::patterns {

struct RingDigit {
  int dim = 0;
  int radix = 1;    // nodes per ring
  int spacing = 1;  // coordinate distance between ring neighbours along dim
};

struct RingPlan {
  MeshShape shape;
  std::vector<RingDigit> digits;  // least significant (first collected) first

  int phases() const { return static_cast<int>(digits.size()); }
  // Blocks of the layout: the product of the radices.
  int blocks() const;
  // prod radix_s for s < t: the layout blocks a node holds before collect phase t.
  int chunk(int t) const;
  int value(int rank, int t) const {
    const RingDigit& g = digits[t];
    return shape.coordinate(rank, g.dim) / g.spacing % g.radix;
  }
  // The rank that differs from `rank` in digit t alone, with value (value + delta) mod radix.
  int neighbour(int rank, int t, int delta) const;
  // The rank's layout index (its digit values, digit 0 least significant).
  int layout_index(int rank) const;
  // The rank with layout index `index` in the rings of `rank` (the rank that differs from it
  // only in the plan's digits, where it has those of `index`).
  int rank_at(int rank, int index) const;
  // layout_index(r) == r for every rank of the shape.
  bool identity_layout() const;
};

// Dimensional rings over dimensions lo .. hi-1 (004 §6.1), lowest first.
RingPlan dimensional_rings(const MeshShape& shape, int lo, int hi);
inline RingPlan dimensional_rings(const MeshShape& shape) {
  return dimensional_rings(shape, 0, shape.dimensions());
}

// Prime factors rings (004 §5.2). widest_first: the collect order of 004 §8 (spacing
// descending; equal spacings by dimension); otherwise rank order (dimension 0 first, each
// dimension closest first), where the layout is the identity and a reduction over the
// digits in order combines the ranks in rank order. The mesh_pfr rows of collect,
// distributed reduction and all-to-all take widest_first, allreduce's rank_order.
enum class RingOrder { widest_first, rank_order };
RingPlan prime_factor_rings(const MeshShape& shape, RingOrder order = RingOrder::widest_first);

// The PFR-DR hybrids (004 §8 collect, §10 distributed reduction): a family of plans between
// prime_factor_rings (widest_first) and dimensional_rings, "partially factoring the
// dimensions". Member h merges h prime factors, counted from the highest dimension down:
// each dimension i with primes q_0 >= q_1 >= ... (F_i of them) gets u_i merges (the highest
// dimensions first, u_i <= F_i - 1), so its closest ring has q_0 ... q_{u_i} nodes (spacing
// 1) and the other primes keep rings of their own, spaced as in prime_factor_rings. A
// dimension merged whole is one ring (DR). The plan collects the factored digits first,
// widest first (their rings interleave and share links, so they move the small early
// chunks), then the single rings of the dimensions from d' up (d' the lowest dimension
// above which every dimension is one ring), lowest first, with the large late chunks and no
// contention (004 §8: "startups are minimized in the initial stages of the collect when the
// vectors transmitted are small, and contention is minimized or eliminated in the later
// stages"). h = 0 is the PFR plan, h = pfr_dr_merges(shape) the DR plan, digit for digit.
int pfr_dr_merges(const MeshShape& shape);
RingPlan pfr_dr_rings(const MeshShape& shape, int h);
// Every member's plan, h = 0 .. pfr_dr_merges(shape), made once per shape and kept (each
// node of each run of a family's member asks, and so does each of its formulas: on ring:64
// selection's choice of an allreduce member factored the lengths 40,000 times).
std::shared_ptr<const std::vector<RingPlan>> pfr_dr_family(const MeshShape& shape);
// What member h is, for explain: e.g. "rings 2,2,2 | 8 | 4x8" (the factored digits' radices,
// then the single rings).
std::string describe_plan(const RingPlan& plan);

// One ring step of a node: send the layout blocks [send_first, send_first + blocks) to
// `right`, receive [recv_first, recv_first + blocks) from `left`.
struct RingStep {
  int right = 0, left = 0;
  int send_first = 0, recv_first = 0;
  int blocks = 0;
};
// Collect phase t, step k = 0 .. radix-2: the chunk of ring member (v - k) out, that of
// (v - k - 1) in (004 Fig. 5(a)), v the node's value of digit t.
RingStep collect_step(const RingPlan& plan, int rank, int t, int k);
// Distributed-reduction phase t (run t = phases-1 down to 0), step k = 0 .. radix-2: the
// partial of the chunk of member (v - k - 1) out, the partial of (v - k - 2) in, to be
// combined into the node's own; after the last step chunk v is complete (004 Fig. 5(b)).
RingStep reduce_step(const RingPlan& plan, int rank, int t, int k);

// All-to-all phase of digit t, step k = 1 .. radix-1 (004 §13 DR all-to-all; 001 "All-to-all
// personalized" ring): a node sends its right neighbour the radix - k groups still
// travelling, those for the ring members (v + 1 .. v + radix - k): at k = 1 its own, later
// the tail of what it received; the first group it receives is its own, from member v - k.
struct ExchangeStep {
  int right = 0, left = 0;
  int groups = 0;  // groups sent and received
  int origin = 0;  // digit value of the member whose group for this node arrives
};
ExchangeStep exchange_step(const RingPlan& plan, int rank, int t, int k);

// 004 §5.2's dimension alternation: "utilizing rings that lie in different dimensions in the
// mesh ... reduces contention by a factor of 1/d". A group is a run of g >= 2 consecutive
// digits of equal radix and spacing (necessarily in g different dimensions); a node of class
// c = (sum of its values of the digits outside the group) mod g runs the group's digits
// rotated by c, so at each stage about 1/g of the nodes work in each of the g dimensions,
// and interleaved rings of one dimension fall into different classes. A ring's members
// agree on every digit outside the group, so they share a class and run its stages
// together; every digit of a group has the same radix, so every node's stage s moves as
// much as any other's.
enum class Alternation {
  none,         // every node runs the digits in plan order
  every_group,  // every group rotates (the all-to-all, alltoall_mesh_pfr.cpp)
  interleaved,  // only groups of spacing > 1, whose rings interleave and share links: rings
                // of spacing 1 share no link, and 004 §8 alternates "only ... in the
                // dimensions that are factorized", not in whole dimensional rings
};
//
// `split` (0: none) cuts the plan in two for the reduction-to-all hybrids (004 §12
// PFR-PFR-DC): no group crosses it, and a class counts only the node's values of digits
// split, split+1, ... (outside its group). The first split digits combine whole vectors and
// the nodes that hold one block (agree on the digits from split on) must combine in one
// order to end with the same bits: so their classes depend on those digits alone. A group
// before split rotates only where every closer digit of its dimensions (those that tell its
// interleaved rings apart) lies from split on; otherwise the rings of such a dimension would
// share a class and stay together while the others spread, and its stages would meet
// unequal sharing.
// The order in which `rank` runs the plan's digits: 0, 1, 2, ... where no group rotates.
std::vector<int> stage_order(const RingPlan& plan, int rank, Alternation a, int split = 0);
// Whether some group of the plan rotates under `a` (otherwise every order is the plan's).
bool alternates(const RingPlan& plan, Alternation a, int split = 0);
// The plan as `rank` runs it: its digits in the rank's stage order. Its collect_step and
// reduce_step are the rank's steps, in the rank's own layout (its digits' values, the
// first run least significant), where every chunk of a stage is contiguous.
RingPlan staged_plan(const RingPlan& plan, int rank, Alternation a);
// Whose block is at each place of `rank`'s staged layout when a collect over the staged
// plans passes every chunk on as it is (each rank in its own layout): owners[x] is a rank of
// `rank`'s rings. A ring member's chunk arrives in the order the sender holds it; the
// members of a ring agree on the rotation of the group running but not on the earlier
// groups', so the order is not the receiver's own layout but this one, and a distributed
// reduction that starts from it (the collect backwards) meets the same order in every
// message. Without rotation owners[x] = plan.rank_at(rank, x). 004 §5.2 instead rearranges
// the non-contiguous portions "at the sending and receiving ends"; here nothing moves until
// the blocks are put in rank order, once, as without alternation.
std::vector<int> staged_owners(const RingPlan& plan, int rank, Alternation a);

// Contention of one stage when every node sends to its right ring neighbour at once (node r
// = rank r, routes of `topology`): the most messages on one directed link of a message's
// route, largest over the messages (004's c_{i,j}), and whether every message has the same.
struct StageLinks {
  int sharers = 1;
  bool uniform = true;
};
std::vector<StageLinks> stage_links(const RingPlan& plan, const Topology& topology,
                                    Alternation a, int split = 0);

// Direct send (004 §13): step k = 1 .. p-1 moves every node by the shift whose coordinates
// are those of rank k (each taken mod m_i): send to x + k, receive from x - k.
int shift_destination(const MeshShape& shape, int rank, int k);
int shift_source(const MeshShape& shape, int rank, int k);
// The most messages one link carries in step k under dimension-order routing on a mesh or
// torus of this shape: max over dimensions with k_i != 0 of min(k_i, m_i - k_i) (a shift of
// k_i on a line of m_i puts min(k_i, m_i - k_i) messages on its busiest link, east or west).
int shift_sharers(const MeshShape& shape, int k);

}  // namespace vmc::patterns
