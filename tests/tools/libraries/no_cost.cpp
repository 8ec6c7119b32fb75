// A library of algorithms whose row has no cost function: loading it must fail, naming the
// algorithm (load_test.cpp).
#include "collectives/algorithm_library.hpp"

namespace {
void run_nothing(const vmc::Call&) {}
}  // namespace

VMC_ALGORITHM_LIBRARY(library) {
  library.add(vmc::Operation::broadcast, vmc::Algorithm{.name = "costless", .run = run_nothing});
}
