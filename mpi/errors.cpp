// MPI errors: their classes, the reports, the error handlers that receive them (errors.hpp),
// and the MPI functions of error handling: MPI_Comm_create_errhandler, _set_errhandler,
// _get_errhandler, _call_errhandler, MPI_Errhandler_free, MPI_Error_string, MPI_Error_class,
// MPI_Add_error_class, _code and _string; and MPI-1's names of the first three, which MPI-3.0
// removed (MPI_Errhandler_create, _set, _get), as the same calls under their own names.
//
// Codes and classes: every error vmc raises has a code equal to its class. A program may add
// classes (above MPI_ERR_LASTCODE) and codes of a class, each with a string; they are the
// rank's own, as every handle is.
#include "mpi/errors.hpp"

#include <array>
#include <cstdio>
#include <cstring>
#include <regex>

#include "mpi/state.hpp"
#include "runtime/machine.hpp"

namespace vmc::mpi {
namespace {

struct ClassText {
  const char* name;
  const char* text;  // what the class means, for MPI_Error_string
};

// The standard's classes, by value (mpi.h).
constexpr std::array<ClassText, MPI_ERR_ERRHANDLER + 1> kClasses = {{
    {"MPI_SUCCESS", "no error"},
    {"MPI_ERR_BUFFER", "invalid buffer pointer"},
    {"MPI_ERR_COUNT", "invalid count argument"},
    {"MPI_ERR_TYPE", "invalid datatype"},
    {"MPI_ERR_TAG", "invalid tag"},
    {"MPI_ERR_COMM", "invalid communicator"},
    {"MPI_ERR_RANK", "invalid rank"},
    {"MPI_ERR_REQUEST", "invalid request"},
    {"MPI_ERR_ROOT", "invalid root"},
    {"MPI_ERR_GROUP", "invalid group"},
    {"MPI_ERR_OP", "invalid reduction operation"},
    {"MPI_ERR_TOPOLOGY", "invalid topology"},
    {"MPI_ERR_DIMS", "invalid dimension argument"},
    {"MPI_ERR_ARG", "invalid argument"},
    {"MPI_ERR_UNKNOWN", "unknown error"},
    {"MPI_ERR_TRUNCATE", "message truncated on receive"},
    {"MPI_ERR_OTHER", "other error"},
    {"MPI_ERR_INTERN", "internal error of the MPI library"},
    {"MPI_ERR_IN_STATUS", "error code is in the status"},
    {"MPI_ERR_PENDING", "pending request"},
    {"MPI_ERR_UNSUPPORTED_OPERATION", "operation not supported"},
    {"MPI_ERR_ACCESS", "permission denied"},
    {"MPI_ERR_AMODE", "invalid file access mode"},
    {"MPI_ERR_ASSERT", "invalid assertion"},
    {"MPI_ERR_BAD_FILE", "invalid file name"},
    {"MPI_ERR_BASE", "invalid base address"},
    {"MPI_ERR_CONVERSION", "error in a data conversion function"},
    {"MPI_ERR_DISP", "invalid displacement"},
    {"MPI_ERR_DUP_DATAREP", "data representation already defined"},
    {"MPI_ERR_FILE_EXISTS", "file exists"},
    {"MPI_ERR_FILE_IN_USE", "file in use"},
    {"MPI_ERR_FILE", "invalid file handle"},
    {"MPI_ERR_INFO_KEY", "info key too long"},
    {"MPI_ERR_INFO_NOKEY", "no such info key"},
    {"MPI_ERR_INFO_VALUE", "info value too long"},
    {"MPI_ERR_INFO", "invalid info object"},
    {"MPI_ERR_IO", "input/output error"},
    {"MPI_ERR_KEYVAL", "invalid attribute key"},
    {"MPI_ERR_LOCKTYPE", "invalid lock type"},
    {"MPI_ERR_NAME", "invalid service name"},
    {"MPI_ERR_NO_MEM", "out of memory"},
    {"MPI_ERR_NOT_SAME", "arguments not the same on every process"},
    {"MPI_ERR_NO_SPACE", "not enough space"},
    {"MPI_ERR_NO_SUCH_FILE", "no such file"},
    {"MPI_ERR_PORT", "invalid port name"},
    {"MPI_ERR_PROC_ABORTED", "a process aborted"},
    {"MPI_ERR_QUOTA", "quota exceeded"},
    {"MPI_ERR_READ_ONLY", "read-only file or file system"},
    {"MPI_ERR_RMA_ATTACH", "memory cannot be attached"},
    {"MPI_ERR_RMA_CONFLICT", "conflicting accesses to a window"},
    {"MPI_ERR_RMA_RANGE", "target memory outside the window"},
    {"MPI_ERR_RMA_SHARED", "memory cannot be shared"},
    {"MPI_ERR_RMA_SYNC", "wrong synchronization of RMA calls"},
    {"MPI_ERR_RMA_FLAVOR", "wrong window flavor"},
    {"MPI_ERR_SERVICE", "invalid service"},
    {"MPI_ERR_SESSION", "invalid session"},
    {"MPI_ERR_SIZE", "invalid size"},
    {"MPI_ERR_SPAWN", "error spawning processes"},
    {"MPI_ERR_UNSUPPORTED_DATAREP", "unsupported data representation"},
    {"MPI_ERR_VALUE_TOO_LARGE", "value too large to store"},
    {"MPI_ERR_WIN", "invalid window"},
    {"MPI_ERR_ERRHANDLER", "invalid error handler"},
}};

// ULFM's class, past the standard's and the tool interface's.
constexpr ClassText kProcFailed = {"MPI_ERR_PROC_FAILED", "a process the call needed has failed"};

bool predefined_class(int code) {
  return (code >= 0 && code <= MPI_ERR_ERRHANDLER) || code == MPI_ERR_PROC_FAILED;
}

const ClassText& predefined_text(int code) {
  return code == MPI_ERR_PROC_FAILED ? kProcFailed : kClasses[static_cast<std::size_t>(code)];
}

// The calling rank's state once it has called MPI_Init (its handles exist), or null.
RankState* initialized_state() {
  Node* n = this_node();
  if (n == nullptr) return nullptr;
  try {
    RankState& s = rank_state(node_or_fail("raise_error"));
    return s.initialized ? &s : nullptr;
  } catch (const MpiError&) {
    return nullptr;
  }
}

// The class of a code: a predefined class is its own, an added code has the class it was
// added to; -1 when the code is neither.
int class_of(const RankState* s, int code) {
  if (predefined_class(code)) return code;
  if (s != nullptr) {
    auto it = s->added_codes.find(code);
    if (it != s->added_codes.end()) return it->second;
  }
  return -1;
}

}  // namespace

MpiError::MpiError(const char* function, int error_class, std::string text)
    : std::runtime_error(error_report(function, error_class, text)),
      function_(function),
      class_(error_class),
      text_(std::move(text)) {}

void fail(const char* function, int error_class, const std::string& text) {
  throw MpiError(function, error_class, text);
}

std::string error_class_name(int error_class) {
  if (predefined_class(error_class)) return predefined_text(error_class).name;
  const RankState* s = initialized_state();
  const int c = class_of(s, error_class);
  if (c == error_class) return "error class " + std::to_string(error_class);
  if (c >= 0) {
    return "error code " + std::to_string(error_class) + " of class " + error_class_name(c);
  }
  return "error code " + std::to_string(error_class);
}

std::string error_report(const char* function, int error_class, const std::string& text) {
  const Node* n = this_node();
  const std::string who = n != nullptr ? "rank " + std::to_string(n->rank()) + ": " : "";
  return who + function + ": " + error_class_name(error_class) + ": " + text;
}

std::string calls_differ(const std::string& text, const std::string& comm_label, bool world) {
  std::string out = text;
  // "collective call 4 on this comm: the members' calls differ: rank 3 (node 3) called X,
  // ranks 0-2 (nodes 0-2) called Y"
  out = std::regex_replace(out,
                           std::regex("^collective call [0-9]+ on this comm: the members' "
                                      "calls differ: "),
                           "");
  // "collective call 4 on this comm is X, but rank 1 (node 5) called Y"
  out = std::regex_replace(out, std::regex("^collective call [0-9]+ on this comm is "),
                           "this rank called ");
  out = std::regex_replace(out, std::regex(", but (rank [0-9]+) "), ", $1 ");
  // "collective call 4 (MPI_Gatherv): the counts differ from those of ..."
  out = std::regex_replace(out, std::regex("^collective call [0-9]+ \\(([^)]*)\\): "), "$1: ");
  out = std::regex_replace(out, std::regex(" \\(node ([0-9]+)\\)"),
                           world ? std::string() : std::string(" (rank $1 of MPI_COMM_WORLD)"));
  out = std::regex_replace(out, std::regex(" \\(nodes ([-0-9, ]+(and [0-9]+ more)?)\\)"),
                           world ? std::string() : std::string(" (ranks $1 of MPI_COMM_WORLD)"));
  return "the ranks' calls differ on " + comm_label + ": " + out;
}

// vmc's error text without the node it names first ("node 3 (rank 1 of comm 2): "), which
// the MPI report names as a rank, and without `operation` when it follows.
std::string without_who(const std::string& text, const std::string& operation) {
  std::string rest = text;
  if (rest.rfind("node ", 0) == 0) {
    const std::size_t colon = rest.find(": ");
    if (colon != std::string::npos) rest = rest.substr(colon + 2);
  }
  if (rest.rfind(operation + ": ", 0) == 0) rest = rest.substr(operation.size() + 2);
  return rest;
}

void blamed_rank_failure(const CallsDifferError& e, const std::string& text) {
  throw CallsDifferError(e.node(), e.operation(),
                         "rank " + std::to_string(e.node()) + ": " + e.operation() + ": " +
                             error_class_name(MPI_ERR_ARG) + ": " + text);
}

void calls_differ_failure(const CallsDifferError& e, const std::string& comm_label, bool world) {
  // vmc's report names the member it blames and its call first ("node 3 (rank 1 of comm 2):
  // MPI_Bcast: "): the MPI report names them as a rank and a function.
  blamed_rank_failure(e, calls_differ(without_who(e.what(), e.operation()), comm_label, world));
}

int raise_error(const char* function, MPI_Comm comm, int error_class, const std::string& text) {
  const std::string report = error_report(function, error_class, text);
  if (this_node() == nullptr) {
    // A thread of the program's own, not a rank's: no rank, no handler, and an exception would
    // end the process. The call fails and says so.
    std::fprintf(stderr, "vmc: %s\n", report.c_str());
    return error_class;
  }
  RankState* s = initialized_state();
  if (s == nullptr) throw FatalError(report);
  const int cls = class_of(s, error_class);
  s->last_error[cls >= 0 ? cls : error_class] =
      std::string(function) + ": " + error_class_name(error_class) + ": " + text;
  MPI_Comm target = comm;
  const CommEntry* e = live_comm(*s, comm);
  if (e == nullptr) {
    target = MPI_COMM_SELF;
    e = live_comm(*s, MPI_COMM_SELF);
  }
  const MPI_Errhandler h = e != nullptr ? e->errhandler : MPI_ERRORS_ARE_FATAL;
  switch (h) {
    case MPI_ERRORS_RETURN: return error_class;
    case MPI_ERRORS_ARE_FATAL: throw FatalError(report);
    case MPI_ERRORS_ABORT:
      record_abort(this_node()->rank(), error_class, true);
      throw FatalError(report + " (MPI_ERRORS_ABORT on " + comm_label(*s, target) +
                       ": the job is aborted)");
    default: {
      MPI_Comm_errhandler_function* fn = s->errhandlers.at(static_cast<std::size_t>(h)).fn;
      int code = error_class;
      fn(&target, &code);
      return error_class;
    }
  }
}

}  // namespace vmc::mpi

