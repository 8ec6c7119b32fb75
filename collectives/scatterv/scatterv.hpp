// scatterv: scatter with a block of its own count for every rank (see
// collectives/scatter/scatter.hpp).
#pragma once

#include <cstddef>
#include <span>
#include <type_traits>

#include "collectives/vocabulary/query.hpp"
#include "runtime/comm.hpp"

namespace vmc {

namespace detail {
void scatterv_bytes(const Comm& comm, const void* send, std::size_t send_items,
                    std::span<const std::size_t> counts, std::span<const std::size_t> displs,
                    void* recv, std::size_t recv_items, std::size_t item_size, int root,
                    const Options& options);
}  // namespace detail

template <class T>
void scatterv(const Comm& comm, std::span<const std::type_identity_t<T>> send,
              std::span<const std::size_t> counts, std::span<const std::size_t> displs,
              std::span<T> recv, int root, const Options& options = {}) {
  static_assert(std::is_trivially_copyable_v<T>);
  detail::scatterv_bytes(comm, send.data(), send.size(), counts, displs, recv.data(), recv.size(),
                         sizeof(T), root, options);
}

}  // namespace vmc
