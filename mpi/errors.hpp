// Raising an MPI error: every MPI function that finds a problem reports it here, with the
// function's name, the communicator whose error handler applies (MPI_COMM_NULL when the call
// has none) and its error class, and returns what this returns (the class, when the handler
// lets the call return).
#pragma once

#include <string>

#include "mpi/include/mpi.h"

namespace vmc::mpi {

// Raises `error_class` in `function` (as "MPI_Send") through the error handler of `comm`;
// `text` says what went wrong. MPI_ERRORS_ARE_FATAL, the default, ends the run with
// "rank R: <function>: <class name>: <text>".
int raise_error(const char* function, MPI_Comm comm, int error_class, const std::string& text);

}  // namespace vmc::mpi
