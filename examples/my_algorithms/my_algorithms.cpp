// The library's entry point: vmc calls it when it loads the library (--load, VMC_LOAD) and
// registers the rows it adds, which `vmc list` then shows as loaded from this file.
#include "collectives/algorithm_library.hpp"
#include "my_algorithms.hpp"

VMC_ALGORITHM_LIBRARY(library) {
  library.add(vmc::Operation::allgather,
              vmc::Algorithm{.name = "my_ring",
                             .description = "my ring: every block once around the ring",
                             .cost = cost_my_ring,
                             .run = my_ring});
  library.add(vmc::Operation::allreduce,
              vmc::Algorithm{.name = "my_ring_combine",
                             .description = "my ring allgather of the vectors, then a combine",
                             .cost = cost_my_ring_combine,
                             .run = my_ring_combine});
}
