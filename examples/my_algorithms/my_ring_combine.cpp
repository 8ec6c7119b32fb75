// allreduce "my_ring_combine" (my_algorithms.hpp): gather every vector with my_ring, then
// combine them in rank order.
#include <cstring>
#include <vector>

#include "my_algorithms.hpp"

void my_ring_combine(const vmc::Call& call) {
  const vmc::Comm& comm = *call.comm;
  const int p = comm.size();
  const std::size_t bytes = call.n * call.item_size;
  if (bytes == 0) return;
  std::vector<char> all(p * bytes);
  vmc::Call gather = call;
  gather.send = call.send != nullptr ? call.send : call.recv;  // in place: recv holds the input
  gather.recv = all.data();
  my_ring(gather);
  // x0 op x1 op ... op x(p-1): each partial on the left of the next vector.
  std::memcpy(call.recv, all.data(), bytes);
  for (int k = 1; k < p; ++k) {
    call.op->apply(call.recv, all.data() + k * bytes, call.recv, call.n);
    comm.charge_combine(call.n);
  }
}

vmc::Picos cost_my_ring_combine(const vmc::CostQuery& q) {
  return cost_my_ring(q) + (q.p - 1) * q.units.combine(q.n);
}
