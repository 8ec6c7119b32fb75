// Times no algorithm can beat: for each operation, a bound on the virtual time of one call
// derived from the machine model alone (docs/model.md), whatever the schedule. The claims
// sweep (formula_claims_test.cpp) holds every row to it, the rows whose formula is only an
// estimate included, so that no row can be faster than the machine allows.
//
// What the model gives (p > 1 nodes, all starting at 0; alpha, beta, gamma as CostUnits):
//
//   M  A message of m items between two nodes lasts at least alpha + m beta from its start
//      (a shared or slower link only stretches it, rendezvous only delays its start, and
//      store and forward pays that per hop). A node's combine of m items costs m gamma of
//      its own time, one combine after another.
//   P  How many transfers a node has at once (model items 5 to 7):
//        half     one transfer, sending or receiving;
//        duplex   one send and one receive;
//        exchange one partner at a time; several messages to or from it share one route,
//                 so under wormhole routing one stream each way, whose items pass at most
//                 one per beta (exclusive links) or one per min(beta, beta_net) (shared
//                 links: c messages each at max(beta, c beta_net)); under direct routing
//                 the messages to that partner are not limited at all;
//        all      under wormhole routing one message per link direction: a node's sends
//                 hold distinct links out of it, its receives distinct links into it, each
//                 link passing at most one item per beta (exclusive) or per min(beta,
//                 beta_net) (shared); under direct routing nothing limits them.
//      So V items that a node must send (or receive) through k streams of one item per b
//      take at least alpha + max(beta, ceil(V b / k)): no item moves before the first
//      startup has passed, and a message carrying an item lasts alpha + beta. Under half,
//      its sends and receives share the one stream (at least one startup each).
//   K  Knowledge spreads one message at a time. A message ending at t carries what its
//      sender knew when it started, at t - alpha or earlier. Where a node has at most f
//      transfers in each direction at once (f = 1 for half, duplex and exchange, whatever
//      the routing: exchange's several messages to one partner carry what that partner
//      knew; f = the node's links for all-port under exclusive wormhole links), the set of
//      nodes whose entry a node can depend on grows at most (f + 1)-fold per alpha, and so
//      does the set of nodes that can depend on one node's data. A result that depends on
//      k nodes therefore takes ceil(log_{f+1} k) alpha; under all-port with shared links or
//      direct routing, alpha (k > 1).
//   C  A result that depends on k contributions needs k - 1 applications of the op (each
//      merges two disjoint sets of contributions), one per item; the group's C item-
//      combines fall on p nodes, so one of them does ceil(C / p), all of them after its
//      first receive of an item (alpha + beta): each combine merges something the node
//      received.
//
// What each operation must move (n items; v-variants: counts[r] for rank r; nothing with
// n = 0 or all counts zero, where a call may return at once; a barrier always):
//
//   operation       a node must receive           a node must send          combines  K
//   broadcast       n (not the root)              n (the root)              0         p
//   scatter         n (not the root)              (p-1) n (the root)        0         p
//   scatterv        counts[r] (not the root)      sum of the others' (root) 0         1 + #others with a block
//   gather          (p-1) n (the root)            n (not the root)          0         p
//   gatherv         sum of the others' (root)     counts[r] (not the root)  0         1 + #others with a block
//   allgather       (p-1) n                       n                         0         p
//   allgatherv      total - counts[r]             counts[r]                 0         1 + #others with a block
//   alltoall        (p-1) n                       (p-1) n                   0         p
//   alltoallv       total - counts[r]             total - counts[r]         0         1 + #others with a block
//   reduce          n (the root)                  n (not the root)          (p-1) n   p
//   allreduce       n                             n                         (p-1) n   p
//   reduce_scatter  its block (n or counts[r])    the others' blocks        (p-1) total  p
//   scan            n (rank > 0)                  n (rank < p-1)            (p-1) n   p
//   exscan          n (rank > 0)                  n (rank < p-1)            (p-2) n   p
//   barrier         -                             -                         0         p
//
// (An item received is one item position: the data of another node reaches a node only in
// items, a combined item standing for one position; every block of the v-variants with
// counts goes to, or comes from, the node the operation names. alltoallv as the sweeps run
// it: rank r sends counts[d] items to every rank d.) The bound of a call is the largest of
// P over every node, C and K.
#pragma once

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <string>
#include <vector>

