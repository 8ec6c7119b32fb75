// barrier dissemination: in round k = 0, 1, ... every node sends an empty message to
// (r + 2^k) mod p and waits for one from (r - 2^k) mod p; after ceil(log2 p) rounds every
// node has heard, directly or not, from every other (the dissemination barrier; the
// pattern of 004's recursive doubling collect without data).
//
// Requires: nothing (any p).
// Cost, K = ceil(log2 p) rounds, A = the startup of an empty message (alpha):
//   duplex, all:   K A (each round one send and one receive at once).
//   exchange:      (2K - 1) A for p = 2^K, (2K + 2) A otherwise.
//   half:          2K A for p = 2^K, (2K + 2) A otherwise.
// Under exchange and half a node cannot send to one node while it receives from another,
// so a round takes two startups; the totals above are those of the schedule as the
// simulator runs it (the first rounds overlap on a power of two under exchange; other p pay
// for the wrap-around), found from virtual-time runs and held exactly for p = 1..33 by
// tests/collectives/formula_claims_test.cpp, and checked by hand at p = 40, 48, 63, 64, 65,
// 100, 127-129, 200, 256, 257. Exact on contention-free routing.
#include "collectives/costs/claims.hpp"
#include "collectives/patterns/binomial.hpp"
#include "collectives/primitives/blocks.hpp"
#include "collectives/primitives/trees.hpp"
#include "collectives/vocabulary/row.hpp"

namespace vmc::internal {

bool applicable_barrier_dissemination(const CostQuery&) { return true; }

Picos cost_barrier_dissemination(const CostQuery& q) {
  const Picos rounds = patterns::ceil_log2(q.p);
  const Picos startup = q.units.message(0);
  if (rounds == 0) return 0;
  if (!one_partner_ports(q)) return rounds * startup;
  const bool power_of_two = (q.p & (q.p - 1)) == 0;
  if (!power_of_two) return (2 * rounds + 2) * startup;
  return (q.model.port == Port::exchange ? 2 * rounds - 1 : 2 * rounds) * startup;
}

void run_barrier_dissemination(const Call& call) {
  const Comm& c = *call.comm;
  const int p = c.size(), r = c.rank();
  char none = 0;
  for (int k = 1; k < p; k <<= 1) {
    sendrecv_message(c, &none, 0, (r + k) % p, &none, 0, (r - k + p) % p, 1, call.tag);
  }
}

namespace {
Claim claim_dissemination(const CostQuery& q) {
  return internal::on_machine(q, Claim::exact, false);
}
}  // namespace

Algorithm barrier_dissemination_row() {
  return {
      .name = "dissemination",
      .description = "ceil(log p) rounds of empty messages to r + 2^k",
      .requirements = "nothing",
      .applicable = applicable_barrier_dissemination,
      .cost = cost_barrier_dissemination,
      .run = run_barrier_dissemination,
      .claim = claim_dissemination,
  };
}

}  // namespace vmc::internal
