// gather and gatherv (001 "Gather", MPI_Gather[v]): rank r contributes block r, the root
// ends with all p blocks in rank order.
//
//   vmc::gather(comm, send, recv, root);   // send: n items; recv (root): n*p items
//   vmc::gather_in_place(comm, buf, root); // root: buf n*p items, own block already at
//                                          // root*n; others: buf is the n-item send
//   vmc::gatherv(comm, send, recv, counts, displs, root);
//
// vmc convention for gatherv: every rank passes the same counts (displs are only read at
// the root); disagreement is reported by the rank that receives a block of the wrong size.
// T is any trivially copyable type; algorithms: linear, binomial.
#pragma once

#include <cstddef>
#include <span>
#include <type_traits>

#include "collectives/gatherv/gatherv.hpp"
#include "collectives/vocabulary/query.hpp"
#include "runtime/comm.hpp"

namespace vmc {

namespace detail {
void gather_bytes(const Comm& comm, const void* send, std::size_t send_items, void* recv,
                  std::size_t recv_items, std::size_t item_size, int root, bool in_place,
                  const Options& options);
}  // namespace detail

template <class T>
void gather(const Comm& comm, std::span<const std::type_identity_t<T>> send, std::span<T> recv,
            int root, const Options& options = {}) {
  static_assert(std::is_trivially_copyable_v<T>);
  detail::gather_bytes(comm, send.data(), send.size(), recv.data(), recv.size(), sizeof(T), root,
                       false, options);
}

template <class T>
void gather_in_place(const Comm& comm, std::span<T> buf, int root, const Options& options = {}) {
  static_assert(std::is_trivially_copyable_v<T>);
  if (comm.rank() == root) {
    detail::gather_bytes(comm, nullptr, 0, buf.data(), buf.size(), sizeof(T), root, true, options);
  } else {
    detail::gather_bytes(comm, buf.data(), buf.size(), nullptr, 0, sizeof(T), root, true, options);
  }
}

}  // namespace vmc
