// Input checks and working buffers of the combine-family wrappers; see combine_call.hpp.
#include "collectives/internal/combine_call.hpp"

#include <cstring>

#include "collectives/dispatch.hpp"
#include "collectives/internal/validate.hpp"

namespace vmc::internal {

Bytes contribution(const Call& call, std::size_t items) {
  Bytes buf(items * call.item_size);
  if (!data_moves_here()) return buf;
  const void* src = call.send != nullptr ? call.send : call.recv;
  const std::size_t bytes = call.n * call.item_size;
  copy_data(buf.data(), src, bytes);
  std::memset(buf.data() + bytes, 0, buf.size() - bytes);  // the padding
  return buf;
}

void deliver(const Call& call, const Bytes& result) {
  if (call.n > 0) copy_data(call.recv, result.data(), call.n * call.item_size);
}

}  // namespace vmc::internal

namespace vmc::detail {

namespace {
void check_recv(const Comm& comm, const std::string& operation, std::size_t recv_items,
                std::size_t n) {
  internal::require(comm, recv_items >= n, operation, [&] {
    return "the receive buffer holds " + std::to_string(recv_items) +
           " items but the send buffer has " + std::to_string(n);
  });
}
}  // namespace

void broadcast_bytes(const Comm& comm, void* data, std::size_t n, std::size_t item_size,
                     int root, const Options& options) {
  internal::require_valid(comm, "broadcast");
  internal::require_root(comm, root, "broadcast");
  CallSignature sig{.operation = "broadcast", .op = "", .root = root, .count = n,
                    .item_size = item_size};
  Call call{.comm = &comm, .send = nullptr, .recv = data, .n = n, .item_size = item_size,
            .root = root, .options = &options};
  invoke(Operation::broadcast, call,
         make_query(comm, n, root, item_size, nullptr, true, options), sig);
}

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
    check_recv(comm, "reduce", recv_items, n);
    internal::require_no_alias(comm, send, n * item_size, recv, n * item_size, "reduce");
  }
  CallSignature sig{.operation = "reduce", .op = op.name(), .root = root, .count = n,
                    .item_size = item_size};
  Call call{.comm = &comm, .send = send, .recv = (in_place || at_root) ? recv : nullptr, .n = n,
            .item_size = item_size, .op = &op, .root = root, .options = &options};
  invoke(Operation::reduce, call,
         make_query(comm, n, root, item_size, &op, in_place, options), sig);
}

void allreduce_bytes(const Comm& comm, const void* send, std::size_t send_items, void* recv,
                     std::size_t recv_items, std::size_t item_size, const Op& op,
                     const Options& options) {
  internal::require_valid(comm, "allreduce");
  internal::require_op_items(comm, op, item_size, "allreduce");
  const bool in_place = send == nullptr;
  const std::size_t n = in_place ? recv_items : send_items;
  if (!in_place) {
    check_recv(comm, "allreduce", recv_items, n);
    internal::require_no_alias(comm, send, n * item_size, recv, n * item_size, "allreduce");
  }
  CallSignature sig{.operation = "allreduce", .op = op.name(), .root = -1, .count = n,
                    .item_size = item_size};
  Call call{.comm = &comm, .send = send, .recv = recv, .n = n, .item_size = item_size,
            .op = &op, .options = &options};
  invoke(Operation::allreduce, call,
         make_query(comm, n, 0, item_size, &op, in_place, options), sig);
}

void scan_bytes(Operation operation, const Comm& comm, const void* send, std::size_t send_items,
                void* recv, std::size_t recv_items, std::size_t item_size, const Op& op,
                const Options& options) {
  internal::require_valid(comm, to_string(operation));
  const std::string name = to_string(operation);
  internal::require_op_items(comm, op, item_size, name);
  const bool in_place = send == nullptr;
  const std::size_t n = in_place ? recv_items : send_items;
  if (!in_place) {
    check_recv(comm, name, recv_items, n);
    internal::require_no_alias(comm, send, n * item_size, recv, n * item_size, name);
  }
  CallSignature sig{.operation = name, .op = op.name(), .root = -1, .count = n,
                    .item_size = item_size};
  Call call{.comm = &comm, .send = send, .recv = recv, .n = n, .item_size = item_size,
            .op = &op, .options = &options};
  invoke(operation, call, make_query(comm, n, 0, item_size, &op, in_place, options), sig);
}

void barrier_run(const Comm& comm, const Options& options) {
  internal::require_valid(comm, "barrier");
  CallSignature sig{.operation = "barrier", .op = "", .root = -1, .count = 0, .item_size = 0};
  Call call{.comm = &comm, .n = 0, .item_size = 1, .options = &options};
  invoke(Operation::barrier, call, make_query(comm, 0, 0, 1, nullptr, false, options), sig);
}

}  // namespace vmc::detail
