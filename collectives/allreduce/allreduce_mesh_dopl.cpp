// allreduce mesh_dopl: 004's DOPL reduction-to-all (§12, §16): in §12's terms the
// "fan-in/fan-out" method, a reduction-to-one followed by a broadcast, with 004's DOPL
// long-vector primitive (§6.2) for both: the DOPL reduction-to-one to rank 0
// (reduce_mesh_dopl.cpp), then the DOPL broadcast from rank 0 (broadcast_mesh_dopl.cpp).
// 004 §16 counts the DOPL among the reduction-to-all's methods ("it does not use the DOPL
// primitive for the broadcast and reduction-to-all operations" of the library it measured);
// §12's own text on it is lost in our copy, so its formula is re-derived as the sum of the
// two halves' formulas, each with its own k_alt (the reduction's minimising §11's formula
// with beta + gamma, the broadcast's §9's with beta):
//   T = T_DOPL-REDUCTION-TO-ONE + T_DOPL-BROADCAST.
//
// Requires: a commutative op (as the DOPL reduction).
// Cost: the two halves' costs added (mesh/dopl.hpp). The broadcast starts when rank 0 ends
// the reduction with its last combine, and every other node is idle by then (its last send
// ended before that combine began), so the halves do not overlap and their times add. The
// claim is the weaker of the two halves' claims. Against the formula above, under 004's
// model on mesh:2x3, 5x1, 6x4, 8x8, 7x11, 16x16 and 4x4x4, n = 1 to 65536: the run equals it
// where both halves have one part, with its pieces rounded up to whole items (the run pads
// the last), and is 3% to 25% below it where a half alternates (reduce_mesh_dopl.cpp says
// why). --dopl-steps synchronized (Options::dopl_steps): each half with a barrier between
// its steps where it has more than one part (mesh/dopl.hpp), the sum of the two halves'
// closed forms (broadcast_mesh_dopl.cpp, reduce_mesh_dopl.cpp); the barriers' messages
// take their own tags (the halves' tags + 2).
#include <algorithm>

#include "collectives/mesh/dopl.hpp"
#include "collectives/primitives/buffers.hpp"
#include "collectives/vocabulary/row.hpp"

namespace vmc::internal {

bool applicable_allreduce_mesh_dopl(const CostQuery& q) { return q.commutative; }

Picos cost_allreduce_mesh_dopl(const CostQuery& q) {
  return checked_add(dopl_cost(q, 0, true), dopl_cost(q, 0, false), "allreduce time");
}

void run_allreduce_mesh_dopl(const Call& call) {
  const Comm& c = *call.comm;
  if (call.n == 0) return;
  auto acc = contribution(call, call.n);
  dopl_reduce(c, acc.data(), call.n, call.item_size, *call.op, 0, *call.options, call.tag);
  dopl_broadcast(c, acc.data(), call.n, call.item_size, 0, *call.options, call.tag + 1);
  deliver(call, acc);
}

Claim claim_allreduce_mesh_dopl(const CostQuery& q) {
  return std::max(dopl_claim(q, 0, true), dopl_claim(q, 0, false));
}

std::string detail_allreduce_mesh_dopl(const CostQuery& q) {
  return "reduction: " + dopl_detail(q, true) + " / broadcast: " + dopl_detail(q, false);
}

Algorithm allreduce_mesh_dopl_row() {
  return {
      .name = "mesh_dopl",
      .description = "DOPL reduction-to-one to rank 0, then DOPL broadcast from it (004 "
                     "§6.2/§12/§16 fan-in/fan-out with the dimension-ordered pipeline), each "
                     "with its own k_alt and k_i",
      .requirements = "a commutative op",
      .applicable = applicable_allreduce_mesh_dopl,
      .cost = cost_allreduce_mesh_dopl,
      .run = run_allreduce_mesh_dopl,
      .detail = detail_allreduce_mesh_dopl,
      .claim = claim_allreduce_mesh_dopl,
  };
}

}  // namespace vmc::internal