#include "collectives/registry.hpp"

namespace vmc::testing {

// What one call of an operation must do, by the table above.
struct Demand {
  std::vector<std::uint64_t> receive, send;  // items each rank must receive from / send to others
  std::uint64_t combines = 0;                // item-combines of the whole group
  int depends = 1;                           // nodes some result depends on (K)
};

inline Demand demand_of(Operation op, const CostQuery& q) {
  const int p = q.p;
  const std::uint64_t n = q.n;
  Demand d;
  d.receive.assign(p, 0);
  d.send.assign(p, 0);
  std::vector<std::uint64_t> counts(p, n);
  const bool v_form = op == Operation::scatterv || op == Operation::gatherv ||
                      op == Operation::allgatherv || op == Operation::alltoallv ||
                      (op == Operation::reduce_scatter && !q.counts.empty());
  if (v_form && !q.counts.empty()) counts.assign(q.counts.begin(), q.counts.end());
  const std::uint64_t total = std::accumulate(counts.begin(), counts.end(), std::uint64_t{0});
  if (op == Operation::barrier) {
    d.depends = p;
    return d;
  }
  if (total == 0) return d;  // nothing to move: a call may return at once
  // 1 + the ranks other than r with a block.
  auto with_blocks = [&](int r) {
    int k = 1;
    for (int s = 0; s < p; ++s) k += s != r && counts[s] > 0;
    return k;
  };
  const int root = q.root;
  for (int r = 0; r < p; ++r) {
    const bool at_root = r == root;
    switch (op) {
      case Operation::broadcast:
        d.receive[r] = at_root ? 0 : n;
        d.send[r] = at_root ? n : 0;
        break;
      case Operation::scatter:
      case Operation::scatterv:
        d.receive[r] = at_root ? 0 : counts[r];
        d.send[r] = at_root ? total - counts[r] : 0;
        break;
      case Operation::gather:
      case Operation::gatherv:
        d.receive[r] = at_root ? total - counts[r] : 0;
        d.send[r] = at_root ? 0 : counts[r];
        break;
      case Operation::allgather:
      case Operation::allgatherv:
        d.receive[r] = total - counts[r];
        d.send[r] = counts[r];
        break;
      case Operation::alltoall:
      case Operation::alltoallv:
        d.receive[r] = total - counts[r];
        d.send[r] = total - counts[r];
        break;
      case Operation::reduce:
        d.receive[r] = at_root ? n : 0;
        d.send[r] = at_root ? 0 : n;
        break;
      case Operation::allreduce:
        d.receive[r] = n;
        d.send[r] = n;
        break;
      case Operation::reduce_scatter:
        d.receive[r] = counts[r];
        d.send[r] = total - counts[r];
        break;
      case Operation::scan:
      case Operation::exscan:
        d.receive[r] = r > 0 ? n : 0;
        d.send[r] = r < p - 1 ? n : 0;
        break;
      case Operation::barrier: break;
    }
  }
  switch (op) {
    case Operation::scatterv:
    case Operation::gatherv: d.depends = with_blocks(root); break;
    case Operation::allgatherv:
    case Operation::alltoallv:
      d.depends = 1;
      for (int r = 0; r < p; ++r) d.depends = std::max(d.depends, with_blocks(r));
      break;
    default: d.depends = p; break;
  }
  switch (op) {
    case Operation::reduce:
    case Operation::allreduce:
    case Operation::scan: d.combines = std::uint64_t(p - 1) * n; break;
    case Operation::exscan: d.combines = std::uint64_t(p - 2) * n; break;
    case Operation::reduce_scatter: d.combines = std::uint64_t(p - 1) * total; break;
    default: break;
  }
  return d;
}

// How a node's transfers may overlap on q's machine (P and K above).
struct Streams {
  bool unlimited = false;    // nothing limits a node's concurrent messages (P: one message's time)
  bool one_port = false;     // half: sends and receives share one stream
  Picos item = 0;            // the most items a stream passes: one per `item`
  std::vector<int> out, in;  // streams out of and into each rank
  int fan = 1;               // K's f; 0: unlimited
};

inline Streams streams_of(const CostQuery& q) {
  const Model& m = q.model;
  const CostUnits& u = q.units;
  Streams s;
  s.out.assign(q.p, 1);
  s.in.assign(q.p, 1);
  const bool links = m.routing != Routing::direct && q.topology != nullptr;
  const Picos link_item =
      m.contention == Contention::exclusive ? u.beta : std::min(u.beta, u.beta_net);
  switch (m.port) {
    case Port::half:
      s.one_port = true;
      s.item = u.beta;
      break;
    case Port::duplex: s.item = u.beta; break;
    case Port::exchange:
      s.unlimited = !links;
      s.item = link_item;
      break;
    case Port::all: {
      s.unlimited = !links;
      s.item = link_item;
      s.fan = links && m.contention == Contention::exclusive ? 1 : 0;
      if (!links) break;
      // Links out of and into each rank's node.
      std::vector<int> rank_of(q.topology->vertices(), -1);
      for (int r = 0; r < q.p; ++r) rank_of[q.members.empty() ? r : q.members[r]] = r;
      std::fill(s.out.begin(), s.out.end(), 0);
      std::fill(s.in.begin(), s.in.end(), 0);
      for (LinkId l = 0; l < q.topology->link_count(); ++l) {
        const DirectedLink d = q.topology->link(l);
        if (rank_of[d.from] >= 0) ++s.out[rank_of[d.from]];
        if (rank_of[d.to] >= 0) ++s.in[rank_of[d.to]];
      }
      if (s.fan != 0) {
        s.fan = *std::max_element(s.out.begin(), s.out.end());
        s.fan = std::max(s.fan, *std::max_element(s.in.begin(), s.in.end()));
      }
      break;
    }
  }
  return s;
}

// ceil(x / y) for y > 0.
inline Picos ceil_div(Wide x, Picos y) { return static_cast<Picos>((x + y - 1) / y); }

// The bound of one call of op as q describes it (whole comm, equal or given counts), in
// picoseconds: no schedule of any algorithm on q's machine ends earlier.
inline Picos no_algorithm_beats(Operation op, const CostQuery& q) {
  if (q.p <= 1) return 0;
  const CostUnits& u = q.units;
  const Picos alpha = u.short_max_items > 0 ? std::min(u.alpha, u.short_alpha) : u.alpha;
  const Demand d = demand_of(op, q);
  const Streams s = streams_of(q);
  Picos bound = 0;
  // P: volume through a node's streams.
  auto through = [&](std::uint64_t items, int streams) -> Picos {
    if (items == 0) return 0;
    if (s.unlimited || streams == 0) return alpha + u.beta;
    return alpha + std::max(u.beta, ceil_div(Wide(items) * s.item, streams));
  };
  for (int r = 0; r < q.p; ++r) {
    if (s.one_port) {
      const std::uint64_t both = d.send[r] + d.receive[r];
      if (both == 0) continue;
      const int startups = (d.send[r] > 0) + (d.receive[r] > 0);
      bound = std::max(bound, startups * alpha + static_cast<Picos>(both) * u.beta);
      continue;
    }
    bound = std::max(bound, through(d.send[r], s.out[r]));
    bound = std::max(bound, through(d.receive[r], s.in[r]));
  }
  // C: the combines, on the busiest node, after its first receive.
  if (d.combines > 0 && u.gamma > 0) {
    const Picos busiest = ceil_div(Wide(d.combines), q.p);
    bound = std::max(bound, alpha + u.beta + busiest * u.gamma);
  }
  // K: rounds of alpha for the result that depends on the most nodes.
  if (d.depends > 1) {
    int rounds = 1;
    if (s.fan > 0) {
      rounds = 0;
      for (std::int64_t reach = 1; reach < d.depends; reach *= s.fan + 1) ++rounds;
    }
    bound = std::max(bound, rounds * alpha);
  }
  return bound;
}

}  // namespace vmc::testing
