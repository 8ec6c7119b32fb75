// scan (001 "Prefix sums", MPI_Scan): node r receives x0 op x1 op ... op xr (inclusive),
// item by item, in rank order.
//
//   vmc::scan(comm, std::span<const T>(mine), std::span<T>(prefix), op);
//   vmc::scan(comm, std::span<T>(inout), op);      // in place
//
// recv must hold send.size() items and must not overlap send. Algorithms: linear,
// hypercube (p a power of two), recursive_doubling.
#pragma once

#include <span>
#include <type_traits>

#include "collectives/op.hpp"
#include "collectives/vocabulary/query.hpp"
#include "runtime/comm.hpp"

namespace vmc {

namespace detail {
// send == nullptr: in place.
void scan_bytes(const Comm& comm, const void* send, std::size_t send_items, void* recv,
                std::size_t recv_items, std::size_t item_size, const Op& op,
                const Options& options);
}  // namespace detail

template <class T>
void scan(const Comm& comm, std::span<const std::type_identity_t<T>> send, std::span<T> recv,
          const Op& op, const Options& options = {}) {
  static_assert(std::is_trivially_copyable_v<T> && !std::is_const_v<T>);
  detail::scan_bytes(comm, send.data() == nullptr ? recv.data() : send.data(),
                     send.size(), recv.data(), recv.size(), sizeof(T), op, options);
}

template <class T>
void scan(const Comm& comm, std::span<T> inout, const Op& op, const Options& options = {}) {
  static_assert(std::is_trivially_copyable_v<T> && !std::is_const_v<T>);
  detail::scan_bytes(comm, nullptr, 0, inout.data(), inout.size(), sizeof(T), op,
                     options);
}

}  // namespace vmc
