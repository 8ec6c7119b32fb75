// Shared plumbing of the combine-family wrappers (broadcast, reduce, allreduce, scan,
// exscan, barrier): input checks that name the node, and the working buffers an algorithm
// needs. The typed public headers (collectives/<op>/<op>.hpp) call the *_bytes entry points
// declared here; each is defined in collectives/<op>/<op>.cpp.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "collectives/op.hpp"
#include "collectives/registry.hpp"
#include "runtime/comm.hpp"

namespace vmc::detail {

void broadcast_bytes(const Comm& comm, void* data, std::size_t n, std::size_t item_size,
                     int root, const Options& options);
// send == nullptr: in place (recv holds every node's contribution, the result at the root).
void reduce_bytes(const Comm& comm, const void* send, std::size_t send_items, void* recv,
                  std::size_t recv_items, std::size_t item_size, const Op& op, int root,
                  const Options& options);
void allreduce_bytes(const Comm& comm, const void* send, std::size_t send_items, void* recv,
                     std::size_t recv_items, std::size_t item_size, const Op& op,
                     const Options& options);
// operation: Operation::scan or Operation::exscan.
void scan_bytes(Operation operation, const Comm& comm, const void* send, std::size_t send_items,
                void* recv, std::size_t recv_items, std::size_t item_size, const Op& op,
                const Options& options);
void barrier_run(const Comm& comm, const Options& options);

}  // namespace vmc::detail

namespace vmc::internal {

// A node's working copy of its contribution: call.send, or call.recv when in place. Padded
// with zero bytes to `items` items (items >= call.n).
Bytes contribution(const Call& call, std::size_t items);
// Scratch of `items` items.
inline Bytes scratch(const Call& call, std::size_t items) {
  return Bytes(items * call.item_size);
}
// Copies the first call.n items of `result` to call.recv.
void deliver(const Call& call, const Bytes& result);
// ceil(n / k) for k >= 1.
inline std::size_t ceil_div(std::size_t n, std::size_t k) { return (n + k - 1) / k; }

}  // namespace vmc::internal
