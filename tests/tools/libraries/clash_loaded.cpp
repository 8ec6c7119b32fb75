// A library of algorithms whose allgather row has the name of the example library's
// ("my_ring"): loading both must fail, naming both files (load_test.cpp).
#include "collectives/algorithm_library.hpp"

namespace {
void run_nothing(const vmc::Call&) {}
vmc::Picos cost_nothing(const vmc::CostQuery&) { return 0; }
}  // namespace

VMC_ALGORITHM_LIBRARY(library) {
  library.add(vmc::Operation::allgather,
              vmc::Algorithm{.name = "my_ring", .cost = cost_nothing, .run = run_nothing});
}
