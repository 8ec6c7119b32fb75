// reduce mesh_dopl: 004's DOPL reduction-to-one (§6.2, §11): the DOPL broadcast's schedule
// (broadcast_mesh_dopl.cpp) reversed. "To create a pipeline that originates at the leaves
// and culminates at the root node, simply vary i ... down to 0 and reverse the direction of
// the message sends": the vector is cut into k_alt parts, part q reduced along every line of
// dimension q + d - 1, then q + d - 2, ..., q (mod d), in pieces that flow from a line's tail
// to its head (the node with the root's coordinate), each node combining a piece into its
// own partial result before it passes it on; the heads whose part the broadcast's
// wraparounds brought send their partial results first, whole, to their tails
// (mesh/dopl.hpp, why the reversed program reduces every item once and cannot deadlock).
// k_alt = 1 is the plain pipeline along the lines of dimension d-1, then d-2, ..., 0.
//
// Choices: k_alt minimises 004 §11's formula, §9's T_DOPL with beta + gamma for beta:
//   T = (k_alt - 1)(alpha + n/k_alt (beta + gamma))
//       + sum_i (ceil((k_alt + d - 1 - i)/d)(m_i - 1) + k_i - 1)
//               (alpha + n/(k_alt k_i) (beta + gamma))
// over k_alt = 1 .. min(15, n) (004 §15.2), k_i = §11's sqrt((m_i - 2) n (beta + gamma) /
// (k_alt alpha)) pieces per part (1 if m_i <= 2, at most n), or pieces of
// Options::segment_items items; parts of ceil(n/k_alt) items and pieces of ceil(part/k_i),
// the last ones padded with zero bytes, combined and dropped (mesh/dopl.hpp); k_alt = 1 where it cannot overlap (mesh/dopl.hpp, as the
// broadcast). The formula's text in 004 §11 is lost in our copy (only its k_i survives); it
// is re-derived as the broadcast's reversed, each piece combined (gamma) where it arrives.
//
// Requires: a commutative op (a line runs from the root's coordinate up and around, and the
// parts take different orders of dimensions: not rank order).
// Cost: k_alt = 1, the phases one after the other (every chain of a phase starts together:
// its nodes all headed chains of the same length in the phase before), each the pipeline of
// its chain of m_i nodes replayed piece by piece: the tail sends its pieces back to back; a
// node takes piece k when it has arrived and it is done with piece k-1, combines it
// (s_k gamma) and sends it on (alpha + s_k beta), the head ends with its last combine. For
// K_i equal pieces of s_i items that is (m_i + K_i - 2)(alpha + s_i (beta + gamma)) for
// m_i > 2, 004's term exactly; for m_i = 2 the tail sends K_i pieces back to back,
// K_i (alpha + s_i beta) + s_i gamma, equal to it for K_i = 1 (004's k_i is 1 there).
// k_alt > 1: the schedule replayed (costs/blocking_replay.hpp, each receive followed by its
// combine). Exact under duplex and all-port nodes on the group's own mesh and on private
// links (mesh/dopl.hpp, dopl_claim); a lower bound under exchange and half ports (a node's
// send and receive take turns). 0 for n = 0.
//
// Against 004's formula under 004's model (duplex, wormhole, shared links; alpha 525 us,
// beta 2 us, gamma 0.35 us) on mesh:2x3, 5x1, 6x4, 8x8, 7x11, 16x16 and 4x4x4, n = 1 to
// 65536 (tests/collectives/mesh_dopl_test.cpp, AgainstTheFormulaOf004):
// - k_alt = 1 (every n on mesh:5x1, whose second dimension has one node; n up to 1024-4096
//   on the 2-D meshes, 256 on mesh:4x4x4): the run is the formula to the picosecond with
//   its pieces n/k_i rounded up to whole items (the run's, the last padded); as written
//   where every k_i divides n. (Before the padding the last piece was shorter and the run
//   up to 0.14% above the formula, between it and its whole-piece value.)
// - k_alt > 1: the run is below the formula, 3% to 26% (mesh:2x3 at n = 65536: 203.4 ms
//   against 276.2 ms; mesh:4x4x4: 262.1 ms against 282.3 ms; mesh:6x4: 249.8 ms against
//   263.3 ms; with one part the run was 1.92 and 1.42 times the formula on the last two).
//   The formula is not this schedule's time. It charges the k_alt - 1 wraparounds one after
//   another, beside the steps; but a wraparound goes from a head, which on its line of that
//   step only receives, to a tail, which there only sends: it takes a head's out-port and a
//   tail's in-port the step leaves idle, and runs while the step pipelines. And it charges
//   each dimension's k_i - 1 pieces once, as if every step's pieces ran on into the next
//   step's line; but a node runs its steps in order, so a line of the next step starts only
//   when its nodes are done with the step before, and the longest path drains a line's
//   pieces at several steps. So on docs/004-formulas.md's rows the run lies between the formula and the formula at whole
//   pieces without its wraparound term (above the latter but on mesh:4x4x4 at n = 1000 and
//   1003, where the broadcast equals it and this reduction is ceil(n/k_alt) gamma below
//   it). The broadcast's longest path on mesh:6x4 at n = 65536 is 36 T_0 + 34 T_1 + T_W
//   (T_i = alpha + a piece's beta, T_W = alpha + a part's beta) where 004 charges 28 T_0 +
//   18 T_1 + 4 T_W; it passes where a message waits for an in-port another holds (the
//   wraparound of part 0 holds node (0,1)'s when the root's pieces of step 3 come), and
//   which message takes an in-port first follows from the times, so the path's shape
//   changes with the mesh, k_alt and the pieces: no closed form in 004's terms was found
//   that equals every run (docs/004-formulas.md, "DOPL overlap").
// So k_alt is chosen, as 004 §15.2 says, by the formula; the cost is the replay.
// --dopl-steps synchronized (Options::dopl_steps, k_alt > 1): the barrier of mesh/dopl.hpp
// between consecutive steps, 004 §6.2's "explicit synchronization"; each step then drains
// on its own, the tail combining its wraparound's part after its pieces, and the time is
//   sum_i ceil((k_alt + d - 1 - i)/d)(m_i + k_i - 2)(alpha + ceil(ceil(n/k_alt)/k_i)
//   (beta + gamma)) + (k_alt + d - 2) ceil(log2 p) alpha
// (mesh:6x4, n = 65536: 289.844 ms, 1.101 times 004's formula; unsynchronized 249.845 ms).
#include "collectives/costs/claims.hpp"
#include "collectives/mesh/dopl.hpp"
#include "collectives/primitives/buffers.hpp"
#include "collectives/vocabulary/row.hpp"

