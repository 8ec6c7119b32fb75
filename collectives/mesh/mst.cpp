// The MST pieces of 004 on byte buffers (mesh_mst.hpp).
#include "collectives/mesh/mst.hpp"

#include <algorithm>

#include "collectives/costs/claims.hpp"
#include "collectives/patterns/binomial.hpp"
#include "collectives/primitives/blocks.hpp"
#include "collectives/primitives/group_mesh.hpp"
#include "collectives/primitives/p2p.hpp"
#include "collectives/primitives/trees.hpp"

namespace vmc::internal {

using patterns::MstChild;
using patterns::MstFlow;
using patterns::MstNode;
using patterns::MstTree;

MstTree mst_tree(const Comm& c, int root, MstFlow flow) {
  return MstTree(mesh_shape_of(c), root, flow);
}

MstTree mst_tree(const CostQuery& q, MstFlow flow) {
  return MstTree(mesh_shape_of(q), q.root, flow);
}

namespace {
// 004 §7: below this imbalance one more startup costs more than the data time it saves.
double switch_items(const CostUnits& u) {
  const Picos beta = u.item_time();
  return beta == 0 ? 1e300 : double(u.alpha) / double(beta);
}
}  // namespace

MstTree mst_data_tree(const Comm& c, int root, MstFlow flow,
                      std::span<const std::size_t> counts) {
  return MstTree(mesh_shape_of(c), root, flow, counts, switch_items(c.units()));
}

MstTree mst_data_tree(const CostQuery& q, MstFlow flow, std::span<const std::size_t> counts) {
  return MstTree(mesh_shape_of(q), q.root, flow, counts, switch_items(q.units));
}

TreeView whole(const MstTree& t, const Comm& c) { return {&t, {}, c.rank()}; }

std::vector<std::size_t> line_prefix(const MstTree& t, std::span<const std::size_t> counts) {
  std::vector<std::size_t> prefix(t.size() + 1, 0);
  for (int q = 0; q < t.size(); ++q) prefix[q + 1] = prefix[q] + counts[t.rank_at(q)];
  return prefix;
}

namespace {
// Tree ranks with parents before their children (by step).
std::vector<MstNode> nodes_top_down(const MstTree& t) {
  std::vector<MstNode> nodes;
  for (int r = 0; r < t.size(); ++r) nodes.push_back(t.node(r));
  std::stable_sort(nodes.begin(), nodes.end(),
                   [](const MstNode& a, const MstNode& b) { return a.step < b.step; });
  return nodes;
}

std::size_t part_items(std::span<const std::size_t> prefix, int first, int size) {
  return prefix[first + size] - prefix[first];
}

// One node's receives under the simulator's rules (runtime/simulator.cpp): `ready` the
// times its children's messages are requested (and the sender ranks), in the order it posts
// their receives, message j of duration d[j]; after each receive it combines for g and posts
// the next. A free port goes to the message it waits for, else to the oldest (request time,
// then sender rank); under all-port nodes every message starts when requested. Returns when
// the last combine ends.
Picos receive_in_turn(const CostQuery& q, const std::vector<std::pair<Picos, int>>& ready,
                      const std::vector<Picos>& d, Picos g) {
  const std::size_t k = ready.size();
  std::vector<Picos> end(k, 0);
  std::vector<bool> started(k, q.model.port == Port::all);
  if (q.model.port == Port::all) {
    for (std::size_t j = 0; j < k; ++j) end[j] = ready[j].first + d[j];
  }
  Picos port = 0;
  for (std::size_t n = 0; n < k && q.model.port != Port::all; ++n) {
    std::size_t first = 0;
    while (started[first]) ++first;
    Picos posted = 0, earliest = -1;
    for (std::size_t j = 0; j < first; ++j) posted = std::max(posted, end[j]) + g;
    for (std::size_t j = first; j < k; ++j) {
      if (!started[j] && (earliest < 0 || ready[j].first < earliest)) earliest = ready[j].first;
    }
    const Picos t = std::max(port, earliest);
    std::size_t pick = first;
    if (ready[first].first > t || posted > t) {
      for (std::size_t j = first; j < k; ++j) {
        if (started[j] || ready[j].first > t) continue;
        if (pick == first || ready[j] < ready[pick]) pick = j;
      }
    }
    started[pick] = true;
    end[pick] = t + d[pick];
    port = end[pick];
  }
  Picos done = 0;
  for (std::size_t j = 0; j < k; ++j) done = std::max(done, end[j]) + g;
  return done;
}
}  // namespace

// --- broadcast and reduction -------------------------------------------------------------
void mst_bcast(const Comm& c, const TreeView& v, void* buf, std::size_t n, std::size_t isz,
               Tag tag) {
  const MstNode node = v.tree->node(v.me);
  if (node.parent >= 0) recv_message(c, buf, n, isz, v.comm_rank(node.parent), tag);
  for (const MstChild& child : node.children) {
    send_message(c, buf, n, isz, v.comm_rank(child.rank), tag);
  }
}

Picos mst_bcast_cost(const CostQuery& q, const MstTree& t, std::size_t n) {
  return patterns::ceil_log2(t.size()) * trees::msg(q, n);
}

Picos mst_bcast_time(const MstTree& t, const EdgeTime& msg) {
  std::vector<Picos> got(t.size(), 0);
  Picos last = 0;
  for (const MstNode& node : nodes_top_down(t)) {
    Picos now = got[node.rank];
    for (const MstChild& child : node.children) {
      now = checked_add(now, msg(node.rank, child.rank), "broadcast time");
      got[child.rank] = now;
      last = std::max(last, now);
    }
  }
  return last;
}

void mst_reduce(const Comm& c, const TreeView& v, void* acc, void* tmp, std::size_t n,
                std::size_t isz, const Op& op, Tag tag) {
  const MstNode node = v.tree->node(v.me);
  int hi = v.tree->position(v.me);  // acc covers line positions up to hi
  for (auto it = node.children.rbegin(); it != node.children.rend(); ++it) {
    recv_message(c, tmp, n, isz, v.comm_rank(it->rank), tag);
    if (it->first > hi) {  // the child's range follows ours
      trees::combine(c, op, acc, tmp, acc, n);
      hi = it->first + it->size - 1;
    } else {
      trees::combine(c, op, tmp, acc, acc, n);
    }
  }
  if (node.parent >= 0) send_message(c, acc, n, isz, v.comm_rank(node.parent), tag);
}

Picos mst_reduce_cost(const CostQuery& q, const MstTree& t, std::size_t n) {
  const Picos m = trees::msg(q, n);
  return mst_reduce_time(q, t, [m](int, int) { return m; }, trees::comb(q, n));
}

Picos mst_reduce_time(const CostQuery& q, const MstTree& t, const EdgeTime& msg, Picos comb) {
  auto nodes = nodes_top_down(t);
  std::vector<Picos> done(t.size(), 0);
  for (auto it = nodes.rbegin(); it != nodes.rend(); ++it) {  // children first
    std::vector<std::pair<Picos, int>> ready;
    std::vector<Picos> d;
    for (auto c = it->children.rbegin(); c != it->children.rend(); ++c) {
      ready.push_back({done[c->rank], c->rank});
      d.push_back(msg(it->rank, c->rank));
    }
    done[it->rank] = receive_in_turn(q, ready, d, comb);
  }
  return done[t.root()];
}

// --- scatter and gather of parts ---------------------------------------------------------
void mst_scatter_parts(const Comm& c, const TreeView& v, std::span<const std::size_t> prefix,
                       void* sub, std::size_t isz, Tag tag) {
  const MstNode node = v.tree->node(v.me);
  const std::size_t base = prefix[node.first];
  if (node.parent >= 0) {
    recv_items(c, sub, part_items(prefix, node.first, node.size), isz,
               v.comm_rank(node.parent), tag);
  }
  for (const MstChild& child : node.children) {
    send_items(c, at(sub, prefix[child.first] - base, isz),
               part_items(prefix, child.first, child.size), isz, v.comm_rank(child.rank), tag);
  }
}

std::vector<Picos> mst_scatter_times(const CostQuery& q, const MstTree& t,
                                     std::span<const std::size_t> prefix, Picos start) {
  std::vector<Picos> got(t.size(), start), done(t.size(), start);
  for (const MstNode& node : nodes_top_down(t)) {
    Picos now = got[node.rank];
    for (const MstChild& child : node.children) {
      now += message_time(q, part_items(prefix, child.first, child.size));
      got[child.rank] = now;
    }
    done[node.rank] = now;
  }
  return done;
}

void mst_gather_parts(const Comm& c, const TreeView& v, std::span<const std::size_t> prefix,
                      void* sub, std::size_t isz, Tag tag) {
  const MstNode node = v.tree->node(v.me);
  const std::size_t base = prefix[node.first];
  for (auto it = node.children.rbegin(); it != node.children.rend(); ++it) {
    recv_items(c, at(sub, prefix[it->first] - base, isz), part_items(prefix, it->first, it->size),
               isz, v.comm_rank(it->rank), tag);
  }
  if (node.parent >= 0) {
    send_items(c, sub, part_items(prefix, node.first, node.size), isz, v.comm_rank(node.parent),
               tag);
  }
}

std::vector<Picos> mst_gather_times(const CostQuery& q, const MstTree& t,
                                    std::span<const std::size_t> prefix,
                                    std::span<const Picos> ready) {
  auto nodes = nodes_top_down(t);
  std::vector<Picos> done(ready.begin(), ready.end());
  std::vector<std::pair<Picos, Picos>> jobs;
  for (auto it = nodes.rbegin(); it != nodes.rend(); ++it) {  // children first
    jobs.clear();
    for (const MstChild& child : it->children) {
      const std::size_t items = part_items(prefix, child.first, child.size);
      if (items > 0) jobs.push_back({done[child.rank], q.units.message(items)});
    }
    Picos end = 0;
    if (q.model.port == Port::all) {
      for (auto [r, d] : jobs) end = std::max(end, r + d);
    } else {  // one at a time, never idle while one waits: any such order ends alike
      std::sort(jobs.begin(), jobs.end());
      for (auto [r, d] : jobs) end = std::max(end, r) + d;
    }
    done[it->rank] = std::max(done[it->rank], end);
  }
  return done;
}

Claim dims_claim(const CostQuery& q) {
  bool pairs = true;
  for (int m : mesh_shape_of(q).lengths) pairs = pairs && m <= 2;
  const Claim ideal = two_sided_ports(q) || pairs ? Claim::exact : Claim::lower_bound;
  return own_mesh(q) ? on_own_mesh(q, ideal) : on_machine(q, ideal, false);
}

Claim mst_claim(const CostQuery& q, Claim ideal, bool inward) {
  const bool free = own_mesh(q) && patterns::mst_contention_free(mesh_shape_of(q));
  if (free && !(inward && q.model.port == Port::all)) return on_own_mesh(q, ideal);
  return on_machine(q, ideal, false);
}

}  // namespace vmc::internal
