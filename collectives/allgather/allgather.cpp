// The allgather front door: input checks, the call signature, dispatch.
#include "collectives/allgather/allgather.hpp"

#include "collectives/dispatch/checks.hpp"
#include "collectives/dispatch/dispatch.hpp"

namespace vmc {

namespace {
void run(const Comm& comm, const void* send, void* recv, std::size_t n, std::size_t item_size,
         const Options& options) {
  dispatch_regular(Operation::allgather, make_call(comm, send, recv, n, item_size, 0, options),
                   send == nullptr, make_signature("allgather", nullptr, -1, n, item_size));
}
}  // namespace

namespace detail {

void allgather_bytes(const Comm& comm, const void* send, std::size_t send_items, void* recv,
                     std::size_t recv_items, std::size_t item_size, const Options& options) {
  internal::require_valid(comm, "allgather");
  const std::size_t p = static_cast<std::size_t>(comm.size());
  internal::require(comm, recv_items >= send_items * p, "allgather", [&] {
    return "the receive buffer holds " + std::to_string(recv_items) + " items but needs " +
           std::to_string(send_items * p) + " (n*p)";
  });
  internal::require_no_alias(comm, send, send_items * item_size, recv,
                             send_items * p * item_size, "allgather");
  run(comm, send, recv, send_items, item_size, options);
}

void allgather_in_place_bytes(const Comm& comm, void* recv, std::size_t recv_items,
                              std::size_t item_size, const Options& options) {
  internal::require_valid(comm, "allgather");
  const std::size_t p = static_cast<std::size_t>(comm.size());
  internal::require(comm, recv_items % p == 0, "allgather", [&] {
    return "in place, the buffer of " + std::to_string(recv_items) +
           " items is not a multiple of p = " + std::to_string(p);
  });
  run(comm, nullptr, recv, recv_items / p, item_size, options);
}

}  // namespace detail
}  // namespace vmc
