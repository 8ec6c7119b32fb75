// MST-SC broadcast and MST-DG reduction-to-one (mesh_sc.hpp).
#include "collectives/mesh/mst_sc.hpp"

#include <algorithm>

#include "collectives/costs/claims.hpp"
#include "collectives/mesh/rings.hpp"
#include "collectives/primitives/buffers.hpp"
#include "collectives/primitives/trees.hpp"

namespace vmc::internal {

using patterns::MeshShape;
using patterns::MstFlow;
using patterns::MstTree;
using patterns::RingPlan;

namespace {
std::vector<int> divisors_above_one(int m) {
  std::vector<int> out;
  for (int k = 2; k <= m; ++k) {
    if (m % k == 0) out.push_back(k);
  }
  return out;
}

// The MST coordinate lengths of dimensions 0 .. j (dimension j's part p1).
int group_length(const ScSplit& s, int i) { return i < s.dim ? s.shape.lengths[i] : s.p1(); }
}  // namespace

int ScSplit::group_index(int rank) const {
  int g = 0, scale = 1;
  for (int i = 0; i <= dim; ++i) {
    const int x = shape.coordinate(rank, i);
    g += (i < dim ? x : x / p0) * scale;
    scale *= group_length(*this, i);
  }
  return g;
}

int ScSplit::group_member(int rank, int g) const {
  std::vector<int> x = shape.coordinates(rank);
  for (int i = 0; i <= dim; ++i) {
    const int length = group_length(*this, i), c = g % length;
    g /= length;
    x[i] = i < dim ? c : x[i] % p0 + p0 * c;
  }
  return shape.rank_at(x);
}

int sc_members(const MeshShape& shape) {
  int count = 1;
  for (int m : shape.lengths) count += static_cast<int>(divisors_above_one(m).size());
  return count;
}

ScSplit sc_split(const MeshShape& shape, int member) {
  ScSplit s;
  s.shape = shape;
  s.dim = shape.dimensions() - 1;
  s.p0 = 1;
  int left = member - 1;
  for (int j = shape.dimensions() - 1; j >= 0 && left >= 0; --j) {
    const std::vector<int> divs = divisors_above_one(shape.lengths[j]);
    if (left < static_cast<int>(divs.size())) {
      s.dim = j;
      s.p0 = divs[left];
      break;
    }
    left -= static_cast<int>(divs.size());
  }
  s.scattered = RingPlan{shape, {}};
  if (s.p0 > 1) s.scattered.digits.push_back({s.dim, s.p0, 1});
  for (int i = s.dim + 1; i < shape.dimensions(); ++i) {
    s.scattered.digits.push_back({i, shape.lengths[i], 1});
  }
  for (int i = 0; i <= s.dim; ++i) {
    if (group_length(s, i) > 1) {
      s.group.lengths.push_back(group_length(s, i));
      s.group.wraps.push_back(i < s.dim ? shape.wraps[i] : s.p0 == 1 && shape.wraps[i]);
    }
  }
  if (s.group.lengths.empty()) s.group = patterns::linear_shape(1);
  return s;
}

std::string describe(const ScSplit& s) {
  std::string out = s.scattered.phases() == 0 ? "scatter nothing"
                                              : "scatter " + patterns::describe_plan(s.scattered);
  if (s.group.size() == 1) return out + "; no MST";
  out += "; MST ";
  for (int i = 0; i < s.group.dimensions(); ++i) {
    out += (i > 0 ? "x" : "") + std::to_string(s.group.lengths[i]);
  }
  if (s.interleaved()) {
    out += " (dimension " + std::to_string(s.dim) + " interleaved: members " +
           std::to_string(s.p0) + " apart)";
  }
  return out;
}

namespace {
// The line of scattered digit t through `me`, as a 1-D tree rooted at the root's value, and
// where me's subtree starts in the block buffer (items).
struct DigitLine {
  MstTree tree;
  TreeView view;
  std::vector<std::size_t> prefix;
  std::size_t offset = 0;
};
DigitLine digit_line(const RingPlan& plan, int t, int root, int me, MstFlow flow,
                     std::size_t b) {
  const int radix = plan.digits[t].radix, v = plan.value(me, t), chunk = plan.chunk(t);
  DigitLine l{MstTree(patterns::linear_shape(radix), plan.value(root, t), flow), {}, {}, 0};
  l.prefix.resize(radix + 1);
  for (int q = 0; q <= radix; ++q) l.prefix[q] = std::size_t(q) * chunk * b;
  const int ground = plan.layout_index(me) / (chunk * radix) * (chunk * radix);
  l.offset = (std::size_t(ground) + std::size_t(l.tree.node(v).first) * chunk) * b;
  return l;
}
TreeView digit_view(const DigitLine& l, const RingPlan& plan, int t, int me) {
  const int radix = plan.digits[t].radix, v = plan.value(me, t);
  TreeView view{&l.tree, std::vector<int>(radix), v};
  for (int q = 0; q < radix; ++q) view.members[q] = plan.neighbour(me, t, q - v);
  return view;
}
// Whether `me` takes part in the scatter or gather of digit t: it agrees with the root in
// its MST coordinates and in the scattered digits below t.
bool in_line_phase(const ScSplit& s, int me, int root, int t) {
  if (s.group_index(me) != s.group_index(root)) return false;
  for (int u = 0; u < t; ++u) {
    if (s.scattered.value(me, u) != s.scattered.value(root, u)) return false;
  }
  return true;
}
// The members of me's MST group, computed as the tree asks for them (s outlives the view).
TreeView group_view(const ScSplit& s, const MstTree& tree, int me) {
  TreeView view{&tree, {}, s.group_index(me)};
  view.rank_of = [&s, me](int g) { return s.group_member(me, g); };
  return view;
}
// An MST group's tree, rooted at root's place in its group (in each group, the member that
// agrees with the root in the MST coordinates). Interleaved groups, in both operations, use
// the rank-order line (MstTree's inward line, dimension 0 fastest): its first cuts split the
// virtual dimension j, the slowest, so
// that (p1 a power of two) the parts are whole rows of the lower dimensions and a node's
// path from the root crosses dimension j, the links the groups share, ceil(log2 p1) times,
// then the lower dimensions ceil(log2 (m_0 ... m_{j-1})) times, as 004 §9 and §11 count
// them. The broadcast's own line (dimension j fastest) cuts the lower dimensions first and
// then rows in half: on mesh:6x4's 6x2 groups the root sends twice across dimension j, once
// diagonally. The other members keep the flow's tree (member 0: mesh_mst's).
MstTree group_tree(const ScSplit& s, int root, MstFlow flow) {
  return MstTree(s.group, s.group_index(root), s.interleaved() ? MstFlow::inward : flow);
}
// The broadcast's staggered line (see crossing_sharers): the scattered line of 3 nodes whose
// MST groups take one crossing step (p0 = 3, p1 = 2), under duplex ports on links no slower
// than a node, the other scattered lines of power-of-two length (they end together), except
// with the root in the middle of its line and the crossing downwards (its second scatter
// message then takes a link of the far node's crossing message). Where the groups have lower
// dimensions (staggered_delay), also links slower than half a node (2 beta_net > beta), so
// that the far node's group runs ahead of the root's.
bool staggered_line(const CostQuery& q, const ScSplit& s) {
  if (s.p0 != 3 || s.p1() != 2 || q.model.port != Port::duplex ||
      q.units.beta_net > q.units.beta ||
      (s.group.size() > 2 && 2 * q.units.beta_net <= q.units.beta)) {
    return false;
  }
  for (const patterns::RingDigit& digit : s.scattered.digits) {
    if (digit.dim != s.dim && !is_power_of_two(digit.radix)) return false;
  }
  const int x = s.shape.coordinate(q.root, s.dim);
  return !(x % s.p0 == 1 && x / s.p0 == 1);
}
// The messages a crossing message shares its busiest link with, itself included: p0 where
// the groups start together. The broadcast's do not on a staggered line: there the line's
// root sends its far node its block first, one message (alpha + b beta) before the third
// node has its own (patterns/mesh_mst.hpp: a range of 3 is cut into the root's 2 and the
// far 1), so the far node's crossing message runs alone for exactly its own length and ends
// as the other two start, and those two share their links two ways, not three: the run is
// 004's formula less b beta (docs/004-formulas.md, "groups start apart"). Holding the far
// node back to start the three together, as 004's formula has them, would end b beta later.
// (Found so on mesh:6x4, 6x8 and 6x2x4 at every root, tests/collectives/mesh_hybrid_test.cpp;
// with the root in the middle of a line whose crossing runs downwards the far node's message
// shares a link with the root's second scatter message, and the run is the p0 formula's.)
int crossing_sharers(const CostQuery& q, const ScSplit& s, MstFlow flow) {
  return flow == MstFlow::outward && staggered_line(q, s) ? 2 : s.p0;
}
// The staggered line's groups with lower dimensions (mesh:2x6, 3x6 and 4x6's member 2: a
// line of 3 across dimension 1, groups m_0 x 2): the far node's group crosses alone, one
// message (alpha + b beta) before the other two, which share the crossing two ways (alpha +
// b max(beta, 2 beta_net)); so it runs its lower dimensions ahead of the root's group by the
// difference, lag = b (max(beta, 2 beta_net) - beta) > 0, and its nodes that end the MST
// start the ring collect (eager) that much early: the far node of each ring sends its block
// to the node of the root's group in its ring (the ring's wrap), which still waits for its
// last MST message. That ring message takes the receiver's in-port first and holds it for a
// whole message (alpha + b beta), so the root's group's last MST step starts alpha + b beta
// - lag after it could, and the broadcast ends that much later: alpha where beta_net = beta.
// The eager ring's overlap with the MST phase (as in mesh_sc's eager overlap), not a defect
// of the trees: each group runs 004's tree, and the in-port serves the message that asks
// first. (Found so, to the picosecond, on
// mesh:2x6, 3x6, 4x6, 5x6, 8x6, torus:4x6 and mesh:2x6x2 with the root in the lower line,
// n = 1 to 65,536, and at most roots of the upper line, where staggered_exact claims no
// more than an estimate; tests/collectives/mesh_hybrid_test.cpp.)
// Exact (sc_member_claim) where the groups have no lower dimensions, or where the root's
// crossing runs upwards (it is in the line of group coordinate 0). With the root in the
// upper line the far group's ring messages and the root's group's can meet other in-ports:
// the run is above this formula on mesh:2x6 and 3x6 with the root at x = 0 (by 71.5 us on
// mesh:3x6 at n = 1000 under 004's model), so there it is an estimate.
bool staggered_exact(const CostQuery& q, const ScSplit& s) {
  if (!staggered_line(q, s)) return false;
  return s.group.size() == 2 || s.shape.coordinate(q.root, s.dim) / s.p0 == 0;
}
Picos staggered_delay(const CostQuery& q, const ScSplit& s, std::size_t b) {
  if (s.group.size() <= 2 || !staggered_line(q, s)) return 0;
  const Picos own = trees::msg(q, b);
  const Picos lag = checked_mul(q.units.item_time(2) - q.units.item_time(), b, "lag");
  return own - lag;
}
// The MST phase's message times: one that crosses the virtual dimension j (its parent and
// child differ in the group's last coordinate) shares the links of dimension j with the same
// message of the other p0 - 1 groups of its column, which run the same tree at the same
// time (004: "the short-vector MST-broadcast phase incurs the link contention"): b
// max(beta, c beta_net), c = crossing_sharers, 004's max(beta_node, p_{d',0} beta_net). A
// message within the lower dimensions keeps to its own row: b beta.
EdgeTime group_edge_time(const CostQuery& q, const ScSplit& s, std::size_t b, MstFlow flow) {
  const Picos own = trees::msg(q, b);
  if (!s.interleaved()) return [own](int, int) { return own; };
  CostQuery shared = q;
  shared.units.beta =
      q.units.item_time(static_cast<std::uint64_t>(crossing_sharers(q, s, flow)));
  shared.units.beta_net = 0;
  const Picos crossing = trees::msg(shared, b);
  const patterns::MeshShape group = s.group;
  const int j = group.dimensions() - 1;
  return [=](int parent, int child) {
    return group.coordinate(parent, j) != group.coordinate(child, j) ? crossing : own;
  };
}
std::size_t block_items(const ScSplit& s, std::size_t n) {
  return ceil_div(n, static_cast<std::size_t>(s.scattered.blocks()));
}
}  // namespace

void sc_broadcast(const Call& call, const ScSplit& s) {
  const Comm& c = *call.comm;
  if (call.n == 0) return;
  const int me = c.rank(), root = call.root, blocks = s.scattered.blocks();
  const std::size_t b = block_items(s, call.n), isz = call.item_size;
  Bytes all(blocks * b * isz);
  if (me == root) copy_items(all.data(), call.recv, call.n, isz);
  for (int t = s.scattered.phases() - 1; t >= 0; --t) {
    if (!in_line_phase(s, me, root, t)) continue;
    const DigitLine l = digit_line(s.scattered, t, root, me, MstFlow::outward, b);
    mst_scatter_parts(c, digit_view(l, s.scattered, t, me), l.prefix, at(all.data(), l.offset, isz),
                      isz, call.tag);
  }
  if (s.group.size() > 1) {
    const MstTree tree = group_tree(s, root, MstFlow::outward);
    mst_bcast(c, group_view(s, tree, me),
              at(all.data(), std::size_t(s.scattered.layout_index(me)) * b, isz), b, isz,
              call.tag + 1);
  }
  if (blocks > 1) {
    ring_collect(c, s.scattered, all.data(), isz, Blocks::equal(b, blocks), call.tag + 2);
  }
  if (me != root) copy_items(call.recv, all.data(), call.n, isz);
}

Picos sc_broadcast_cost(const CostQuery& q, const ScSplit& s) {
  if (q.n == 0) return 0;
  const std::size_t b = block_items(s, q.n);
  Picos t = 0;
  for (int d = 0; d < s.scattered.phases(); ++d) {
    const DigitLine l = digit_line(s.scattered, d, q.root, q.root, MstFlow::outward, b);
    const std::vector<Picos> done = mst_scatter_times(q, l.tree, l.prefix, 0);
    t = checked_add(t, *std::max_element(done.begin(), done.end()), "broadcast time");
  }
  if (s.group.size() > 1) {
    const MstTree tree = group_tree(s, q.root, MstFlow::outward);
    t = checked_add(t, mst_bcast_time(tree, group_edge_time(q, s, b, MstFlow::outward)),
                    "broadcast time");
    t = checked_add(t, staggered_delay(q, s, b), "broadcast time");
  }
  const std::vector<std::size_t> counts(s.scattered.blocks(), b);
  return checked_add(t, ring_collect_cost(q, s.scattered, counts, {}), "broadcast time");
}

void dg_reduce(const Call& call, const ScSplit& s) {
  const Comm& c = *call.comm;
  if (call.n == 0) return;
  const int me = c.rank(), root = call.root, blocks = s.scattered.blocks();
  const std::size_t b = block_items(s, call.n), isz = call.item_size;
  auto all = contribution(call, blocks * b);
  if (blocks > 1) {
    ring_reduce_scatter(c, s.scattered, all.data(), isz, Blocks::equal(b, blocks), *call.op,
                        call.tag);
  }
  if (s.group.size() > 1) {
    const MstTree tree = group_tree(s, root, MstFlow::inward);
    Bytes tmp(b * isz);
    mst_reduce(c, group_view(s, tree, me),
               at(all.data(), std::size_t(s.scattered.layout_index(me)) * b, isz), tmp.data(), b,
               isz, *call.op, call.tag + 1);
  }
  for (int t = 0; t < s.scattered.phases(); ++t) {
    if (!in_line_phase(s, me, root, t)) break;
    const DigitLine l = digit_line(s.scattered, t, root, me, MstFlow::inward, b);
    mst_gather_parts(c, digit_view(l, s.scattered, t, me), l.prefix,
                     at(all.data(), l.offset, isz), isz, call.tag + 2);
  }
  if (me == root) deliver(call, all);
}

Picos dg_reduce_cost(const CostQuery& q, const ScSplit& s) {
  if (q.n == 0) return 0;
  const std::size_t b = block_items(s, q.n);
  const std::vector<std::size_t> counts(s.scattered.blocks(), b);
  Picos t = ring_reduce_scatter_cost(q, s.scattered, counts, {});
  if (s.group.size() > 1) {
    const MstTree tree = group_tree(s, q.root, MstFlow::inward);
    t = checked_add(t, mst_reduce_time(q, tree, group_edge_time(q, s, b, MstFlow::inward),
                                       trees::comb(q, b)),
                    "reduce time");
  }
  for (int d = 0; d < s.scattered.phases(); ++d) {
    const DigitLine l = digit_line(s.scattered, d, q.root, q.root, MstFlow::inward, b);
    const std::vector<Picos> ready(s.scattered.digits[d].radix, 0);
    t = checked_add(t, mst_gather_times(q, l.tree, l.prefix, ready)[l.tree.root()],
                    "reduce time");
  }
  return t;
}

Claim sc_member_claim(const CostQuery& q, const ScSplit& s, MstFlow flow) {
  const bool outward = flow == MstFlow::outward;
  const bool ports = q.model.port == Port::duplex || (outward && q.model.port == Port::all);
  if (!own_mesh(q) || q.model.protocol != Protocol::eager || !ports ||
      !patterns::mst_contention_free(s.group) ||
      (s.interleaved() && q.model.contention != Contention::shared)) {
    return Claim::estimate;
  }
  if (outward) {
    // The scattered lines end together where their lengths are powers of two; the staggered
    // line of 3 ends apart, by one message, as crossing_sharers counts.
    for (const patterns::RingDigit& digit : s.scattered.digits) {
      const bool staggered = digit.dim == s.dim && staggered_exact(q, s);
      if (!is_power_of_two(digit.radix) && !staggered) return Claim::estimate;
    }
    for (int i = 1; s.interleaved() && i < s.group.dimensions(); ++i) {
      if (!is_power_of_two(s.group.lengths[i])) return Claim::estimate;
    }
  }
  return Claim::exact;
}

}  // namespace vmc::internal
