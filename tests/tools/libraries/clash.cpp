// A library of algorithms whose allgather row is named CLASH_NAME: "ring", a built-in row's
// name, or "my_ring", the example library's. Loading it (after the example library, for the
// second) must fail, naming the file, the algorithm and the other row's owner (load_test.cpp).
#include "collectives/algorithm_library.hpp"

namespace {
void run_nothing(const vmc::Call&) {}
vmc::Picos cost_nothing(const vmc::CostQuery&) { return 0; }
}  // namespace

VMC_ALGORITHM_LIBRARY(library) {
  library.add(vmc::Operation::allgather,
              vmc::Algorithm{.name = CLASH_NAME, .cost = cost_nothing, .run = run_nothing});
}
