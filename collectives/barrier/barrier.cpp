// The barrier front door: the call signature, dispatch.
#include "collectives/barrier/barrier.hpp"

#include "collectives/dispatch/checks.hpp"
#include "collectives/dispatch/dispatch.hpp"

namespace vmc::detail {

void barrier_run(const Comm& comm, const Options& options) {
  internal::require_valid(comm, "barrier");
  CallSignature sig{.operation = "barrier", .op = "", .root = -1, .count = 0, .item_size = 0};
  Call call{.comm = &comm, .n = 0, .item_size = 1, .options = &options};
  dispatch_regular(Operation::barrier, call, false, sig);
}

}  // namespace vmc::detail
