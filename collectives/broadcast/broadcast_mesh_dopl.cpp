// broadcast mesh_dopl: 004 §6.2/§9 DOPL broadcast. The vector is cut into k_alt parts; each
// part is pipelined in pieces along every line of one dimension, then of the next, part q
// taking the dimensions in the order q, q+1, ... (mod d), so that at step i (dimension
// i mod d) every line carries one part and lines of different parts run at once; the
// tails' wraparound messages hand each head the part its own lines never bring
// (patterns/mesh_dopl.hpp, where the garbled step rule of 004 §6.2 is derived). k_alt = 1
// is the plain dimension-by-dimension pipeline. The plan, the program and the replay are
// mesh/dopl.hpp's, shared with the DOPL reductions.
//
// Choices (every member makes them alike): k_alt minimises 004 §9's
//   T_DOPL = (k_alt - 1)(alpha + n/k_alt beta)
//            + sum_i (ceil((k_alt + d - 1 - i)/d)(m_i - 1) + k_i - 1)(alpha + n/(k_alt k_i) beta)
// over k_alt = 1 .. min(15, n) (004 §15.2: convex, and k_alt "will never exceed ten or
// fifteen"); k_i = 004 §9's sqrt((m_i - 2) n beta / (k_alt alpha)) pieces per part along
// dimension i, or pieces of Options::segment_items items. Every part is ceil(n/k_alt) items
// and every piece ceil(part/k_i), the last ones padded (the padding travels and is dropped,
// as the SC broadcast's blocks), so every message of a step has one length: 004's n/k_alt
// and n/(k_alt k_i) rounded up to whole items. k_alt = 1 where alternation
// cannot help or cannot overlap: one dimension (a 1-D array, and every group that is not a
// whole mesh), n < 2; the exchange and half port models, under which a node cannot send a
// wraparound while it receives pieces from another neighbour (004 §2 assumption 5 is
// duplex); and the rendezvous protocol, under which a tail's wraparound, sent before its
// head asks for it (the head takes it last), would hold the tail up and can deadlock.
//
// Requires: nothing (any p, root and n).
// Cost: k_alt = 1, per line as broadcast pipelined_chain: with K_i pieces of s_i items,
// (m_i + K_i - 2) T(s_i) under duplex and all-port nodes (004 §9's term at whole pieces,
// exactly), (2 K_i + m_i - 3) T(s_i) under exchange and half, and the phases add up:
// sum_i of these. k_alt > 1: the parts' pipelines of
// consecutive steps overlap, and a node may get a piece of the next step, or a wraparound,
// while it still receives the step before; 004's formula, which adds the steps and the
// wraparounds, is then far from the run (mesh:8x8, n = 65536, 004's costs: k_alt = 4,
// formula 259.6 ms, run 247.0 ms). The cost is the schedule itself replayed under the machine
// model (costs/blocking_replay.hpp, O(messages)). Every message runs along one line,
// and each directed link of a line carries messages of one sender only (mesh_dopl.hpp), so
// on the group's own mesh or torus under wormhole routing no message ever waits for a link
// or shares one: exact there and on private links (k_alt > 1 implies eager sends);
// elsewhere (store_and_forward) a lower bound where the replay has no message waiting for
// an in-port (all starts are then max-plus in earlier ends), an estimate where it has.
// 0 for n = 0.
// --dopl-steps synchronized (Options::dopl_steps, k_alt > 1): a dissemination barrier of
// empty messages between consecutive steps (004 §6.2's "explicit synchronization";
// mesh/dopl.hpp), so each step drains on its own and the time is a closed form:
//   sum_i ceil((k_alt + d - 1 - i)/d)(m_i + k_i - 2)(alpha + ceil(ceil(n/k_alt)/k_i) beta)
//   + (k_alt + d - 2) ceil(log2 p) alpha,
// the wraparounds beside the steps (mesh:6x4, n = 65536: 255.963 ms, 1.109 times 004's
// formula; unsynchronized 220.103 ms). The same k_alt and k_i (chosen by 004's formula).
#include "collectives/mesh/dopl.hpp"
#include "collectives/vocabulary/row.hpp"

namespace vmc::internal {

bool applicable_broadcast_mesh_dopl(const CostQuery&) { return true; }

Picos cost_broadcast_mesh_dopl(const CostQuery& q) { return dopl_cost(q, q.root, false); }

void run_broadcast_mesh_dopl(const Call& call) {
  dopl_broadcast(*call.comm, call.recv, call.n, call.item_size, call.root, *call.options,
                 call.tag);
}

Claim claim_broadcast_mesh_dopl(const CostQuery& q) { return dopl_claim(q, q.root, false); }

std::string detail_broadcast_mesh_dopl(const CostQuery& q) { return dopl_detail(q, false); }

Algorithm broadcast_mesh_dopl_row() {
  return {
      .name = "mesh_dopl",
      .description = "k_alt parts pipelined in pieces along every line of one dimension, then the "
                     "next, in rotated dimension orders (004 §6.2/§9 DOPL), k_alt minimising 004's "
                     "(k_alt - 1)(alpha + n/k_alt beta) + sum_i (ceil((k_alt + d - 1 - i)/d)(m_i - "
                     "1) + k_i - 1)(alpha + n/(k_alt k_i) beta); cost: the schedule replayed "
                     "(k_alt = 1: sum_i (m_i + k_i - 2)(alpha + n/k_i beta))",
      .requirements = "nothing",
      .applicable = applicable_broadcast_mesh_dopl,
      .cost = cost_broadcast_mesh_dopl,
      .run = run_broadcast_mesh_dopl,
      .detail = detail_broadcast_mesh_dopl,
      .claim = claim_broadcast_mesh_dopl,
  };
}

}  // namespace vmc::internal
