// The broadcast front door: input checks, the call signature, dispatch.
#include "collectives/broadcast/broadcast.hpp"

#include "collectives/dispatch/checks.hpp"
#include "collectives/dispatch/dispatch.hpp"

namespace vmc::detail {

void broadcast_bytes(const Comm& comm, void* data, std::size_t n, std::size_t item_size,
                     int root, const Options& options) {
  internal::require_valid(comm, "broadcast");
  internal::require_root(comm, root, "broadcast");
  CallSignature sig{.operation = "broadcast", .op = "", .root = root, .count = n,
                    .item_size = item_size};
  Call call{.comm = &comm, .send = nullptr, .recv = data, .n = n, .item_size = item_size,
            .root = root, .options = &options};
  dispatch_regular(Operation::broadcast, call, true, sig);
}

}  // namespace vmc::detail
