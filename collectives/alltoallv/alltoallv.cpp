// The alltoallv front door: input checks, the call signature, dispatch.
#include "collectives/alltoallv/alltoallv.hpp"

#include <vector>

#include "collectives/dispatch/checks.hpp"
#include "collectives/dispatch/dispatch.hpp"
#include "collectives/primitives/blocks.hpp"

namespace vmc::detail {

void alltoallv_bytes(const Comm& comm, const void* send, std::size_t send_items,
                     std::span<const std::size_t> send_counts,
                     std::span<const std::size_t> send_displs, void* recv, std::size_t recv_items,
                     std::span<const std::size_t> recv_counts,
                     std::span<const std::size_t> recv_displs, std::size_t item_size,
                     const Options& options) {
  internal::require_valid(comm, "alltoallv");
  using namespace internal;
  const std::string name = "alltoallv";
  const std::size_t send_end =
      require_layout(comm, send_counts, send_displs, send_items, name, "send");
  const std::size_t recv_end =
      require_layout(comm, recv_counts, recv_displs, recv_items, name, "receive");
  const int r = comm.rank();
  require(comm, send_counts[r] == recv_counts[r], name, [&] {
    return "send_counts[rank] = " + std::to_string(send_counts[r]) +
           " but recv_counts[rank] = " + std::to_string(recv_counts[r]);
  });
  require_no_alias(comm, send, send_end * item_size, recv, recv_end * item_size, name);
  Call call = make_call(comm, send, recv, 0, item_size, 0, options);
  call.send_counts = send_counts;
  call.send_displs = send_displs;
  call.recv_counts = recv_counts;
  call.recv_displs = recv_displs;
  // No member knows the whole count matrix (each has its own row and column), and every
  // member must choose alike: selection looks at p, the machine and the item size only, as
  // for an alltoall of one-item blocks (the algorithms differ in their steps and partners,
  // which that ranks; empty blocks would tie every algorithm at zero).
  CostQuery q = make_query(comm, 1, 0, item_size, nullptr, false, options);
  dispatch(Operation::alltoallv, call, q, make_signature(name, nullptr, -1, 0, item_size, false));
}

}  // namespace vmc::detail
