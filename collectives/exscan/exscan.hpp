// exscan (MPI_Exscan): node r > 0 receives x0 op ... op x(r-1) (exclusive prefix), item by
// item, in rank order. Node 0 has no prefix: its receive buffer is left unchanged.
//
//   vmc::exscan(comm, std::span<const T>(mine), std::span<T>(prefix), op);
//   vmc::exscan(comm, std::span<T>(inout), op);      // in place
//
// Algorithms: linear, hypercube (p a power of two), recursive_doubling.
#pragma once

#include <span>
#include <type_traits>

#include "collectives/op.hpp"
#include "collectives/vocabulary/query.hpp"
#include "runtime/comm.hpp"

namespace vmc {

namespace detail {
// send == nullptr: in place.
void exscan_bytes(const Comm& comm, const void* send, std::size_t send_items, void* recv,
                  std::size_t recv_items, std::size_t item_size, const Op& op,
                  const Options& options);
}  // namespace detail

template <class T>
void exscan(const Comm& comm, std::span<const std::type_identity_t<T>> send, std::span<T> recv,
            const Op& op, const Options& options = {}) {
  static_assert(std::is_trivially_copyable_v<T> && !std::is_const_v<T>);
  detail::exscan_bytes(comm, send.data() == nullptr ? recv.data() : send.data(),
                     send.size(), recv.data(), recv.size(), sizeof(T), op, options);
}

template <class T>
void exscan(const Comm& comm, std::span<T> inout, const Op& op, const Options& options = {}) {
  static_assert(std::is_trivially_copyable_v<T> && !std::is_const_v<T>);
  detail::exscan_bytes(comm, nullptr, 0, inout.data(), inout.size(), sizeof(T),
                     op, options);
}

}  // namespace vmc
