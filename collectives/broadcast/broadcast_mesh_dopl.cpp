// broadcast mesh_dopl: 004 §6.2/§9 DOPL broadcast. The vector is cut into k_alt parts; each
// part is pipelined in pieces along every line of one dimension, then of the next, part q
// taking the dimensions in the order q, q+1, ... (mod d), so that at step i (dimension
// i mod d) every line carries one part and lines of different parts run at once; the
// tails' wraparound messages hand each head the part its own lines never bring
// (patterns/mesh_dopl.hpp, where the garbled step rule of 004 §6.2 is derived). k_alt = 1
// is the plain dimension-by-dimension pipeline.
//
// Choices (every member makes them alike): k_alt minimises 004 §9's
//   T_DOPL = (k_alt - 1)(alpha + n/k_alt beta)
//            + sum_i (ceil((k_alt + d - 1 - i)/d)(m_i - 1) + k_i - 1)(alpha + n/(k_alt k_i) beta)
// over k_alt = 1 .. min(15, n) (004 §15.2: convex, and k_alt "will never exceed ten or
// fifteen"); k_i = 004 §9's sqrt((m_i - 2) n beta / (k_alt alpha)) pieces per part along
// dimension i, or pieces of Options::segment_items items. k_alt = 1 where alternation
// cannot help or cannot overlap: one dimension (a 1-D array, and every group that is not a
// whole mesh), n < 2; the exchange and half port models, under which a node cannot send a
// wraparound while it receives pieces from another neighbour (004 §2 assumption 5 is
// duplex); and the rendezvous protocol, under which a tail's wraparound, sent before its
// head asks for it (the head takes it last), would hold the tail up and can deadlock.
//
// Requires: nothing (any p, root and n).
// Cost: k_alt = 1, per line as broadcast pipelined_chain: with pieces of s_i items (K_i =
// ceil(n/s_i) of them, the last T_l = T(n - (K_i - 1)s_i)) (m_i + K_i - 3) T(s_i) + T_l
// under duplex and all-port nodes, (2 K_i + m_i - 5) T(s_i) + 2 T_l under exchange and
// half, and the phases add up: sum_i of these. k_alt > 1: the parts' pipelines of
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
#include <algorithm>
#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include "collectives/costs/blocking_replay.hpp"
#include "collectives/costs/claims.hpp"
#include "collectives/patterns/mesh_dopl.hpp"
#include "collectives/primitives/blocks.hpp"
#include "collectives/primitives/buffers.hpp"
#include "collectives/primitives/group_mesh.hpp"
#include "collectives/primitives/p2p.hpp"
#include "collectives/primitives/trees.hpp"
#include "collectives/vocabulary/row.hpp"

