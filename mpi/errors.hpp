// Raising an MPI error: every MPI function that finds a problem reports it here, with the
// function's name, the communicator whose error handler applies (MPI_COMM_NULL when the call
// has none) and its error class, and returns what this returns (the class, when the handler
// lets the call return).
#pragma once

#include <stdexcept>
#include <string>

#include "mpi/include/mpi.h"

namespace vmc::mpi {

// Raises `error_class` in `function` (as "MPI_Send") through the error handler of `comm`;
// `text` says what went wrong. MPI_ERRORS_ARE_FATAL, the default, ends the run with
// "rank R: <function>: <class name>: <text>".
int raise_error(const char* function, MPI_Comm comm, int error_class, const std::string& text);

// An MPI error found by a check (fail, below) on its way to the function's error handler:
// mpi_call (mpi/state.hpp) catches it and raises it through the handler. Uncaught, it ends
// the run as MPI_ERRORS_ARE_FATAL would: its what() is the whole report.
class MpiError : public std::runtime_error {
 public:
  MpiError(const char* function, int error_class, std::string text);
  const char* function() const { return function_; }
  int error_class() const { return class_; }
  const std::string& text() const { return text_; }

 private:
  const char* function_;
  int class_;
  std::string text_;
};

// Throws the MpiError of `function`, `error_class` and `text`.
[[noreturn]] void fail(const char* function, int error_class, const std::string& text);

// The name of an error class ("MPI_ERR_COUNT"), or of a code a program added.
std::string error_class_name(int error_class);

// "rank R: <function>: <class name>: <text>", R the calling rank when a node runs this.
std::string error_report(const char* function, int error_class, const std::string& text);

}  // namespace vmc::mpi
