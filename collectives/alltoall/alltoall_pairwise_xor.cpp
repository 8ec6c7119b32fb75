// alltoall pairwise_xor: 001 "All-to-all personalized: optimal algorithm": in step
// k = 1 .. p-1 every rank exchanges its blocks with rank r XOR k. On a hypercube with
// e-cube routing the messages of one step use disjoint links (001 "E-cube routing"), so
// the algorithm is contention-free under wormhole routing.
//
// Requires: p a power of two (for other p the XOR partner may not exist; use ring).
// Cost with blocks of n items: (p-1) (alpha + n beta) (001: (t_s + t_w m)(p-1)) under
// exchange, duplex and all, exact on direct routing and on hypercube:p with wormhole.
// alltoallv: n is the largest of the caller's counts, an estimate.
#include <algorithm>

#include "collectives/alltoall/alltoall_internal.hpp"
#include "collectives/costs/claims.hpp"
#include "collectives/primitives/p2p.hpp"

namespace vmc::internal {

void alltoall_pairwise_xor(const Comm& comm, const void* send, const Blocks& sb, void* recv,
                           const Blocks& rb, std::size_t item_size, Tag tag) {
  const int p = comm.size(), r = comm.rank();
  copy_items(at(recv, rb.displs[r], item_size), at(send, sb.displs[r], item_size),
             std::min(sb.counts[r], rb.counts[r]), item_size);
  for (int k = 1; k < p; ++k) {
    const int partner = r ^ k;
    sendrecv_items(comm, at(send, sb.displs[partner], item_size), sb.counts[partner], partner,
                   at(recv, rb.displs[partner], item_size), rb.counts[partner], partner,
                   item_size, tag);
  }
}

Picos alltoall_pairwise_xor_cost(const CostQuery& q) {
  std::size_t n = q.n;
  for (std::size_t c : q.counts) n = std::max(n, c);
  const Picos msg = message_time(q, n);
  return (q.p - 1) * (q.model.port == Port::half ? 2 * msg : msg);
}

bool power_of_two_p(const CostQuery& q) { return (q.p & (q.p - 1)) == 0; }

void run_alltoall_pairwise_xor(const Call& call) {
  alltoall_pairwise_xor(*call.comm, call.send, alltoall_send_layout(call), call.recv,
                        alltoall_recv_layout(call), call.item_size, call.tag);
}
Picos cost_alltoall_pairwise_xor(const CostQuery& q) { return alltoall_pairwise_xor_cost(q); }

namespace {
// With unequal counts (alltoallv) the formula takes the largest of the caller's: an estimate.
Claim claim_pairwise_xor(const CostQuery& q) {
  if (!internal::equal_counts(q)) return Claim::estimate;
  return internal::on_machine(q, Claim::exact, true);
}
}  // namespace

namespace {
Algorithm pairwise_xor_row(Operation op) {
  return {
      .name = "pairwise_xor",
      .description = op == Operation::alltoall
                         ? "exchange with rank XOR k in step k (001, e-cube contention-free)"
                         : "exchange with rank XOR k in step k (001)",
      .requirements = "p a power of two",
      .applicable = power_of_two_p,
      .cost = cost_alltoall_pairwise_xor,
      .run = run_alltoall_pairwise_xor,
      .claim = claim_pairwise_xor,
  };
}
}  // namespace

// The lines of collectives/alltoall/table.cpp: the same algorithm for both forms.
Algorithm alltoall_pairwise_xor_row() { return pairwise_xor_row(Operation::alltoall); }
Algorithm alltoallv_pairwise_xor_row() { return pairwise_xor_row(Operation::alltoallv); }

}  // namespace vmc::internal
