// The MPI functions vmc does not implement: every line of the tables marked UNSUPPORTED
// (include/vmc_mpi_functions.h, include/vmc_mpi_removed_functions.h) becomes a definition
// that raises MPI_ERR_UNSUPPORTED_OPERATION through the error handler of the call's
// communicator, with a text naming the function. A program that calls one compiles, links
// and runs up to that call.
#include <string>

#include "mpi/errors.hpp"
#include "mpi/include/mpi.h"

namespace vmc::mpi {
namespace {

int unsupported(const char* function, MPI_Comm comm) {
  return raise_error(function, comm, MPI_ERR_UNSUPPORTED_OPERATION,
                     std::string(function) + " is not supported by vmc");
}

}  // namespace
}  // namespace vmc::mpi

// The definitions take every parameter the standard gives and use only the communicator.
#pragma GCC diagnostic ignored "-Wunused-parameter"

extern "C" {

#define VMC_MPI_IMPLEMENTED(ret, name, params, args, comm)
#define VMC_MPI_UNSUPPORTED(ret, name, params, args, comm) \
  ret name params { return vmc::mpi::unsupported(#name, comm); }
#include "mpi/include/vmc_mpi_functions.h"
#include "mpi/include/vmc_mpi_removed_functions.h"
#undef VMC_MPI_IMPLEMENTED
#undef VMC_MPI_UNSUPPORTED

}  // extern "C"
