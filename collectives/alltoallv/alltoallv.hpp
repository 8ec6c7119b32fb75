// alltoallv: alltoall with a block of its own count for every rank (see
// collectives/alltoall/alltoall.hpp).
#pragma once

#include <cstddef>
#include <span>
#include <type_traits>

#include "collectives/vocabulary/query.hpp"
#include "runtime/comm.hpp"

namespace vmc {

namespace detail {
void alltoallv_bytes(const Comm& comm, const void* send, std::size_t send_items,
                     std::span<const std::size_t> send_counts,
                     std::span<const std::size_t> send_displs, void* recv, std::size_t recv_items,
                     std::span<const std::size_t> recv_counts,
                     std::span<const std::size_t> recv_displs, std::size_t item_size,
                     const Options& options);
}  // namespace detail

template <class T>
void alltoallv(const Comm& comm, std::span<const std::type_identity_t<T>> send,
               std::span<const std::size_t> send_counts, std::span<const std::size_t> send_displs,
               std::span<T> recv, std::span<const std::size_t> recv_counts,
               std::span<const std::size_t> recv_displs, const Options& options = {}) {
  static_assert(std::is_trivially_copyable_v<T>);
  detail::alltoallv_bytes(comm, send.data(), send.size(), send_counts, send_displs, recv.data(),
                          recv.size(), recv_counts, recv_displs, sizeof(T), options);
}

}  // namespace vmc
