// The reduce_scatter front door: input checks, the call signature, dispatch.
#include "collectives/reduce_scatter/reduce_scatter.hpp"

#include "collectives/dispatch/checks.hpp"
#include "collectives/dispatch/dispatch.hpp"

namespace vmc {

namespace detail {

void reduce_scatter_bytes(const Comm& comm, const void* send, std::size_t send_items, void* recv,
                          std::size_t recv_items, std::size_t item_size,
                          std::span<const std::size_t> counts, const Op& op,
                          const Options& options) {
  internal::require_valid(comm, "reduce_scatter");
  using namespace internal;
  const std::string name = "reduce_scatter";
  const std::size_t p = static_cast<std::size_t>(comm.size());
  require_op_items(comm, op, item_size, name);
  std::size_t n = recv_items, total = recv_items * p, mine = recv_items;
  std::uint64_t signature_count = n;
  if (!counts.empty()) {
    require(comm, counts.size() == p, name, [&] {
      return "counts needs " + std::to_string(p) + " entries, got " + std::to_string(counts.size());
    });
    total = 0;
    signature_count = 1469598103934665603ull;  // FNV-1a over the counts: ranks must agree
    for (std::size_t c : counts) {
      total += c;
      signature_count = (signature_count ^ c) * 1099511628211ull;
    }
    mine = counts[comm.rank()];
    n = mine;
    require(comm, recv_items >= mine, name, [&] {
      return "the receive buffer holds " + std::to_string(recv_items) +
             " items but counts[rank] is " + std::to_string(mine);
    });
  }
  require(comm, send_items >= total, name, [&] {
    return "the send buffer holds " + std::to_string(send_items) + " items but needs " +
           std::to_string(total);
  });
  require_no_alias(comm, send, total * item_size, recv, mine * item_size, name);
  Call call = make_call(comm, send, recv, n, item_size, 0, options, &op);
  call.recv_counts = counts;
  // With counts, selection sees the whole vector, alike on every member (q.n is unused).
  CostQuery q = make_query(comm, counts.empty() ? n : 0, 0, item_size, &op, false, options);
  q.counts.assign(counts.begin(), counts.end());
  dispatch(Operation::reduce_scatter, call, q,
         make_signature(name, &op, -1, signature_count, item_size));
}

}  // namespace detail
}  // namespace vmc
