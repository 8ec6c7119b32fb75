// reduce (001 "All-to-one reduction", MPI_Reduce): the root receives
// x0 op x1 op ... op x(p-1), item by item, in rank order.
//
//   vmc::reduce(comm, std::span<const T>(mine), std::span<T>(result), op, root);
//   vmc::reduce(comm, std::span<T>(inout), op, root);   // in place
//
// recv is used at the root only and may be empty elsewhere; it must hold send.size() items
// at the root and must not overlap send (use the in-place form). op.item_size() must be
// sizeof(T). Algorithms: linear, binomial, reduce_scatter_gather.
#pragma once

#include <span>
#include <type_traits>

#include "collectives/op.hpp"
#include "collectives/vocabulary/query.hpp"
#include "runtime/comm.hpp"

namespace vmc {

namespace detail {
// send == nullptr: in place (recv holds every node's contribution, the result at the root).
void reduce_bytes(const Comm& comm, const void* send, std::size_t send_items, void* recv,
                  std::size_t recv_items, std::size_t item_size, const Op& op, int root,
                  const Options& options);
}  // namespace detail

template <class T>
void reduce(const Comm& comm, std::span<const std::type_identity_t<T>> send, std::span<T> recv,
            const Op& op, int root, const Options& options = {}) {
  static_assert(std::is_trivially_copyable_v<T> && !std::is_const_v<T>);
  detail::reduce_bytes(comm, send.data() == nullptr && send.empty() ? recv.data() : send.data(),
                       send.size(), recv.data(), recv.size(), sizeof(T), op, root, options);
}

template <class T>
void reduce(const Comm& comm, std::span<T> inout, const Op& op, int root,
            const Options& options = {}) {
  static_assert(std::is_trivially_copyable_v<T> && !std::is_const_v<T>);
  detail::reduce_bytes(comm, nullptr, 0, inout.data(), inout.size(), sizeof(T), op, root,
                       options);
}

}  // namespace vmc
