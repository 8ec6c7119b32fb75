// The gather front door: input checks, the call signature, dispatch.
#include "collectives/gather/gather.hpp"

#include "collectives/dispatch/checks.hpp"
#include "collectives/dispatch/dispatch.hpp"

namespace vmc {

namespace detail {

void gather_bytes(const Comm& comm, const void* send, std::size_t send_items, void* recv,
                  std::size_t recv_items, std::size_t item_size, int root, bool in_place,
                  const Options& options) {
  internal::require_valid(comm, "gather");
  using namespace internal;
  require_root(comm, root, "gather");
  const std::size_t p = static_cast<std::size_t>(comm.size());
  const bool is_root = comm.rank() == root;
  std::size_t n = send_items;
  if (is_root && in_place) {
    require(comm, recv_items % p == 0, "gather", [&] {
      return "in place, the root's buffer of " + std::to_string(recv_items) +
             " items is not a multiple of p = " + std::to_string(p);
    });
    n = recv_items / p;
    send = nullptr;
  }
  if (is_root) {
    require(comm, recv_items >= n * p, "gather", [&] {
      return "the root's receive buffer holds " + std::to_string(recv_items) + " items but needs " +
             std::to_string(n * p) + " (n*p)";
    });
    if (!in_place) {
      require_no_alias(comm, send, n * item_size, recv, n * p * item_size, "gather");
    }
  } else {
    recv = nullptr;
  }
  Call call = make_call(comm, send, recv, n, item_size, root, options);
  dispatch_regular(Operation::gather, call, in_place,
                   make_signature("gather", nullptr, root, n, item_size));
}

}  // namespace detail
}  // namespace vmc
