// Binomial broadcast: each node receives once from its parent and then sends to its
// children, largest subtree first, so after step k 2^k nodes hold the data (003 §4.1).
#include "collectives/internal/bcast_binomial.hpp"

#include "collectives/internal/p2p.hpp"
#include "collectives/patterns/binomial.hpp"

namespace vmc::internal {

void bcast_binomial_bytes(const Comm& comm, void* buf, std::size_t items, std::size_t item_size,
                          int root, Tag tag) {
  const int p = comm.size();
  if (p == 1 || items == 0) return;
  const int v = patterns::to_virtual(comm.rank(), root, p);
  if (v != 0) {
    recv_items(comm, buf, items, item_size,
               patterns::to_real(patterns::binomial_parent(v), root, p), tag);
  }
  for (int c : patterns::binomial_children(v, p)) {
    send_items(comm, buf, items, item_size, patterns::to_real(c, root, p), tag);
  }
}

Picos bcast_binomial_bytes_cost(const CostQuery& q, int p, std::size_t items) {
  if (p == 1 || items == 0) return 0;
  // The deepest chain: the child sent to last at each level; ceil(log2 p) messages.
  return patterns::ceil_log2(p) * q.units.message(items);
}

}  // namespace vmc::internal
