// What an algorithm's cost formula promises on a given machine (registry.hpp, Claim), from
// what it promises on the ideal machine of the sources: every pair of nodes joined by links
// of its own (000 §2, 001, 004 §2), only the port model shared.
//
// Each table states, per algorithm, the claim on that ideal machine (`ideal`) as a function
// of the port model, p and the costs, and whether every message of its schedule goes between
// nodes whose labels differ in one bit (`cube_pattern`: recursive doubling and halving,
// binomial trees, hypercube exchanges). On a real topology:
//   - where no two messages can share a link (direct routing, a fully connected topology,
//     no topology at all), the ideal claim holds;
//   - on a complete hypercube under wormhole routing, a cube-pattern algorithm's messages
//     each hold one link of their own (004 §2, e-cube), so the ideal claim holds there too;
//   - under the rendezvous protocol messages may wait for their receives: an exact formula
//     becomes a lower bound;
//   - elsewhere messages may wait for links, which only delays them: an exact formula
//     becomes a lower bound, and an estimate stays one.
// The formulas price every link at the model's beta_net. Per-class link rates (002 §3.3.4,
// Model::link_rates) are not in them: with_link_rates degrades any row's claim where a rate
// may change a time (registry/registry.cpp's claim_of applies it to every row).
// tests/collectives/formula_claims_test.cpp holds every row to its claim.
#pragma once

#include <algorithm>
#include <string>

#include "collectives/vocabulary/row.hpp"

namespace vmc::internal {

inline bool is_power_of_two(int p) { return p > 0 && (p & (p - 1)) == 0; }

// No two messages of any schedule on q's machine share a link.
inline bool links_private(const CostQuery& q) {
  if (q.topology == nullptr || q.model.routing == Routing::direct || q.p <= 1) return true;
  return q.topology->spec().rfind("full:", 0) == 0;
}

// q's comm is a whole complete hypercube (2^d nodes) under wormhole routing.
inline bool whole_hypercube(const CostQuery& q) {
  return q.topology != nullptr && q.model.routing == Routing::wormhole &&
         q.topology->spec().rfind("hypercube:", 0) == 0 && whole_machine(q) &&
         is_power_of_two(q.p);
}

inline Claim on_machine(const CostQuery& q, Claim ideal, bool cube_pattern) {
  // The formulas follow the eager schedules of the sources (001's non-blocking sends). Under
  // the rendezvous protocol a message waits until its receive is posted, so a node that
  // receives in a fixed order (a linear gather, a pipelined chain) takes its messages one after
  // another; that only delays messages, so an exact formula becomes a lower bound.
  if (q.model.protocol == Protocol::rendezvous && ideal == Claim::exact) {
    ideal = Claim::lower_bound;
  }
  if (links_private(q) || (cube_pattern && whole_hypercube(q))) return ideal;
  return ideal == Claim::estimate ? Claim::estimate : Claim::lower_bound;
}

// q's comm is the whole machine of a mesh, torus, array, ring or complete hypercube under
// wormhole routing: the group's mesh shape (primitives/group_mesh.hpp) is the network's own, and
// every message follows that mesh's dimension-order route (004 §2 assumption 4).
inline bool own_mesh(const CostQuery& q) {
  if (q.model.routing != Routing::wormhole || !whole_machine(q)) return false;
  const std::string f = q.topology->family();
  return f == "mesh" || f == "torus" || f == "array" || f == "ring" || whole_hypercube(q);
}

// The claim of an algorithm whose messages never share a directed link on the group's own
// mesh (004's dimensional rings): the ideal claim holds there as on private links (an exact
// formula a lower bound under rendezvous), and on_machine's elsewhere.
inline Claim on_own_mesh(const CostQuery& q, Claim ideal) {
  if (!own_mesh(q)) return on_machine(q, ideal, false);
  if (q.model.protocol == Protocol::rendezvous && ideal == Claim::exact) {
    return Claim::lower_bound;
  }
  return ideal;
}

// Port models under which a node sends and receives at once with any two partners.
inline bool two_sided_ports(const CostQuery& q) {
  return q.model.port == Port::duplex || q.model.port == Port::all;
}

// Every rank's block has the same count (the regular forms; v-variants with equal counts).
inline bool equal_counts(const CostQuery& q) {
  for (std::size_t c : q.counts) {
    if (c != q.counts.front()) return false;
  }
  return true;
}

// Claims several rows share, each a schedule of one shape on the ideal machine:
//
// A binomial tree on virtual ranks relative to the root: exact, a cube pattern when the root
// is 0 (broadcast, reduce, gather and scatter binomial).
inline Claim binomial_tree_claim(const CostQuery& q) {
  return on_machine(q, Claim::exact, q.root == 0);
}
// Recursive doubling of whole vectors with the extra ranks of a non-power-of-two p folded in
// pairwise: exact; under `half` the folded steps interleave (an estimate).
inline Claim folded_doubling_claim(const CostQuery& q) {
  if (q.model.port == Port::half && !is_power_of_two(q.p)) return Claim::estimate;
  return on_machine(q, Claim::exact, true);
}
// A ring of p-1 steps, each node sending to its right while it receives from its left
// (allgather and reduce_scatter ring): exact under two-sided ports for any counts; under
// one-partner ports exact for even p and a lower bound for odd p (each step is two rounds,
// and the rounds of an odd cycle drift), an estimate for unequal counts.
inline Claim ring_claim(const CostQuery& q) {
  if (two_sided_ports(q)) return on_machine(q, Claim::exact, false);
  if (!equal_counts(q)) return Claim::estimate;
  return on_machine(q, q.p % 2 == 0 ? Claim::exact : Claim::lower_bound, false);
}
// p-1 shifts, step k exchanging with rank+k and rank-k (alltoall ring, reduce_scatter
// pairwise): exact under two-sided ports, and under exchange for p = 2 and 4; elsewhere the
// shifts of odd cycles interleave under one-partner ports (a lower bound). With unequal
// counts the formula takes the largest (an estimate).
inline Claim shift_exchange_claim(const CostQuery& q) {
  if (!equal_counts(q)) return Claim::estimate;
  const bool exact = two_sided_ports(q) || q.p == 1 ||
                     (q.model.port == Port::exchange && (q.p == 2 || q.p == 4));
  return on_machine(q, exact ? Claim::exact : Claim::lower_bound, false);
}

// A claim on a machine with per-class link rates. A rate that leaves every per-item time as
// it was changes nothing: under exclusive links (no sharing) one with max(beta, r) equal to
// max(beta, beta_net), under shared links one equal to beta_net. Otherwise the formula's
// link time is wrong for some links: where every rate is slower than beta_net a message can
// only take longer (an exact formula becomes a lower bound); where one is faster it may also
// take less (no promise is left: an estimate).
inline Claim with_link_rates(const CostQuery& q, Claim c) {
  if (q.model.link_rates.empty() || links_private(q) || c == Claim::estimate) return c;
  const bool shared = q.model.contention == Contention::shared;
  const Picos beta = q.units.beta, net = q.units.beta_net;
  bool changes = false, faster = false;
  for (const LinkRate& r : q.model.link_rates) {
    const Picos rate = to_picos(r.beta_net);
    const Picos now = shared ? rate : std::max(beta, rate);
    const Picos was = shared ? net : std::max(beta, net);
    changes = changes || now != was;
    faster = faster || now < was;
  }
  if (!changes) return c;
  if (faster) return Claim::estimate;
  return Claim::lower_bound;
}

}  // namespace vmc::internal
