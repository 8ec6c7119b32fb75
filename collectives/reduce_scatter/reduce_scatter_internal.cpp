// Helpers of the reduce_scatter algorithms.
#include "collectives/reduce_scatter/reduce_scatter_internal.hpp"

namespace vmc::internal {

void run_reduce_scatter(const Call& call, const ReduceScatterFn& fn) {
  const Comm& comm = *call.comm;
  const Blocks b = call.recv_counts.empty() ? Blocks::equal(call.n, comm.size())
                                            : Blocks::contiguous(call.recv_counts);
  Bytes work(b.total() * call.item_size);
  copy_items(work.data(), call.send, b.total(), call.item_size);
  fn(comm, work.data(), call.item_size, b, *call.op, call.tag);
  const int r = comm.rank();
  copy_items(call.recv, at(work.data(), b.displs[r], call.item_size), b.counts[r],
             call.item_size);
}

}  // namespace vmc::internal
