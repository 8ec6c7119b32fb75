// The allgather and allgatherv wrappers: input checks, the call signature, dispatch.
#include "collectives/allgather/allgather.hpp"

#include "collectives/allgather/algorithms.hpp"
#include "collectives/dispatch.hpp"
#include "collectives/internal/call.hpp"
#include "collectives/internal/validate.hpp"

namespace vmc {

namespace internal {
Blocks prepare_allgather(const Call& call) {
  const int p = call.comm->size(), r = call.comm->rank();
  Blocks b = call.recv_counts.empty() ? Blocks::equal(call.n, p)
                                      : Blocks::explicit_layout(call.recv_counts, call.recv_displs);
  if (call.send != nullptr) {
    copy_items(at(call.recv, b.displs[r], call.item_size), call.send, b.counts[r], call.item_size);
  }
  return b;
}
}  // namespace internal

namespace {
void run(const Comm& comm, const void* send, void* recv, std::size_t n, std::size_t item_size,
         const Options& options) {
  invoke(Operation::allgather, internal::make_call(comm, send, recv, n, item_size, 0, options),
         make_query(comm, n, 0, item_size, nullptr, send == nullptr, options),
         internal::make_signature("allgather", nullptr, -1, n, item_size));
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
      internal::make_call(comm, in_place ? nullptr : send, recv, mine, item_size, 0, options);
  call.recv_counts = counts;
  call.recv_displs = displs;
  // Selection sees what every member sees alike: the whole counts vector (q.n is unused; a
  // member with no items may pass no send buffer, which reads as in place).
  CostQuery q = make_query(comm, 0, 0, item_size, nullptr, false, options);
  q.counts.assign(counts.begin(), counts.end());
  CallSignature sig = internal::make_signature("allgatherv", nullptr, -1, total, item_size, false);
  sig.layout = internal::counts_hash(counts);
  invoke(Operation::allgatherv, call, q, sig);
}

}  // namespace detail
}  // namespace vmc
