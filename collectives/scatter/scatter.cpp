// The scatter and scatterv wrappers: input checks, the call signature, dispatch.
#include "collectives/scatter/scatter.hpp"

#include "collectives/dispatch.hpp"
#include "collectives/internal/call.hpp"
#include "collectives/internal/validate.hpp"
#include "collectives/scatter/algorithms.hpp"

namespace vmc {

namespace internal {
Blocks scatter_layout(const Call& call) {
  if (call.send_counts.empty()) return Blocks::equal(call.n, call.comm->size());
  return Blocks::explicit_layout(call.send_counts, call.send_displs);
}
}  // namespace internal

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
  invoke(Operation::scatter, call, make_query(comm, n, root, item_size, nullptr, in_place, options),
         make_signature("scatter", nullptr, root, n, item_size));
}

void scatterv_bytes(const Comm& comm, const void* send, std::size_t send_items,
                    std::span<const std::size_t> counts, std::span<const std::size_t> displs,
                    void* recv, std::size_t recv_items, std::size_t item_size, int root,
                    const Options& options) {
  internal::require_valid(comm, "scatterv");
  using namespace internal;
  require_root(comm, root, "scatterv");
  const bool is_root = comm.rank() == root;
  std::vector<std::size_t> own_displs;
  if (!is_root && displs.empty()) {
    own_displs = Blocks::contiguous(counts).displs;
    displs = own_displs;
  }
  require_layout(comm, counts, displs, is_root ? send_items : SIZE_MAX, "scatterv", "send");
  const std::size_t mine = counts[comm.rank()];
  require(comm, recv_items >= mine, "scatterv", [&] {
    return "the receive buffer holds " + std::to_string(recv_items) +
           " items but counts[rank] is " + std::to_string(mine);
  });
  if (is_root) {
    require_no_alias(comm, send, send_items * item_size, recv, mine * item_size, "scatterv");
  }
  std::size_t total = 0;
  for (std::size_t c : counts) total += c;
  Call call = make_call(comm, is_root ? send : nullptr, recv, mine, item_size, root, options);
  call.send_counts = counts;
  call.send_displs = displs;
  // Selection sees what every member sees alike: the whole counts vector (q.n is unused).
  CostQuery q = make_query(comm, 0, root, item_size, nullptr, false, options);
  q.counts.assign(counts.begin(), counts.end());
  CallSignature sig = make_signature("scatterv", nullptr, root, total, item_size, false);
  sig.layout = counts_hash(counts);
  invoke(Operation::scatterv, call, q, sig);
}

}  // namespace detail
}  // namespace vmc
