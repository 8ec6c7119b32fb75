// raise_error as the default error handler has it, MPI_ERRORS_ARE_FATAL, for every
// communicator: the error ends the run, as mpi.cpp's errors do (an exception from the rank's
// function, whose text names the rank, the function, the error class and the problem). Error
// handlers that return come with the communicators that carry them.
#include "mpi/errors.hpp"

#include <stdexcept>
#include <string>

#include "runtime/machine.hpp"

namespace vmc::mpi {
namespace {

const char* error_class_name(int error_class) {
  switch (error_class) {
    case MPI_SUCCESS: return "MPI_SUCCESS";
    case MPI_ERR_BUFFER: return "MPI_ERR_BUFFER";
    case MPI_ERR_COUNT: return "MPI_ERR_COUNT";
    case MPI_ERR_TYPE: return "MPI_ERR_TYPE";
    case MPI_ERR_TAG: return "MPI_ERR_TAG";
    case MPI_ERR_COMM: return "MPI_ERR_COMM";
    case MPI_ERR_RANK: return "MPI_ERR_RANK";
    case MPI_ERR_REQUEST: return "MPI_ERR_REQUEST";
    case MPI_ERR_ROOT: return "MPI_ERR_ROOT";
    case MPI_ERR_GROUP: return "MPI_ERR_GROUP";
    case MPI_ERR_OP: return "MPI_ERR_OP";
    case MPI_ERR_TOPOLOGY: return "MPI_ERR_TOPOLOGY";
    case MPI_ERR_DIMS: return "MPI_ERR_DIMS";
    case MPI_ERR_ARG: return "MPI_ERR_ARG";
    case MPI_ERR_UNKNOWN: return "MPI_ERR_UNKNOWN";
    case MPI_ERR_TRUNCATE: return "MPI_ERR_TRUNCATE";
    case MPI_ERR_OTHER: return "MPI_ERR_OTHER";
    case MPI_ERR_INTERN: return "MPI_ERR_INTERN";
    case MPI_ERR_IN_STATUS: return "MPI_ERR_IN_STATUS";
    case MPI_ERR_PENDING: return "MPI_ERR_PENDING";
    case MPI_ERR_UNSUPPORTED_OPERATION: return "MPI_ERR_UNSUPPORTED_OPERATION";
    default: return "MPI error class";
  }
}

}  // namespace

int raise_error(const char* function, MPI_Comm /*comm*/, int error_class,
                const std::string& text) {
  const Node* n = this_node();
  const std::string who = n != nullptr ? "rank " + std::to_string(n->rank()) + ": " : "";
  std::string name = error_class_name(error_class);
  if (name == "MPI error class") name += " " + std::to_string(error_class);
  throw std::runtime_error(who + function + ": " + name + ": " + text);
}

}  // namespace vmc::mpi
