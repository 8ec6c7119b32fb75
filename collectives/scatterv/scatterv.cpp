// The scatterv front door: input checks, the call signature, dispatch.
#include "collectives/scatterv/scatterv.hpp"

#include <vector>

#include "collectives/dispatch/checks.hpp"
#include "collectives/dispatch/dispatch.hpp"
#include "collectives/primitives/blocks.hpp"

namespace vmc::detail {

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
  dispatch(Operation::scatterv, call, q, sig);
}

}  // namespace vmc::detail
