// A library of a user's algorithms that every vmc command loads with `--load FILE` (or the
// VMC_LOAD environment variable): a shared library (built with vmc_add_algorithm_library,
// docs/library.md) that defines its one entry point with VMC_ALGORITHM_LIBRARY and adds its
// rows there:
//
//   #include "collectives/algorithm_library.hpp"
//   VMC_ALGORITHM_LIBRARY(library) {
//     library.add(vmc::Operation::allgather, vmc::Algorithm{.name = "my_ring", ...});
//   }
//
// The macro also records the vmc version the library was built against: vmc refuses a
// library built against another version (the rows' layout may differ). The library's
// algorithms call vmc's runtime and collectives in the vmc program that loads it; it links
// none of vmc's libraries itself.
#pragma once

#include "collectives/registry.hpp"

// The version of vmc these headers belong to: the project's version (CMakeLists.txt checks
// that the two agree).
#define VMC_VERSION_STRING "0.1.0"

namespace vmc {

// What a library's entry point is given: add() takes each of its rows, which vmc checks
// (their names clash with no built-in row and no other library's) and then registers as
// register_algorithm does.
class AlgorithmLibrary {
 public:
  virtual void add(Operation op, Algorithm algorithm) = 0;

 protected:
  ~AlgorithmLibrary() = default;
};

}  // namespace vmc

// The symbols vmc looks up in a loaded library.
#define VMC_ALGORITHM_LIBRARY_ENTRY "vmc_register_algorithms"
#define VMC_ALGORITHM_LIBRARY_VERSION_SYMBOL "vmc_algorithm_library_version"

// Defines the entry point; the block that follows is its body, `library` its AlgorithmLibrary.
#define VMC_ALGORITHM_LIBRARY(library)                                                  \
  extern "C" __attribute__((visibility("default"))) const char*                         \
  vmc_algorithm_library_version() {                                                     \
    return VMC_VERSION_STRING;                                                          \
  }                                                                                     \
  extern "C" __attribute__((visibility("default"))) void vmc_register_algorithms(       \
      ::vmc::AlgorithmLibrary& library)
