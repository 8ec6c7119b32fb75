// alltoall hypercube: 001 "All-to-all personalized", hypercube algorithm (summary table:
// t_s log p + t_w m (p/2) log p): store-and-forward across one dimension per step. Rank r
// keeps p slots; before step j slot i holds the block whose destination agrees with i on
// bits >= j and whose source agrees with i on bits < j (so at the start slot i is the
// block for rank i and at the end slot s is the block from rank s). In step j it sends
// the p/2 slots whose bit j differs from its own to the neighbour r XOR 2^j, which stores
// them in the same slot set (slot i arrives as slot i XOR 2^j, in the same order).
//
// Requires: p a power of two; equal blocks. Cost with blocks of n items, d = log2 p:
//   d (alpha + (p/2) n beta), exact under exchange, duplex and all on direct routing and
//   on hypercube:p (every message crosses one link).
#include "collectives/alltoall/alltoall_internal.hpp"
#include "collectives/costs/claims.hpp"
#include "collectives/patterns/binomial.hpp"
#include "collectives/primitives/p2p.hpp"

namespace vmc::internal {

void alltoall_hypercube(const Comm& comm, const void* send, void* recv, std::size_t n,
                        std::size_t item_size, Tag tag) {
  const int p = comm.size(), r = comm.rank();
  const std::size_t block = n * item_size;
  copy_items(recv, send, n * p, item_size);  // recv is the slot array
  if (p == 1 || n == 0) return;
  Bytes out(block * p / 2), in(block * p / 2);
  for (int bit = 1; bit < p; bit <<= 1) {
    std::size_t k = 0;
    for (int i = 0; i < p; ++i) {
      if ((i & bit) != (r & bit)) copy_items(&out[block * k++], at(recv, n * i, item_size), n, item_size);
    }
    sendrecv_items(comm, out.data(), n * p / 2, r ^ bit, in.data(), n * p / 2, r ^ bit, item_size,
                   tag);
    k = 0;
    for (int i = 0; i < p; ++i) {
      if ((i & bit) != (r & bit)) copy_items(at(recv, n * i, item_size), &in[block * k++], n, item_size);
    }
  }
}

Picos alltoall_hypercube_cost(const CostQuery& q) {
  if (q.p == 1 || q.n == 0) return 0;
  const Picos msg = q.units.message(q.n * static_cast<std::size_t>(q.p / 2));
  return patterns::ceil_log2(q.p) * (q.model.port == Port::half ? 2 * msg : msg);
}

void run_alltoall_hypercube(const Call& call) {
  alltoall_hypercube(*call.comm, call.send, call.recv, call.n, call.item_size, call.tag);
}
Picos cost_alltoall_hypercube(const CostQuery& q) { return alltoall_hypercube_cost(q); }

namespace {
Claim claim_hypercube(const CostQuery& q) { return internal::on_machine(q, Claim::exact, true); }
}  // namespace

Algorithm alltoall_hypercube_row() {
  return {
      .name = "hypercube",
      .description = "store-and-forward over the log p dimensions (001 hypercube)",
      .requirements = "p a power of two",
      .applicable = power_of_two_p,
      .cost = cost_alltoall_hypercube,
      .run = run_alltoall_hypercube,
      .claim = claim_hypercube,
  };
}

}  // namespace vmc::internal
