// scatter and scatterv (001 "Scatter", MPI_Scatter[v]): the root holds p blocks, rank r
// ends with block r.
//
//   vmc::scatter(comm, send, recv, root);   // send (root): n*p items; recv: n items
//   vmc::scatter_in_place(comm, buf, root); // root: buf n*p items, own block stays at
//                                           // root*n; others: buf is the n-item recv
//   vmc::scatterv(comm, send, counts, displs, recv, root);
//
// vmc convention for scatterv: every rank passes the same counts (displs are only read at
// the root); a rank whose counts disagree is reported by the rank that receives a block of
// the wrong size. T is any trivially copyable type; algorithms: linear, binomial.
#pragma once

#include <cstddef>
#include <span>
#include <type_traits>

#include "collectives/scatterv/scatterv.hpp"
#include "collectives/vocabulary/query.hpp"
#include "runtime/comm.hpp"

namespace vmc {

namespace detail {
void scatter_bytes(const Comm& comm, const void* send, std::size_t send_items, void* recv,
                   std::size_t recv_items, std::size_t item_size, int root, bool in_place,
                   const Options& options);
}  // namespace detail

template <class T>
void scatter(const Comm& comm, std::span<const std::type_identity_t<T>> send, std::span<T> recv,
             int root, const Options& options = {}) {
  static_assert(std::is_trivially_copyable_v<T>);
  detail::scatter_bytes(comm, send.data(), send.size(), recv.data(), recv.size(), sizeof(T), root,
                        false, options);
}

template <class T>
void scatter_in_place(const Comm& comm, std::span<T> buf, int root, const Options& options = {}) {
  static_assert(std::is_trivially_copyable_v<T>);
  if (comm.rank() == root) {
    detail::scatter_bytes(comm, buf.data(), buf.size(), nullptr, 0, sizeof(T), root, true,
                          options);
  } else {
    detail::scatter_bytes(comm, nullptr, 0, buf.data(), buf.size(), sizeof(T), root, true,
                          options);
  }
}

}  // namespace vmc
