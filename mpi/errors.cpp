// MPI errors: their reports and the error handlers that receive them. Every error is fatal for
// now (MPI_ERRORS_ARE_FATAL): raise_error ends the run with the report.
#include "mpi/errors.hpp"

#include "runtime/machine.hpp"

namespace vmc::mpi {

MpiError::MpiError(const char* function, int error_class, std::string text)
    : std::runtime_error(error_report(function, error_class, text)),
      function_(function),
      class_(error_class),
      text_(std::move(text)) {}

void fail(const char* function, int error_class, const std::string& text) {
  throw MpiError(function, error_class, text);
}

std::string error_class_name(int error_class) {
  switch (error_class) {
    case MPI_SUCCESS: return "MPI_SUCCESS";
    case MPI_ERR_BUFFER: return "MPI_ERR_BUFFER";
    case MPI_ERR_COUNT: return "MPI_ERR_COUNT";
    case MPI_ERR_TYPE: return "MPI_ERR_TYPE";
    case MPI_ERR_TAG: return "MPI_ERR_TAG";
    case MPI_ERR_COMM: return "MPI_ERR_COMM";
    case MPI_ERR_RANK: return "MPI_ERR_RANK";
    case MPI_ERR_ROOT: return "MPI_ERR_ROOT";
    case MPI_ERR_OP: return "MPI_ERR_OP";
    case MPI_ERR_ARG: return "MPI_ERR_ARG";
    case MPI_ERR_TRUNCATE: return "MPI_ERR_TRUNCATE";
    case MPI_ERR_UNSUPPORTED_OPERATION: return "MPI_ERR_UNSUPPORTED_OPERATION";
    default: return "MPI_ERR_OTHER";
  }
}

std::string error_report(const char* function, int error_class, const std::string& text) {
  const Node* n = this_node();
  const std::string who = n != nullptr ? "rank " + std::to_string(n->rank()) + ": " : "";
  return who + function + ": " + error_class_name(error_class) + ": " + text;
}

int raise_error(const char* function, MPI_Comm /*comm*/, int error_class,
                const std::string& text) {
  throw MpiError(function, error_class, text);
}

}  // namespace vmc::mpi