namespace vmc::internal {

bool applicable_reduce_mesh_dopl(const CostQuery& q) { return q.commutative; }

Picos cost_reduce_mesh_dopl(const CostQuery& q) { return dopl_cost(q, q.root, true); }

void run_reduce_mesh_dopl(const Call& call) {
  const Comm& c = *call.comm;
  if (call.n == 0) return;
  auto acc = contribution(call, call.n);
  dopl_reduce(c, acc.data(), call.n, call.item_size, *call.op, call.root, *call.options,
              call.tag);
  if (c.rank() == call.root) deliver(call, acc);
}

Claim claim_reduce_mesh_dopl(const CostQuery& q) { return dopl_claim(q, q.root, true); }

std::string detail_reduce_mesh_dopl(const CostQuery& q) { return dopl_detail(q, true); }

Algorithm reduce_mesh_dopl_row() {
  return {
      .name = "mesh_dopl",
      .description = "the DOPL broadcast's schedule reversed: k_alt parts, pieces flow up every "
                     "line of one dimension, then the next, combined on the way (004 §6.2/§11 "
                     "DOPL reduction-to-one), k_alt minimising 004's formula with beta + gamma, "
                     "k_i = sqrt((m_i - 2) n (beta + gamma) / (k_alt alpha)) pieces per part",
      .requirements = "a commutative op",
      .applicable = applicable_reduce_mesh_dopl,
      .cost = cost_reduce_mesh_dopl,
      .run = run_reduce_mesh_dopl,
      .detail = detail_reduce_mesh_dopl,
      .claim = claim_reduce_mesh_dopl,
  };
}

}  // namespace vmc::internal
