// Raising an MPI error: every MPI function that finds a problem reports it here, with the
// function's name, the communicator whose error handler applies (MPI_COMM_NULL when the call
// has none) and its error class, and returns what this returns (the class, when the handler
// lets the call return).
#pragma once

#include <stdexcept>
#include <string>

#include "mpi/include/mpi.h"
#include "runtime/errors.hpp"

namespace vmc::mpi {

// Raises `error_class` in `function` (as "MPI_Send") through the error handler of `comm`;
// `text` says what went wrong. `comm` MPI_COMM_NULL, or a handle that names no live
// communicator of the rank, raises it on MPI_COMM_SELF (MPI-4.1's rule for errors tied to
// no communicator); before MPI_Init every error is fatal; on a thread that runs no rank (one
// the program made) the report goes to stderr and the class is returned. The handlers:
//   MPI_ERRORS_ARE_FATAL (the default): ends the run, throwing FatalError with the report
//     "rank R: <function>: <class name>: <text>";
//   MPI_ERRORS_ABORT: the same, and the job's outcome records the abort (mpi/job.hpp);
//   MPI_ERRORS_RETURN: returns the class;
//   a program's (MPI_Comm_create_errhandler): called with the communicator and the code,
//     then returns the code.
// `error_class` may also be an error code the program added (MPI_Add_error_code).
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

// An error that ends the run (its what() is the report); no MPI function catches it.
class FatalError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Throws the MpiError of `function`, `error_class` and `text`.
[[noreturn]] void fail(const char* function, int error_class, const std::string& text);

// The name of an error class ("MPI_ERR_COUNT"), or of a class or code the program added.
std::string error_class_name(int error_class);

// "rank R: <function>: <class name>: <text>", R the calling rank when a node runs this.
std::string error_report(const char* function, int error_class, const std::string& text);

// vmc's text of two members' collective calls that differ (runtime/comm.cpp's
// compare_signatures, its "node N: " taken off) in MPI's words: "the ranks' calls differ on
// <comm>: this rank called ..., rank 1 called ...". vmc's count of the comm's collective
// calls is left out (it counts the MPI layer's own calls and those of vmc's algorithms under
// them), and a world rank is named "rank N of MPI_COMM_WORLD", or not at all on
// MPI_COMM_WORLD, where it is the rank.
std::string calls_differ(const std::string& text, const std::string& comm_label, bool world);

// The ranks' collective calls differ (vmc's CallsDifferError, with the report that blames one
// rank, whichever rank it was thrown to): thrown again with the report in MPI's words
// (calls_differ), "rank 3: MPI_Bcast: MPI_ERR_ARG: the ranks' calls differ on ...", which the
// job reports as the blamed rank's failure. It ends the job whatever the communicator's error
// handler (the ranks' calls can no longer match).
// vmc's error text without the node it names first ("node 3 (rank 1 of comm 2): "), which
// the MPI report names as a rank, and without `operation` when it follows.
std::string without_who(const std::string& text, const std::string& operation);
// e thrown again as the failure of the rank it blames: "rank 3: MPI_Bcast: MPI_ERR_ARG: TEXT".
[[noreturn]] void blamed_rank_failure(const CallsDifferError& e, const std::string& text);
[[noreturn]] void calls_differ_failure(const CallsDifferError& e, const std::string& comm_label,
                                       bool world);

}  // namespace vmc::mpi
