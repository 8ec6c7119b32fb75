// Working buffers of the combining algorithms: a node's own copy of its contribution,
// scratch, and the copy of a result into the caller's receive buffer.
#pragma once

#include <cstddef>

#include "collectives/vocabulary/call.hpp"
#include "runtime/scratch.hpp"

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
