// broadcast allport_edst: pipelined broadcast down d edge-disjoint spanning binomial trees
// (Johnsson and Ho's nESBT, the all-port broadcast 000 §7 cites through its reference [4];
// patterns/allport.hpp builds them). The vector is cut into t M equal packets, t = min(d, n)
// trees each carrying M packets. The root sends packet i of every tree at once (one per
// link) and waits for them before packet i + 1; every other node posts all its receives
// first, then takes its packets in the order the all-port schedule delivers them (packet i
// of tree j reaches depth h at (h + i) T) and forwards each to its children in that tree
// with isend as soon as it has it. No directed link belongs to two trees, so the trees
// never meet and each link carries one packet at a time. Virtual ranks are rank XOR root.
//
// Requires: p a power of two (any root, any n).
// Cost with H = d + 1 for d >= 2 (H = 1 for p = 2), b = ceil(n / (t M)), T_b = alpha + b beta:
//   all-port:  (M + H - 1) T_b, exact on a whole hypercube and wherever links are private;
//              M from Options::segment_items (b items per packet) or else the least time
//              near M = sqrt((H-1) n beta / (t alpha)), at most 64: for long vectors about
//              n beta / d + (d+1) alpha + 2 sqrt(n alpha beta), against the binomial's
//              d (alpha + n beta).
//   otherwise: each round of t packets passes the root's port one at a time, then the
//              last packet goes H - 1 more hops: (M t + H - 1) T_b, a lower bound.
#include <algorithm>
#include <tuple>

#include "collectives/allport/allport.hpp"
#include "collectives/primitives/blocks.hpp"
#include "collectives/primitives/p2p.hpp"
#include "collectives/primitives/trees.hpp"
#include "collectives/vocabulary/row.hpp"

namespace vmc::internal {

namespace pa = patterns::allport;

namespace {
allport::EdstPlan plan_for(const CostUnits& u, int p, std::size_t n, const Options* options) {
  return allport::edst_plan(u, allport::dimension(p), n,
                            options != nullptr ? options->segment_items : 0);
}
}  // namespace

bool applicable_broadcast_allport_edst(const CostQuery& q) { return allport::applies(q); }

Picos cost_broadcast_allport_edst(const CostQuery& q) {
  const int d = allport::dimension(q.p);
  return allport::edst_time(q, d, plan_for(q.units, q.p, q.n, &q.options));
}

void run_broadcast_allport_edst(const Call& call) {
  const Comm& c = *call.comm;
  const int d = allport::dimension(c.size());
  const allport::EdstPlan plan = plan_for(c.units(), c.size(), call.n, call.options);
  const pa::Windows& w = plan.pieces;
  if (w.count == 0) return;
  const std::size_t isz = call.item_size;
  const int t = plan.trees, m = plan.packets;
  const trees::Rooted vr(c.size(), call.root);
  const int v = vr.to_virtual(c.rank());
  auto piece = [&](int j, int i) { return static_cast<std::size_t>(i) * t + j; };
  if (v == 0) {
    for (int i = 0; i < m; ++i) {
      Batch round(c);
      for (int j = 0; j < t; ++j) {
        round.send(at(call.recv, w.start(piece(j, i)), isz), w.size, isz, vr.to_real(1 << j),
                   call.tag + j);
      }
      round.wait();
    }
    return;
  }
  allport::WindowPlaces places(w, isz, call.recv);
  auto packet = [&](int j, int i) { return places(piece(j, i)); };
  // This node's parent and children in each tree (real ranks), found once, not per packet.
  std::vector<int> parents(t);
  std::vector<std::vector<int>> children(t);
  std::size_t forwards = 0;
  for (int j = 0; j < t; ++j) {
    parents[j] = vr.to_real(pa::edst_parent(v, j, d));
    for (int child : pa::edst_children(v, j, d)) children[j].push_back(vr.to_real(child));
    forwards += children[j].size() * static_cast<std::size_t>(m);
  }
  std::vector<Request> received(w.count);
  std::vector<std::tuple<int, int, int>> order;  // (depth + i, j, i): when it arrives
  order.reserve(w.count);
  for (int j = 0; j < t; ++j) {
    for (int i = 0; i < m; ++i) {
      received[piece(j, i)] =
          c.irecv_raw(packet(j, i), w.size * isz, isz, parents[j], call.tag + j);
      order.emplace_back(pa::edst_depth(v, j, d) + i, j, i);
    }
  }
  std::sort(order.begin(), order.end());
  Batch forward(c);
  forward.reserve(forwards);
  for (const auto& [when, j, i] : order) {
    wait_message(c, received[piece(j, i)], w.size, parents[j]);
    forward.send_each(packet(j, i), w.size, isz, children[j], call.tag + j);
  }
  forward.wait();
  places.finish();
}

Algorithm broadcast_allport_edst_row() {
  return {
      .name = "allport_edst",
      .description = "packets pipelined down d edge-disjoint spanning binomial trees (000 §7, "
                     "Johnsson-Ho nESBT): (M + d)(alpha + b beta) under --port all",
      .requirements = "p a power of two",
      .applicable = applicable_broadcast_allport_edst,
      .cost = cost_broadcast_allport_edst,
      .run = run_broadcast_allport_edst,
      .claim = allport::claim,
  };
}

}  // namespace vmc::internal
