// The reduce front door: input checks, the call signature, dispatch.
#include "collectives/reduce/reduce.hpp"

#include "collectives/dispatch/checks.hpp"
#include "collectives/dispatch/dispatch.hpp"

namespace vmc::detail {

void reduce_bytes(const Comm& comm, const void* send, std::size_t send_items, void* recv,
                  std::size_t recv_items, std::size_t item_size, const Op& op, int root,
                  const Options& options) {
  internal::require_valid(comm, "reduce");
  internal::require_root(comm, root, "reduce");
  internal::require_op_items(comm, op, item_size, "reduce");
  const bool in_place = send == nullptr;
  const std::size_t n = in_place ? recv_items : send_items;
  const bool at_root = comm.rank() == root;
  if (!in_place && at_root) {
    internal::require_recv_holds(comm, "reduce", recv_items, n);
    internal::require_no_alias(comm, send, n * item_size, recv, n * item_size, "reduce");
  }
  CallSignature sig{.operation = "reduce", .op = op.name(), .root = root, .count = n,
                    .item_size = item_size};
  Call call{.comm = &comm, .send = send, .recv = (in_place || at_root) ? recv : nullptr, .n = n,
            .item_size = item_size, .op = &op, .root = root, .options = &options};
  dispatch_regular(Operation::reduce, call, in_place, sig);
}

}  // namespace vmc::detail
