// The alltoall front door: input checks, the call signature, dispatch.
#include "collectives/alltoall/alltoall.hpp"

#include "collectives/dispatch/checks.hpp"
#include "collectives/dispatch/dispatch.hpp"

namespace vmc {

namespace detail {

void alltoall_bytes(const Comm& comm, const void* send, std::size_t send_items, void* recv,
                    std::size_t recv_items, std::size_t item_size, const Options& options) {
  internal::require_valid(comm, "alltoall");
  using namespace internal;
  const std::size_t p = static_cast<std::size_t>(comm.size());
  require(comm, send_items % p == 0, "alltoall", [&] {
    return "the send buffer of " + std::to_string(send_items) +
           " items is not a multiple of p = " + std::to_string(p);
  });
  const std::size_t n = send_items / p;
  require(comm, recv_items >= n * p, "alltoall", [&] {
    return "the receive buffer holds " + std::to_string(recv_items) + " items but needs " +
           std::to_string(n * p) + " (n*p)";
  });
  require_no_alias(comm, send, n * p * item_size, recv, n * p * item_size, "alltoall");
  Call call = make_call(comm, send, recv, n, item_size, 0, options);
  dispatch_regular(Operation::alltoall, call, false,
                   make_signature("alltoall", nullptr, -1, n, item_size));
}

}  // namespace detail
}  // namespace vmc