using namespace vmc;
using namespace vmc::mpi;

namespace {

// The error handler `h` names on this rank, or an error.
ErrhandlerEntry& errhandler_or_fail(const char* fn, RankState& s, MPI_Errhandler h) {
  if (h == MPI_ERRHANDLER_NULL) {
    fail(fn, MPI_ERR_ARG, "MPI_ERRHANDLER_NULL is not an error handler");
  }
  if (h < MPI_ERRHANDLER_NULL || h >= static_cast<MPI_Errhandler>(s.errhandlers.size())) {
    fail(fn, MPI_ERR_ARG, "invalid error handler " + std::to_string(h));
  }
  ErrhandlerEntry& e = s.errhandlers[static_cast<std::size_t>(h)];
  if (e.freed) {
    fail(fn, MPI_ERR_ARG,
         "error handler " + std::to_string(h) + " was freed (MPI_Errhandler_free)");
  }
  return e;
}

int create_errhandler(const char* fn, MPI_Comm_errhandler_function* function,
                      MPI_Errhandler* errhandler) {
  return mpi_call(MPI_COMM_NULL, [&] {
    RankState& s = session_state(fn);
    check_arg(fn, reinterpret_cast<const void*>(function), "the handler function");
    check_arg(fn, errhandler, "errhandler");
    s.errhandlers.push_back(ErrhandlerEntry{function});
    *errhandler = static_cast<MPI_Errhandler>(s.errhandlers.size() - 1);
    return MPI_SUCCESS;
  });
}

int set_errhandler(const char* fn, MPI_Comm comm, MPI_Errhandler errhandler) {
  return mpi_call(comm, [&] {
    RankState& s = session_state(fn);
    CommEntry& c = comm_or_fail(fn, s, comm);
    errhandler_or_fail(fn, s, errhandler);
    c.errhandler = errhandler;
    return MPI_SUCCESS;
  });
}

int get_errhandler(const char* fn, MPI_Comm comm, MPI_Errhandler* errhandler) {
  return mpi_call(comm, [&] {
    RankState& s = session_state(fn);
    const CommEntry& c = comm_or_fail(fn, s, comm);
    check_arg(fn, errhandler, "errhandler");
    *errhandler = c.errhandler;
    return MPI_SUCCESS;
  });
}

// Copies `text` into an MPI string argument of `capacity` bytes (the terminating zero
// included) and sets its length.
void copy_out(const std::string& text, char* out, int capacity, int* resultlen) {
  const std::size_t n = std::min(text.size(), static_cast<std::size_t>(capacity - 1));
  std::memcpy(out, text.data(), n);
  out[n] = '\0';
  *resultlen = static_cast<int>(n);
}

}  // namespace

