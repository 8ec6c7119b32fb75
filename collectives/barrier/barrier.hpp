// barrier (MPI_Barrier): no node leaves before every node has entered.
//
//   vmc::barrier(comm);   // algorithm: auto (dissemination or tree)
#pragma once

#include "collectives/vocabulary/query.hpp"
#include "runtime/comm.hpp"

namespace vmc {

namespace detail {
void barrier_run(const Comm& comm, const Options& options);
}  // namespace detail

inline void barrier(const Comm& comm, const Options& options = {}) {
  detail::barrier_run(comm, options);
}

}  // namespace vmc
