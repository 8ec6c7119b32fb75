// Working buffers of the combining algorithms (buffers.hpp).
#include "collectives/primitives/buffers.hpp"

#include <cstring>

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
