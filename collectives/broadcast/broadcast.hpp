// broadcast (001 "One-to-all broadcast", MPI_Bcast): the root's vector ends up on every node.
//
//   vmc::broadcast(comm, std::span(x), root);                       // algorithm: auto
//   vmc::broadcast(comm, std::span(x), root, {.algorithm = "binomial"});
//
// T is any trivially copyable type; every node passes a span of the same length.
// Algorithms: linear, binomial, scatter_allgather, pipelined_chain (vmc list). Bad input
// (root out of range or different on different nodes, lengths that disagree) ends the run
// with an error naming the node.
#pragma once

#include <span>
#include <type_traits>

#include "collectives/vocabulary/query.hpp"
#include "runtime/comm.hpp"

namespace vmc {

namespace detail {
void broadcast_bytes(const Comm& comm, void* data, std::size_t n, std::size_t item_size,
                     int root, const Options& options);
}  // namespace detail

template <class T>
void broadcast(const Comm& comm, std::span<T> data, int root, const Options& options = {}) {
  static_assert(std::is_trivially_copyable_v<T> && !std::is_const_v<T>);
  detail::broadcast_bytes(comm, data.data(), data.size(), sizeof(T), root, options);
}

}  // namespace vmc