extern "C" {

int MPI_Comm_create_errhandler(MPI_Comm_errhandler_function* comm_errhandler_fn,
                               MPI_Errhandler* errhandler) {
  return create_errhandler("MPI_Comm_create_errhandler", comm_errhandler_fn, errhandler);
}

int MPI_Comm_set_errhandler(MPI_Comm comm, MPI_Errhandler errhandler) {
  return set_errhandler("MPI_Comm_set_errhandler", comm, errhandler);
}

int MPI_Comm_get_errhandler(MPI_Comm comm, MPI_Errhandler* errhandler) {
  return get_errhandler("MPI_Comm_get_errhandler", comm, errhandler);
}

int MPI_Errhandler_create(MPI_Handler_function* function, MPI_Errhandler* errhandler) {
  return create_errhandler("MPI_Errhandler_create", function, errhandler);
}

int MPI_Errhandler_set(MPI_Comm comm, MPI_Errhandler errhandler) {
  return set_errhandler("MPI_Errhandler_set", comm, errhandler);
}

int MPI_Errhandler_get(MPI_Comm comm, MPI_Errhandler* errhandler) {
  return get_errhandler("MPI_Errhandler_get", comm, errhandler);
}

int MPI_Comm_call_errhandler(MPI_Comm comm, int errorcode) {
  const char* fn = "MPI_Comm_call_errhandler";
  int result = mpi_call(comm, [&] {
    RankState& s = session_state(fn);
    comm_or_fail(fn, s, comm);
    if (class_of(&s, errorcode) < 0) {
      fail(fn, MPI_ERR_ARG, "invalid error code " + std::to_string(errorcode));
    }
    return MPI_SUCCESS;
  });
  if (result != MPI_SUCCESS) return result;
  raise_error(fn, comm, errorcode,
              "error code " + std::to_string(errorcode) + " raised by the program");
  return MPI_SUCCESS;  // the handler was called and returned
}

int MPI_Errhandler_free(MPI_Errhandler* errhandler) {
  const char* fn = "MPI_Errhandler_free";
  return mpi_call(MPI_COMM_NULL, [&] {
    RankState& s = session_state(fn);
    check_arg(fn, errhandler, "errhandler");
    ErrhandlerEntry& e = errhandler_or_fail(fn, s, *errhandler);
    // A predefined handler stays (MPI_Comm_get_errhandler's result may be freed, whatever
    // it is); a program's is freed, and the communicators that use it keep it.
    if (*errhandler >= kPredefinedErrhandlers) e.freed = true;
    *errhandler = MPI_ERRHANDLER_NULL;
    return MPI_SUCCESS;
  });
}

int MPI_Error_class(int errorcode, int* errorclass) {
  const char* fn = "MPI_Error_class";
  return mpi_call(MPI_COMM_NULL, [&] {
    const RankState& s = rank_state(node_or_fail(fn));
    check_arg(fn, errorclass, "errorclass");
    const int c = class_of(&s, errorcode);
    if (c < 0) fail(fn, MPI_ERR_ARG, "invalid error code " + std::to_string(errorcode));
    *errorclass = c;
    return MPI_SUCCESS;
  });
}

int MPI_Error_string(int errorcode, char* string, int* resultlen) {
  const char* fn = "MPI_Error_string";
  return mpi_call(MPI_COMM_NULL, [&] {
    const RankState& s = rank_state(node_or_fail(fn));
    check_arg(fn, string, "string");
    check_arg(fn, resultlen, "resultlen");
    const int c = class_of(&s, errorcode);
    if (c < 0) fail(fn, MPI_ERR_ARG, "invalid error code " + std::to_string(errorcode));
    std::string text;
    if (auto it = s.added_strings.find(errorcode); it != s.added_strings.end()) {
      text = it->second;
    } else if (auto last = s.last_error.find(c); last != s.last_error.end()) {
      text = last->second;
    } else if (predefined_class(c)) {
      text = std::string(predefined_text(c).name) + ": " +
             predefined_text(c).text;
    } else {
      text = error_class_name(errorcode);
    }
    copy_out(text, string, MPI_MAX_ERROR_STRING, resultlen);
    return MPI_SUCCESS;
  });
}

int MPI_Add_error_class(int* errorclass) {
  const char* fn = "MPI_Add_error_class";
  return mpi_call(MPI_COMM_NULL, [&] {
    RankState& s = session_state(fn);
    check_arg(fn, errorclass, "errorclass");
    const int c = ++s.last_used_code;
    s.added_codes[c] = c;
    s.attributes.lastusedcode = c;
    *errorclass = c;
    return MPI_SUCCESS;
  });
}

int MPI_Add_error_code(int errorclass, int* errorcode) {
  const char* fn = "MPI_Add_error_code";
  return mpi_call(MPI_COMM_NULL, [&] {
    RankState& s = session_state(fn);
    check_arg(fn, errorcode, "errorcode");
    if (class_of(&s, errorclass) != errorclass) {
      fail(fn, MPI_ERR_ARG, "invalid error class " + std::to_string(errorclass));
    }
    const int c = ++s.last_used_code;
    s.added_codes[c] = errorclass;
    s.attributes.lastusedcode = c;
    *errorcode = c;
    return MPI_SUCCESS;
  });
}

int MPI_Add_error_string(int errorcode, const char* string) {
  const char* fn = "MPI_Add_error_string";
  return mpi_call(MPI_COMM_NULL, [&] {
    RankState& s = session_state(fn);
    check_arg(fn, string, "string");
    if (s.added_codes.count(errorcode) == 0) {
      fail(fn, MPI_ERR_ARG,
           "error code " + std::to_string(errorcode) +
               " was not added by MPI_Add_error_class or MPI_Add_error_code (a predefined "
               "code's string cannot change)");
    }
    if (std::strlen(string) >= MPI_MAX_ERROR_STRING) {
      fail(fn, MPI_ERR_ARG,
           "the string has " + std::to_string(std::strlen(string)) +
               " characters; MPI_MAX_ERROR_STRING allows " +
               std::to_string(MPI_MAX_ERROR_STRING - 1));
    }
    s.added_strings[errorcode] = string;
    return MPI_SUCCESS;
  });
}

}  // extern "C"
