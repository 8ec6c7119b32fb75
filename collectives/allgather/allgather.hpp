// allgather and allgatherv (001 "All-to-all broadcast", MPI_Allgather[v]): every rank
// contributes a block and every rank ends with all blocks in rank order.
//
//   vmc::allgather(comm, std::span<const T>(mine), std::span<T>(all));   // all: n*p items
//   vmc::allgather(comm, std::span<T>(all));  // in place: own block already at rank*n
//   vmc::allgatherv(comm, mine, all, counts, displs);  // block r: counts[r] items at displs[r]
//
// T is any trivially copyable type. Algorithms: ring, recursive_doubling,
// gather_broadcast, bruck (Options::algorithm, or "auto"). Bad input ends the run with a
// UsageError naming the node.
#pragma once

#include <cstddef>
#include <span>
#include <type_traits>

#include "collectives/allgatherv/allgatherv.hpp"
#include "collectives/vocabulary/query.hpp"
#include "runtime/comm.hpp"

namespace vmc {

namespace detail {
void allgather_bytes(const Comm& comm, const void* send, std::size_t send_items, void* recv,
                     std::size_t recv_items, std::size_t item_size, const Options& options);
void allgather_in_place_bytes(const Comm& comm, void* recv, std::size_t recv_items,
                              std::size_t item_size, const Options& options);
}  // namespace detail

template <class T>
void allgather(const Comm& comm, std::span<const std::type_identity_t<T>> send, std::span<T> recv,
               const Options& options = {}) {
  static_assert(std::is_trivially_copyable_v<T>);
  detail::allgather_bytes(comm, send.data(), send.size(), recv.data(), recv.size(), sizeof(T),
                          options);
}

// In place: recv holds n*p items, rank r's own block already at r*n.
template <class T>
void allgather(const Comm& comm, std::span<T> recv, const Options& options = {}) {
  static_assert(std::is_trivially_copyable_v<T>);
  detail::allgather_in_place_bytes(comm, recv.data(), recv.size(), sizeof(T), options);
}

// counts and displs (items) describe every rank's block in recv and are the same on every
// rank; send holds counts[rank] items. An empty send span with send.data() == nullptr and
// counts[rank] > 0 is the in-place form (own block already in place).

}  // namespace vmc
