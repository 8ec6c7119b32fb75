// A library of algorithms whose allgather row takes a built-in row's name ("ring"): loading
// it must fail, naming the file and the algorithm (load_test.cpp).
#include "collectives/algorithm_library.hpp"

namespace {
void run_nothing(const vmc::Call&) {}
vmc::Picos cost_nothing(const vmc::CostQuery&) { return 0; }
}  // namespace

VMC_ALGORITHM_LIBRARY(library) {
  library.add(vmc::Operation::allgather,
              vmc::Algorithm{.name = "ring", .cost = cost_nothing, .run = run_nothing});
}
