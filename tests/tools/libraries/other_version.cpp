// A library of algorithms that says it was built against another vmc: loading it must fail,
// naming both versions (load_test.cpp). Written out by hand, as VMC_ALGORITHM_LIBRARY would
// give this vmc's version.
#include "collectives/algorithm_library.hpp"

extern "C" __attribute__((visibility("default"))) const char* vmc_algorithm_library_version() {
  return "0.0.1";
}
extern "C" __attribute__((visibility("default"))) void vmc_register_algorithms(
    vmc::AlgorithmLibrary&) {}
