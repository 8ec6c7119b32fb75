// gatherv: gather with a block of its own count for every rank (see collectives/gather/gather.hpp).
#pragma once

#include <cstddef>
#include <span>
#include <type_traits>

#include "collectives/vocabulary/query.hpp"
#include "runtime/comm.hpp"

namespace vmc {

namespace detail {
void gatherv_bytes(const Comm& comm, const void* send, std::size_t send_items, void* recv,
                   std::size_t recv_items, std::span<const std::size_t> counts,
                   std::span<const std::size_t> displs, std::size_t item_size, int root,
                   const Options& options);
}  // namespace detail

template <class T>
void gatherv(const Comm& comm, std::span<const std::type_identity_t<T>> send, std::span<T> recv,
             std::span<const std::size_t> counts, std::span<const std::size_t> displs, int root,
             const Options& options = {}) {
  static_assert(std::is_trivially_copyable_v<T>);
  detail::gatherv_bytes(comm, send.data(), send.size(), recv.data(), recv.size(), counts, displs,
                        sizeof(T), root, options);
}

}  // namespace vmc
