// barrier (MPI_Barrier): no node leaves before every node has entered.
//
//   vmc::barrier(comm);   // algorithm: auto (dissemination or tree)
#pragma once

#include "collectives/internal/combine_call.hpp"

namespace vmc {

inline void barrier(const Comm& comm, const Options& options = {}) {
  detail::barrier_run(comm, options);
}

}  // namespace vmc
