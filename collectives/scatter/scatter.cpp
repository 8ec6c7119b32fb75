// The scatter front door: input checks, the call signature, dispatch.
#include "collectives/scatter/scatter.hpp"

#include "collectives/dispatch/checks.hpp"
#include "collectives/dispatch/dispatch.hpp"

namespace vmc {

namespace detail {

void scatter_bytes(const Comm& comm, const void* send, std::size_t send_items, void* recv,
                   std::size_t recv_items, std::size_t item_size, int root, bool in_place,
                   const Options& options) {
  internal::require_valid(comm, "scatter");
  using namespace internal;
  require_root(comm, root, "scatter");
  const std::size_t p = static_cast<std::size_t>(comm.size());
  const bool is_root = comm.rank() == root;
  std::size_t n = recv_items;
  if (is_root && in_place) {
    require(comm, send_items % p == 0, "scatter", [&] {
      return "in place, the root's buffer of " + std::to_string(send_items) +
             " items is not a multiple of p = " + std::to_string(p);
    });
    n = send_items / p;
    recv = nullptr;
  }
  if (is_root) {
    require(comm, send_items >= n * p, "scatter", [&] {
      return "the root's send buffer holds " + std::to_string(send_items) + " items but needs " +
             std::to_string(n * p) + " (n*p)";
    });
    if (!in_place) {
      require_no_alias(comm, send, n * p * item_size, recv, n * item_size, "scatter");
    }
  } else {
    send = nullptr;
  }
  Call call = make_call(comm, send, recv, n, item_size, root, options);
  dispatch_regular(Operation::scatter, call, in_place,
                   make_signature("scatter", nullptr, root, n, item_size));
}

}  // namespace detail
}  // namespace vmc
