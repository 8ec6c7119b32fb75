// The allgatherv front door: input checks, the call signature, dispatch.
#include "collectives/allgatherv/allgatherv.hpp"

#include <vector>

#include "collectives/dispatch/checks.hpp"
#include "collectives/dispatch/dispatch.hpp"
#include "collectives/primitives/blocks.hpp"

namespace vmc::detail {

void allgatherv_bytes(const Comm& comm, const void* send, std::size_t send_items, void* recv,
                      std::size_t recv_items, std::size_t item_size,
                      std::span<const std::size_t> counts, std::span<const std::size_t> displs,
                      const Options& options) {
  internal::require_valid(comm, "allgatherv");
  internal::require_layout(comm, counts, displs, recv_items, "allgatherv", "receive");
  const std::size_t mine = counts[comm.rank()];
  const bool in_place = send == nullptr && send_items == 0;
  if (!in_place) {
    internal::require(comm, send_items >= mine, "allgatherv", [&] {
      return "the send buffer holds " + std::to_string(send_items) + " items but counts[rank] is " +
             std::to_string(mine);
    });
    internal::require_no_alias(comm, send, mine * item_size, recv, recv_items * item_size,
                               "allgatherv");
  }
  std::size_t total = 0;
  for (std::size_t c : counts) total += c;
  Call call =
      make_call(comm, in_place ? nullptr : send, recv, mine, item_size, 0, options);
  call.recv_counts = counts;
  call.recv_displs = displs;
  // Selection sees what every member sees alike: the whole counts vector (q.n is unused; a
  // member with no items may pass no send buffer, which reads as in place).
  CostQuery q = make_query(comm, 0, 0, item_size, nullptr, false, options);
  q.counts.assign(counts.begin(), counts.end());
  CallSignature sig = make_signature("allgatherv", nullptr, -1, total, item_size, false);
  sig.layout = internal::counts_hash(counts);
  dispatch(Operation::allgatherv, call, q, sig);
}

}  // namespace vmc::detail
