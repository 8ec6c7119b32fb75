// allreduce (001 "All-reduce", MPI_Allreduce, 000 "combine-to-all"): every node receives
// x0 op x1 op ... op x(p-1), item by item, bitwise identical on every node.
//
//   vmc::allreduce(comm, std::span<const T>(mine), std::span<T>(result), op);
//   vmc::allreduce(comm, std::span<T>(inout), op);      // in place
//
// recv must hold send.size() items and must not overlap send. op.item_size() must be
// sizeof(T). Algorithms: reduce_broadcast, recursive_doubling, recursive_halving_doubling,
// ring. Non-commutative ops are reduced in rank order by every algorithm but ring.
#pragma once

#include <span>
#include <type_traits>

#include "collectives/op.hpp"
#include "collectives/vocabulary/query.hpp"
#include "runtime/comm.hpp"

namespace vmc {

namespace detail {
// send == nullptr: in place.
void allreduce_bytes(const Comm& comm, const void* send, std::size_t send_items, void* recv,
                     std::size_t recv_items, std::size_t item_size, const Op& op,
                     const Options& options);
}  // namespace detail

template <class T>
void allreduce(const Comm& comm, std::span<const std::type_identity_t<T>> send,
               std::span<T> recv, const Op& op, const Options& options = {}) {
  static_assert(std::is_trivially_copyable_v<T> && !std::is_const_v<T>);
  detail::allreduce_bytes(comm, send.data() == nullptr ? recv.data() : send.data(), send.size(),
                          recv.data(), recv.size(), sizeof(T), op, options);
}

template <class T>
void allreduce(const Comm& comm, std::span<T> inout, const Op& op, const Options& options = {}) {
  static_assert(std::is_trivially_copyable_v<T> && !std::is_const_v<T>);
  detail::allreduce_bytes(comm, nullptr, 0, inout.data(), inout.size(), sizeof(T), op, options);
}

}  // namespace vmc
