// allgather "my_ring" (my_algorithms.hpp): every block once around the ring.
#include <cstring>

#include "my_algorithms.hpp"

void my_ring(const vmc::Call& call) {
  const vmc::Comm& comm = *call.comm;
  const int p = comm.size(), r = comm.rank();
  const std::size_t block = call.n * call.item_size;
  char* all = static_cast<char*>(call.recv);
  if (call.send != nullptr && block > 0) std::memcpy(all + r * block, call.send, block);
  if (block == 0) return;
  for (int k = 0; k + 1 < p; ++k) {
    const int out = (r - k + p) % p, in = (r - k - 1 + p) % p;
    comm.sendrecv_raw(all + out * block, block, call.n, (r + 1) % p, all + in * block, block,
                      call.item_size, (r - 1 + p) % p, call.tag);
  }
}

vmc::Picos cost_my_ring(const vmc::CostQuery& q) {
  if (q.p == 1 || q.n == 0) return 0;
  const bool one_at_a_time = q.model.port == vmc::Port::half ||
                             (q.model.port == vmc::Port::exchange && q.p > 2);
  return (one_at_a_time ? 2 : 1) * (q.p - 1) * q.units.message(q.n);
}
