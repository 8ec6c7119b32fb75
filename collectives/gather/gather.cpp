// The gather and gatherv wrappers: input checks, the call signature, dispatch.
#include "collectives/gather/gather.hpp"

#include "collectives/dispatch.hpp"
#include "collectives/gather/algorithms.hpp"
#include "collectives/internal/call.hpp"
#include "collectives/internal/validate.hpp"

namespace vmc {

namespace internal {
Blocks gather_layout(const Call& call) {
  if (call.recv_counts.empty()) return Blocks::equal(call.n, call.comm->size());
  return Blocks::explicit_layout(call.recv_counts, call.recv_displs);
}
}  // namespace internal

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
  invoke(Operation::gather, call, make_query(comm, n, root, item_size, nullptr, in_place, options),
         make_signature("gather", nullptr, root, n, item_size));
}

void gatherv_bytes(const Comm& comm, const void* send, std::size_t send_items, void* recv,
                   std::size_t recv_items, std::span<const std::size_t> counts,
                   std::span<const std::size_t> displs, std::size_t item_size, int root,
                   const Options& options) {
  internal::require_valid(comm, "gatherv");
  using namespace internal;
  require_root(comm, root, "gatherv");
  const bool is_root = comm.rank() == root;
  std::vector<std::size_t> own_displs;
  if (!is_root && displs.empty()) {
    own_displs = Blocks::contiguous(counts).displs;
    displs = own_displs;
  }
  require_layout(comm, counts, displs, is_root ? recv_items : SIZE_MAX, "gatherv", "receive");
  const std::size_t mine = counts[comm.rank()];
  const bool in_place = is_root && send == nullptr && send_items == 0;
  if (!in_place) {
    require(comm, send_items >= mine, "gatherv", [&] {
      return "the send buffer holds " + std::to_string(send_items) + " items but counts[rank] is " +
             std::to_string(mine);
    });
  }
  if (is_root && !in_place) {
    require_no_alias(comm, send, mine * item_size, recv, recv_items * item_size, "gatherv");
  }
  std::size_t total = 0;
  for (std::size_t c : counts) total += c;
  Call call = make_call(comm, in_place ? nullptr : send, is_root ? recv : nullptr, mine,
                        item_size, root, options);
  call.recv_counts = counts;
  call.recv_displs = displs;
  // Selection sees what every member sees alike: the whole counts vector (q.n is unused;
  // in place is the root's choice alone, and no cost depends on it).
  CostQuery q = make_query(comm, 0, root, item_size, nullptr, false, options);
  q.counts.assign(counts.begin(), counts.end());
  CallSignature sig = make_signature("gatherv", nullptr, root, total, item_size, false);
  sig.layout = counts_hash(counts);
  invoke(Operation::gatherv, call, q, sig);
}

}  // namespace detail
}  // namespace vmc
