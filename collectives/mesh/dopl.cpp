// 004's DOPL broadcast, reduction-to-one and reduction-to-all: plans, programs, replay
// (dopl.hpp).
#include "collectives/mesh/dopl.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <utility>

#include "collectives/costs/claims.hpp"
#include "collectives/patterns/binomial.hpp"
#include "collectives/primitives/blocks.hpp"
#include "collectives/primitives/buffers.hpp"
#include "collectives/primitives/group_mesh.hpp"
#include "collectives/primitives/p2p.hpp"
#include "collectives/primitives/trees.hpp"

namespace vmc::internal {

using patterns::MeshShape;

std::size_t DoplPlan::part_items() const {
  return std::max<std::size_t>(1, ceil_div(n, static_cast<std::size_t>(k_alt)));
}

std::size_t DoplPlan::piece(const MeshShape& shape, int dim) const {
  const std::size_t part = part_items();
  if (segment > 0) return std::min(segment, part);
  return ceil_div(part, patterns::dopl_pieces(shape.lengths[dim], n, alpha, beta, k_alt));
}

std::size_t DoplPlan::pieces(const MeshShape& shape, int dim) const {
  return ceil_div(part_items(), piece(shape, dim));
}

std::size_t DoplPlan::span(const MeshShape& shape) const {
  std::size_t most = part_items();
  for (int i = 0; i < shape.dimensions(); ++i) {
    most = std::max(most, pieces(shape, i) * piece(shape, i));
  }
  return most;
}

double dopl_formula_004(const MeshShape& shape, const DoplPlan& plan, int k) {
  const int d = shape.dimensions();
  const double part = double(plan.n) / k, a = plan.alpha, b = plan.beta;
  double t = (k - 1) * (a + part * b);
  for (int i = 0; i < d; ++i) {
    const int m = shape.lengths[i];
    const double ki = plan.segment > 0 ? std::ceil(part / double(plan.segment))
                                       : double(patterns::dopl_pieces(m, plan.n, a, b, k));
    t += (std::ceil(double(k + d - 1 - i) / d) * (m - 1) + ki - 1) * (a + part / ki * b);
  }
  return t;
}

DoplPlan dopl_plan(const CostUnits& u, const Model& model, const MeshShape& shape,
                   std::size_t n, const Options& o, bool reduction) {
  const double beta = double(u.item_time()) + (reduction ? double(u.gamma) : 0.0);
  DoplPlan plan{.k_alt = 1, .alpha = double(u.alpha), .beta = beta, .n = n,
                .segment = o.segment_items};
  if (shape.dimensions() < 2 || n < 2 || model.port == Port::exchange ||
      model.port == Port::half || model.protocol == Protocol::rendezvous) {
    return plan;
  }
  double best = dopl_formula_004(shape, plan, 1);
  for (int k = 2; k <= static_cast<int>(std::min<std::size_t>(15, n)); ++k) {
    const double t = dopl_formula_004(shape, plan, k);
    if (t < best) best = t, plan.k_alt = k;
  }
  plan.synchronized = plan.k_alt > 1 && o.dopl_steps == DoplSteps::synchronized;
  return plan;
}

DoplPlan dopl_plan(const CostQuery& q, bool reduction) {
  return dopl_plan(q.units, q.model, mesh_shape_of(q), q.n, q.options, reduction);
}

std::vector<DoplOp> dopl_step_program(const MeshShape& shape, int root, const DoplPlan& plan,
                                      int rank, int step, bool reduction, bool in_step) {
  std::vector<DoplOp> ops;
  const int i = reduction ? patterns::dopl_steps(shape, plan.k_alt) - 1 - step : step;
  const patterns::DoplStep st = patterns::dopl_step(shape, root, plan.k_alt, i, rank);
  if (st.wrap_to >= 0) {
    ops.push_back({true, st.wrap_to, plan.part_begin(shape, st.wrap_part), plan.part_items()});
  }
  if (st.part >= 0) {
    const std::size_t b = plan.part_begin(shape, st.part);
    const std::size_t s = plan.piece(shape, st.dim), count = plan.pieces(shape, st.dim);
    // The reduction's pieces, reversed below, flow first to last as the broadcast's.
    for (std::size_t k = 0; k < count; ++k) {
      const std::size_t first = b + (reduction ? count - 1 - k : k) * s;
      if (st.chain.prev >= 0) ops.push_back({false, st.chain.prev, first, s});
      if (st.chain.next >= 0) ops.push_back({true, st.chain.next, first, s});
    }
  }
  if (st.wrap_from >= 0 && (reduction || in_step)) {
    ops.push_back({false, st.wrap_from, plan.part_begin(shape, st.wrap_part), plan.part_items()});
  }
  if (reduction) {
    std::reverse(ops.begin(), ops.end());
    for (DoplOp& op : ops) op.send = !op.send;
  }
  return ops;
}

std::vector<DoplOp> dopl_program(const MeshShape& shape, int root, const DoplPlan& plan,
                                 int rank, bool reduction) {
  std::vector<DoplOp> ops;
  const int steps = patterns::dopl_steps(shape, plan.k_alt), p = shape.size();
  for (int e = 0; e < steps; ++e) {
    if (e > 0 && plan.synchronized) {
      // The reduction's rounds are the broadcast's reversed: each sends where the
      // broadcast's receives from, so its empty messages run the way its pieces do.
      for (int k = 1; k < p; k <<= 1) {
        const int up = (rank + k) % p, down = (rank - k + p) % p;
        ops.push_back({.send = true, .peer = reduction ? down : up,
                       .from = reduction ? up : down});
      }
    }
    const std::vector<DoplOp> step =
        dopl_step_program(shape, root, plan, rank, e, reduction, plan.synchronized);
    ops.insert(ops.end(), step.begin(), step.end());
  }
  // Unsynchronized, the broadcast's heads take their wraparounds last.
  if (!reduction && !plan.synchronized) {
    for (int i = 0; i < steps; ++i) {
      const patterns::DoplStep st = patterns::dopl_step(shape, root, plan.k_alt, i, rank);
      if (st.wrap_from < 0) continue;
      ops.push_back({false, st.wrap_from, plan.part_begin(shape, st.wrap_part),
                     plan.part_items()});
    }
  }
  return ops;
}

namespace {

// Every node's ops replayed under q's machine (costs/blocking_replay.hpp); in the reduction
// each receive is followed by its combine. `ops(v)`: node v's program, without rounds.
template <typename Ops>
BlockingReplay::Result replay_programs(const CostQuery& q, const MeshShape& shape,
                                       bool reduction, Ops ops) {
  BlockingReplay r(shape.size());
  for (int v = 0; v < shape.size(); ++v) {
    for (const DoplOp& op : ops(v)) {
      if (op.send) {
        r.send(v, op.peer, q.units.message(op.items));
      } else {
        r.recv(v, op.peer);
        if (reduction) r.work(v, q.units.combine(op.items));
      }
    }
  }
  return r.run(q.model.port == Port::all);
}

}  // namespace

BlockingReplay::Result dopl_replay(const CostQuery& q, const MeshShape& shape, int root,
                                   const DoplPlan& plan, bool reduction) {
  if (!plan.synchronized) {
    return replay_programs(q, shape, reduction, [&](int v) {
      return dopl_program(shape, root, plan, v, reduction);
    });
  }
  // Synchronized: every node starts a step when the barrier before it ends, ceil(log2 p)
  // rounds of one startup after the last node came (no round waits for a port: a round's
  // message starts once its receiver is in that round, and each node sends and receives
  // one message per round), so the steps' times add up.
  BlockingReplay::Result total;
  const int steps = patterns::dopl_steps(shape, plan.k_alt);
  const Picos barrier = checked_mul(
      q.units.message(0), static_cast<std::uint64_t>(patterns::ceil_log2(shape.size())),
      "DOPL barrier");
  for (int e = 0; e < steps; ++e) {
    const BlockingReplay::Result step = replay_programs(q, shape, reduction, [&](int v) {
      return dopl_step_program(shape, root, plan, v, e, reduction, true);
    });
    total.time = checked_add(total.time, step.time, "DOPL time");
    if (e > 0) total.time = checked_add(total.time, barrier, "DOPL time");
    total.waited |= step.waited;
  }
  return total;
}

namespace {

// One line's pipelined chain of m nodes, n items in pieces of s (k_alt = 1; the DOPL's n is
// whole pieces, so the last is s too): when its last node is done. The broadcast (as broadcast pipelined_chain): with K = ceil(n/s) pieces, the
// last T_l = T(n - (K - 1)s), (m + K - 3) T(s) + T_l under duplex and all-port nodes,
// (2K + m - 5) T(s) + 2 T_l under exchange and half.
Picos dopl_bcast_chain(const CostQuery& q, int m, std::size_t n, std::size_t s) {
  if (m <= 1 || n == 0) return 0;
  const std::size_t k = ceil_div(n, s);
  const Picos t = trees::msg(q, s), last = trees::msg(q, n - (k - 1) * s);
  const Picos pieces = static_cast<Picos>(k);
  if (m == 2) return (pieces - 1) * t + last;
  if (one_partner_ports(q)) return (2 * pieces + m - 5) * t + 2 * last;
  return (m + pieces - 3) * t + last;
}

// The reduction's chain, piece by piece: the tail sends its pieces back to back; a node
// takes piece k when it has arrived and it is done with piece k-1, combines it and sends it
// on; the head ends with its last combine (its send and receive overlap: exact under duplex
// and all ports, a lower bound under exchange and half).
Picos dopl_reduce_chain(const CostQuery& q, int m, std::size_t n, std::size_t s) {
  if (m <= 1 || n == 0) return 0;
  std::vector<Picos> sent(m, 0);  // when node j (0 the tail) sent its latest piece
  Picos head = 0;
  for (std::size_t first = 0; first < n; first += s) {
    const std::size_t len = std::min(s, n - first);
    const Picos message = trees::msg(q, len), combine = trees::comb(q, len);
    Picos arrived = sent[0] += message;
    for (int j = 1; j < m - 1; ++j) {
      sent[j] = std::max(arrived, sent[j]) + combine + message;
      arrived = sent[j];
    }
    head = std::max(arrived, head) + combine;
  }
  return head;
}

}  // namespace

Picos dopl_cost(const CostQuery& q, int root, bool reduction) {
  if (q.n == 0) return 0;
  const MeshShape shape = mesh_shape_of(q);
  const DoplPlan plan = dopl_plan(q, reduction);
  if (plan.k_alt > 1) return dopl_replay(q, shape, root, plan, reduction).time;
  Picos t = 0;
  for (int i = 0; i < shape.dimensions(); ++i) {
    const int m = shape.lengths[i];
    const std::size_t s = plan.piece(shape, i), whole = plan.pieces(shape, i) * s;
    t = checked_add(t, reduction ? dopl_reduce_chain(q, m, whole, s)
                                 : dopl_bcast_chain(q, m, whole, s),
                    "DOPL time");
  }
  return t;
}

Claim dopl_claim(const CostQuery& q, int root, bool reduction) {
  // k_alt = 1: the chains' closed forms, exact where a node's send and receive overlap
  // (the broadcast's also where they take turns, as pipelined_chain).
  const Claim one = reduction && !two_sided_ports(q) ? Claim::lower_bound : Claim::exact;
  if (q.n == 0) return on_own_mesh(q, Claim::exact);
  const MeshShape shape = mesh_shape_of(q);
  const DoplPlan plan = dopl_plan(q, reduction);
  if (plan.k_alt == 1) return on_own_mesh(q, one);
  if (!dopl_replay(q, shape, root, plan, reduction).waited) return on_own_mesh(q, Claim::exact);
  // Messages waited for in-ports: without link delays (k_alt > 1 only under eager sends)
  // the replay is the run; with them a delay may reorder the waits (simulator.cpp, "the
  // anomaly").
  return own_mesh(q) || links_private(q) ? Claim::exact : Claim::estimate;
}

std::string dopl_detail(const CostQuery& q, bool reduction) {
  const MeshShape shape = mesh_shape_of(q);
  const DoplPlan plan = dopl_plan(q, reduction);
  std::string s = "k_alt = " + std::to_string(plan.k_alt) + "; k_i =";  // no comma: CSV
  for (int i = 0; i < shape.dimensions(); ++i) {
    s += ' ';
    s += std::to_string(q.n == 0 ? 0 : plan.pieces(shape, i));
  }
  if (plan.synchronized) s += "; steps synchronized";
  return s;
}

namespace {

// The vector in the plan's padded layout (DoplPlan): the caller's own where that is its
// layout already (every part and piece whole), else a zeroed copy with each part at
// part_begin, copied back by put_back.
class PaddedVector {
 public:
  PaddedVector(void* vec, const MeshShape& shape, const DoplPlan& plan, std::size_t isz)
      : vec_(vec), isz_(isz), part_(plan.part_items()), span_(plan.span(shape)), n_(plan.n) {
    if (plan.padded(shape) == n_) return;
    copy_ = Bytes(plan.padded(shape) * isz);
    if (data_moves_here()) std::memset(copy_.data(), 0, copy_.size());  // the padding
    for_each_part([&](std::size_t from, std::size_t to, std::size_t items) {
      copy_items(at(copy_.data(), to, isz_), at(vec_, from, isz_), items, isz_);
    });
  }
  void* data() { return copy_.empty() ? vec_ : copy_.data(); }
  void put_back() {
    if (copy_.empty()) return;
    for_each_part([&](std::size_t from, std::size_t to, std::size_t items) {
      copy_items(at(vec_, from, isz_), at(copy_.data(), to, isz_), items, isz_);
    });
  }

