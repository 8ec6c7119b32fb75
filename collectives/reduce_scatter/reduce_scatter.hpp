// reduce_scatter (001 "All-to-all reduction", MPI_Reduce_scatter[_block]): every rank
// contributes p blocks; rank r ends with op over all ranks of block r.
//
//   vmc::reduce_scatter(comm, send, recv, op);          // send n*p items, recv n items
//   vmc::reduce_scatter(comm, send, recv, counts, op);  // block r: counts[r] items,
//                                                       // send sum(counts), recv counts[rank]
//
// T is any trivially copyable type with op.item_size() == sizeof(T). Non-commutative ops
// are reduced in rank order (x0 op x1 op ... op x(p-1)); the ring algorithm only takes
// commutative ones. Algorithms: ring, recursive_halving, pairwise.
#pragma once

#include <cstddef>
#include <span>
#include <type_traits>

#include "collectives/op.hpp"
#include "collectives/vocabulary/query.hpp"
#include "runtime/comm.hpp"

namespace vmc {

namespace detail {
void reduce_scatter_bytes(const Comm& comm, const void* send, std::size_t send_items, void* recv,
                          std::size_t recv_items, std::size_t item_size,
                          std::span<const std::size_t> counts, const Op& op,
                          const Options& options);
}  // namespace detail

template <class T>
void reduce_scatter(const Comm& comm, std::span<const std::type_identity_t<T>> send,
                    std::span<T> recv, const Op& op, const Options& options = {}) {
  static_assert(std::is_trivially_copyable_v<T>);
  detail::reduce_scatter_bytes(comm, send.data(), send.size(), recv.data(), recv.size(), sizeof(T),
                               {}, op, options);
}

template <class T>
void reduce_scatter(const Comm& comm, std::span<const std::type_identity_t<T>> send,
                    std::span<T> recv, std::span<const std::size_t> counts, const Op& op,
                    const Options& options = {}) {
  static_assert(std::is_trivially_copyable_v<T>);
  detail::reduce_scatter_bytes(comm, send.data(), send.size(), recv.data(), recv.size(), sizeof(T),
                               counts, op, options);
}

}  // namespace vmc
