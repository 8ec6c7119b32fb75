// The bandwidths nccl-tests reports for a collective (its doc/PERFORMANCE.md), so that a run of
// vmc compares with theirs and OSU's: the algorithm bandwidth algbw = S / t, S the bytes of the
// operation's buffer, t the run's time; and the bus bandwidth busbw = algbw * f, f the share
// of S that must cross some rank's link for the op (independent of p for an ideal algorithm):
//   allreduce                                  S = n items          f = 2 (p-1) / p
//   broadcast, reduce                          S = n items          f = 1
//   allgather, reduce_scatter, alltoall,       S = n p items        f = (p-1) / p
//   gather, scatter and the v-variants           (every rank's block: the whole receive
//                                                 or send buffer)
//   scan, exscan (nccl-tests has none)         S = n items          f = 1, as reduce
//   barrier                                    none: no data
// n is vmc's count (tools/runner.hpp: the v-variants run with n items for every rank).
#pragma once

#include <cstddef>
#include <optional>

#include "collectives/vocabulary/operation.hpp"

namespace vmc::cli {

struct Bandwidth {
  double algbw = 0;  // bytes per second
  double busbw = 0;
};

// S in bytes, for n items of item_bytes on p nodes (0 for barrier).
double bandwidth_bytes(Operation op, std::size_t n, std::size_t item_bytes, int p);
// f for op on p nodes (0 for barrier).
double bus_factor(Operation op, int p);
// The two for a run that took `seconds`; none for a barrier or a run of no time.
std::optional<Bandwidth> bandwidth(Operation op, std::size_t n, std::size_t item_bytes, int p,
                                   double seconds);

}  // namespace vmc::cli
