// The gatherv front door: input checks, the call signature, dispatch.
#include "collectives/gatherv/gatherv.hpp"

#include <vector>

#include "collectives/dispatch/checks.hpp"
#include "collectives/dispatch/dispatch.hpp"
#include "collectives/primitives/blocks.hpp"

namespace vmc::detail {

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
  dispatch(Operation::gatherv, call, q, sig);
}

}  // namespace vmc::detail