 private:
  // f(first item in the caller's vector, first in the padded one, items) for each part.
  template <typename F>
  void for_each_part(F f) const {
    for (std::size_t q = 0; q * part_ < n_; ++q) {
      f(q * part_, q * span_, std::min(part_, n_ - q * part_));
    }
  }
  void* vec_;
  std::size_t isz_, part_, span_, n_;
  Bytes copy_;
};

// One round of the barrier between two steps (DoplOp::from >= 0), on its own tag.
void dopl_barrier_round(const Comm& c, const DoplOp& op, Tag tag) {
  char none = 0;
  Request both[2] = {c.isend_raw(&none, 0, 0, op.peer, tag, SendMode::synchronous),
                     c.irecv_raw(&none, 0, 1, op.from, tag)};
  c.wait_all(both);
}

// The barrier's tag: past the ones the reduction-to-all's two halves take (tag, tag + 1).
constexpr Tag kBarrierTag = 2;

}  // namespace

void dopl_broadcast(const Comm& c, void* vec, std::size_t n, std::size_t isz, int root,
                    const Options& o, Tag tag) {
  if (n == 0) return;
  const MeshShape shape = mesh_shape_of(c);
  const DoplPlan plan = dopl_plan(c.units(), c.model(), shape, n, o, false);
  PaddedVector padded(vec, shape, plan, isz);
  void* buf = padded.data();
  for (const DoplOp& op : dopl_program(shape, root, plan, c.rank(), false)) {
    if (op.from >= 0) dopl_barrier_round(c, op, tag + kBarrierTag);
    else if (op.send) send_message(c, at(buf, op.first, isz), op.items, isz, op.peer, tag);
    else recv_message(c, at(buf, op.first, isz), op.items, isz, op.peer, tag);
  }
  padded.put_back();
}

void dopl_reduce(const Comm& c, void* vec, std::size_t n, std::size_t isz, const Op& op,
                 int root, const Options& o, Tag tag) {
  if (n == 0) return;
  const MeshShape shape = mesh_shape_of(c);
  const DoplPlan plan = dopl_plan(c.units(), c.model(), shape, n, o, true);
  PaddedVector padded(vec, shape, plan, isz);
  void* acc = padded.data();
  Bytes tmp;
  for (const DoplOp& step : dopl_program(shape, root, plan, c.rank(), true)) {
    if (step.from >= 0) {
      dopl_barrier_round(c, step, tag + kBarrierTag);
      continue;
    }
    char* mine = at(acc, step.first, isz);
    if (step.send) {
      send_message(c, mine, step.items, isz, step.peer, tag);
      continue;
    }
    tmp.resize(step.items * isz);
    recv_message(c, tmp.data(), step.items, isz, step.peer, tag);
    trees::combine(c, op, mine, tmp.data(), mine, step.items);
  }
  padded.put_back();
}

}  // namespace vmc::internal