namespace vmc::internal {

namespace {

using patterns::MeshShape;

// The choices: the number of parts and the items per piece of each part and dimension.
struct Plan {
  int k_alt = 1;
  double alpha = 0, beta = 0;
  std::size_t n = 0, segment = 0;
  std::size_t part_begin(int q) const { return patterns::dopl_part_begin(n, k_alt, q); }
  std::size_t part_items(int q) const { return part_begin(q + 1) - part_begin(q); }
  std::size_t piece(const MeshShape& shape, int dim, int q) const {
    const std::size_t part = std::max<std::size_t>(1, part_items(q));
    if (segment > 0) return std::min(segment, part);
    return ceil_div(part, patterns::dopl_pieces(shape.lengths[dim], n, alpha, beta, k_alt));
  }
};

// 004 §9's T_DOPL for k parts, in real numbers.
double formula_004(const MeshShape& shape, const Plan& plan, int k) {
  const int d = shape.dimensions();
  const double part = double(plan.n) / k, a = plan.alpha, b = plan.beta;
  double t = (k - 1) * (a + part * b);
  for (int i = 0; i < d; ++i) {
    const int m = shape.lengths[i];
    const double ki = plan.segment > 0 ? std::ceil(part / double(plan.segment))
                                       : double(patterns::dopl_pieces(m, plan.n, a, b, k));
    t += (std::ceil(double(k + d - 1 - i) / d) * (m - 1) + ki - 1) *
         (a + part / ki * b);
  }
  return t;
}

Plan make_plan(const CostUnits& u, const Model& model, const MeshShape& shape, std::size_t n,
               const Options& o) {
  Plan plan{.k_alt = 1, .alpha = double(u.alpha), .beta = double(u.item_time()), .n = n,
            .segment = o.segment_items};
  if (shape.dimensions() < 2 || n < 2 || model.port == Port::exchange ||
      model.port == Port::half || model.protocol == Protocol::rendezvous) {
    return plan;
  }
  double best = formula_004(shape, plan, 1);
  for (int k = 2; k <= static_cast<int>(std::min<std::size_t>(15, n)); ++k) {
    const double t = formula_004(shape, plan, k);
    if (t < best) best = t, plan.k_alt = k;
  }
  return plan;
}

// What `rank` does, in order: visit.send(to, first, items) and visit.recv(from, first,
// items) on item ranges of the vector. The heads take their wraparounds last (no head
// forwards the part a wraparound brings).
template <class Visit>
void program(const MeshShape& shape, int root, const Plan& plan, int rank, Visit&& visit) {
  std::vector<std::pair<int, int>> wraps;  // (part, tail)
  for (int i = 0; i < patterns::dopl_steps(shape, plan.k_alt); ++i) {
    const patterns::DoplStep st = patterns::dopl_step(shape, root, plan.k_alt, i, rank);
    if (st.wrap_to >= 0) {
      visit.send(st.wrap_to, plan.part_begin(st.wrap_part), plan.part_items(st.wrap_part));
    }
    if (st.wrap_from >= 0) wraps.emplace_back(st.wrap_part, st.wrap_from);
    if (st.part < 0) continue;
    const std::size_t b = plan.part_begin(st.part), e = plan.part_begin(st.part + 1);
    const std::size_t s = plan.piece(shape, st.dim, st.part);
    for (std::size_t first = b; first < e; first += s) {
      const std::size_t len = std::min(s, e - first);
      if (st.chain.prev >= 0) visit.recv(st.chain.prev, first, len);
      if (st.chain.next >= 0) visit.send(st.chain.next, first, len);
    }
  }
  for (const auto& [part, tail] : wraps) {
    visit.recv(tail, plan.part_begin(part), plan.part_items(part));
  }
}

// The k_alt > 1 schedule replayed (see the header comment).
BlockingReplay::Result replay(const CostQuery& q, const MeshShape& shape, const Plan& plan) {
  BlockingReplay r(shape.size());
  for (int v = 0; v < shape.size(); ++v) {
    struct {
      BlockingReplay& r;
      const CostQuery& q;
      int v;
      void send(int to, std::size_t, std::size_t items) { r.send(v, to, q.units.message(items)); }
      void recv(int from, std::size_t, std::size_t) { r.recv(v, from); }
    } visit{r, q, v};
    program(shape, q.root, plan, v, visit);
  }
  return r.run(q.model.port == Port::all);
}

// One line's pipelined chain of m nodes (k_alt = 1).
Picos chain_time(const CostQuery& q, int m, std::size_t n, std::size_t s) {
  if (m <= 1 || n == 0) return 0;
  const std::size_t k = ceil_div(n, s);
  const Picos t = trees::msg(q, s), last = trees::msg(q, n - (k - 1) * s);
  const Picos pieces = static_cast<Picos>(k);
  if (m == 2) return (pieces - 1) * t + last;
  if (one_partner_ports(q)) return (2 * pieces + m - 5) * t + 2 * last;
  return (m + pieces - 3) * t + last;
}

Plan plan_of(const CostQuery& q, const MeshShape& shape) {
  return make_plan(q.units, q.model, shape, q.n, q.options);
}

}  // namespace

bool applicable_broadcast_mesh_dopl(const CostQuery&) { return true; }

Picos cost_broadcast_mesh_dopl(const CostQuery& q) {
  if (q.n == 0) return 0;
  const MeshShape shape = mesh_shape_of(q);
  const Plan plan = plan_of(q, shape);
  if (plan.k_alt > 1) return replay(q, shape, plan).time;
  Picos t = 0;
  for (int i = 0; i < shape.dimensions(); ++i) {
    t += chain_time(q, shape.lengths[i], q.n, plan.piece(shape, i, 0));
  }
  return t;
}

void run_broadcast_mesh_dopl(const Call& call) {
  const Comm& c = *call.comm;
  if (call.n == 0) return;
  const MeshShape shape = mesh_shape_of(c);
  const Plan plan = make_plan(c.units(), c.model(), shape, call.n, *call.options);
  struct {
    const Call& call;
    void send(int to, std::size_t first, std::size_t items) {
      send_message(*call.comm, at(call.recv, first, call.item_size), items, call.item_size, to,
                   call.tag);
    }
    void recv(int from, std::size_t first, std::size_t items) {
      recv_message(*call.comm, at(call.recv, first, call.item_size), items, call.item_size,
                   from, call.tag);
    }
  } visit{call};
  program(shape, call.root, plan, c.rank(), visit);
}

Claim claim_broadcast_mesh_dopl(const CostQuery& q) {
  if (q.n == 0) return on_own_mesh(q, Claim::exact);
  const MeshShape shape = mesh_shape_of(q);
  const Plan plan = plan_of(q, shape);
  if (plan.k_alt == 1 || !replay(q, shape, plan).waited) return on_own_mesh(q, Claim::exact);
  // Messages waited for in-ports: without link delays (k_alt > 1 only under eager sends)
  // the replay is the run; with them a delay may reorder the waits (simulator.cpp, "the
  // anomaly").
  return own_mesh(q) || links_private(q) ? Claim::exact : Claim::estimate;
}

std::string detail_broadcast_mesh_dopl(const CostQuery& q) {
  const MeshShape shape = mesh_shape_of(q);
  const Plan plan = plan_of(q, shape);
  std::string s = "k_alt = ";
  s += std::to_string(plan.k_alt);
  s += ", k_i =";
  for (int i = 0; i < shape.dimensions(); ++i) {
    s += ' ';
    s += std::to_string(q.n == 0 ? 0 : ceil_div(plan.part_items(0), plan.piece(shape, i, 0)));
  }
  return s;
}

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
