// alltoall and alltoallv (001 "All-to-all personalized", MPI_Alltoall[v]): rank r's block
// d goes to rank d, which stores it as its block r.
//
//   vmc::alltoall(comm, send, recv);   // send, recv: n*p items, block d at d*n
//   vmc::alltoallv(comm, send, send_counts, send_displs, recv, recv_counts, recv_displs);
//
// T is any trivially copyable type. Algorithms: pairwise_xor (p a power of two), ring,
// hypercube (p a power of two; alltoall only). alltoallv: ring, pairwise_xor. Rank s's
// send_counts[d] must equal rank d's recv_counts[s]; a mismatch ends the run with a
// UsageError naming the receiving node.
#pragma once

#include <cstddef>
#include <span>
#include <type_traits>

#include "collectives/alltoallv/alltoallv.hpp"
#include "collectives/vocabulary/query.hpp"
#include "runtime/comm.hpp"

namespace vmc {

namespace detail {
void alltoall_bytes(const Comm& comm, const void* send, std::size_t send_items, void* recv,
                    std::size_t recv_items, std::size_t item_size, const Options& options);
}  // namespace detail

template <class T>
void alltoall(const Comm& comm, std::span<const std::type_identity_t<T>> send, std::span<T> recv,
              const Options& options = {}) {
  static_assert(std::is_trivially_copyable_v<T>);
  detail::alltoall_bytes(comm, send.data(), send.size(), recv.data(), recv.size(), sizeof(T),
                         options);
}

}  // namespace vmc
