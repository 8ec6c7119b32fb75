// The MPI functions of mpi/include/mpi.h over vmc: the calling rank is the node whose function
// runs (vmc::this_node(), its world rank is the MPI rank), MPI_COMM_WORLD is the node's world
// Comm, the collectives run vmc's with the algorithm `auto` chooses. Per-rank state sits in a
// table indexed by world rank (mpi/job.hpp sizes it). Every error is fatal
// (MPI_ERRORS_ARE_FATAL, the default; no other handler yet): it throws from the node's
// function, which ends the run with a message naming the rank and the function.
#include <cstdio>
#include <cstring>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "collectives/collectives.hpp"
#include "mpi/include/mpi.h"
#include "mpi/job.hpp"
#include "runtime/machine.hpp"

namespace vmc::mpi {
namespace {

struct RankState {
  bool initialized = false;
  bool finalized = false;
};
std::vector<RankState> g_ranks;  // sized by begin_job, before the run

// An MPI error: fatal, so it ends the run (the code is what MPI_ERRORS_RETURN would return).
class MpiError : public std::runtime_error {
 public:
  MpiError(int code, const std::string& what) : std::runtime_error(what), code_(code) {}
  int code() const { return code_; }

 private:
  int code_;
};

const char* error_class_name(int code) {
  switch (code) {
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

Node& node_or_fail(const char* fn) {
  Node* n = this_node();
  if (n == nullptr) {
    throw MpiError(MPI_ERR_OTHER, std::string(fn) +
                                      ": called outside a rank of vmc mpirun (no vmc node "
                                      "runs on this thread)");
  }
  return *n;
}

// Ends the run: the rank, the function, the error class and what went wrong.
[[noreturn]] void fail(const char* fn, int code, const std::string& what) {
  Node* n = this_node();
  std::string who = n != nullptr ? "rank " + std::to_string(n->rank()) + ": " : "";
  throw MpiError(code, who + fn + ": " + error_class_name(code) + ": " + what);
}

// The calling rank, checked to be between MPI_Init and MPI_Finalize.
Node& rank_in_session(const char* fn) {
  Node& n = node_or_fail(fn);
  const RankState& s = g_ranks.at(n.rank());
  if (!s.initialized) fail(fn, MPI_ERR_OTHER, "called before MPI_Init");
  if (s.finalized) fail(fn, MPI_ERR_OTHER, "called after MPI_Finalize");
  return n;
}

// A communicator handle: the world, or the rank alone (self).
struct CommRef {
  const Comm* world = nullptr;  // null: MPI_COMM_SELF
  int rank() const { return world != nullptr ? world->rank() : 0; }
  int size() const { return world != nullptr ? world->size() : 1; }
};

CommRef comm_of(const char* fn, Node& n, MPI_Comm comm) {
  if (comm == MPI_COMM_WORLD) return CommRef{&n.world()};
  if (comm == MPI_COMM_SELF) return CommRef{nullptr};
  fail(fn, MPI_ERR_COMM, "invalid communicator " + std::to_string(comm));
}

// A predefined datatype's size and, for the reductions, its vmc op.
struct TypeInfo {
  const char* name;
  std::size_t size;
};

std::optional<TypeInfo> type_info(MPI_Datatype t) {
  switch (t) {
    case MPI_CHAR: return TypeInfo{"MPI_CHAR", sizeof(char)};
    case MPI_SIGNED_CHAR: return TypeInfo{"MPI_SIGNED_CHAR", sizeof(signed char)};
    case MPI_UNSIGNED_CHAR: return TypeInfo{"MPI_UNSIGNED_CHAR", sizeof(unsigned char)};
    case MPI_BYTE: return TypeInfo{"MPI_BYTE", 1};
    case MPI_SHORT: return TypeInfo{"MPI_SHORT", sizeof(short)};
    case MPI_UNSIGNED_SHORT: return TypeInfo{"MPI_UNSIGNED_SHORT", sizeof(unsigned short)};
    case MPI_INT: return TypeInfo{"MPI_INT", sizeof(int)};
    case MPI_UNSIGNED: return TypeInfo{"MPI_UNSIGNED", sizeof(unsigned)};
    case MPI_LONG: return TypeInfo{"MPI_LONG", sizeof(long)};
    case MPI_UNSIGNED_LONG: return TypeInfo{"MPI_UNSIGNED_LONG", sizeof(unsigned long)};
    case MPI_LONG_LONG: return TypeInfo{"MPI_LONG_LONG", sizeof(long long)};
    case MPI_UNSIGNED_LONG_LONG:
      return TypeInfo{"MPI_UNSIGNED_LONG_LONG", sizeof(unsigned long long)};
    case MPI_FLOAT: return TypeInfo{"MPI_FLOAT", sizeof(float)};
    case MPI_DOUBLE: return TypeInfo{"MPI_DOUBLE", sizeof(double)};
    case MPI_LONG_DOUBLE: return TypeInfo{"MPI_LONG_DOUBLE", sizeof(long double)};
    case MPI_INT8_T: return TypeInfo{"MPI_INT8_T", 1};
    case MPI_UINT8_T: return TypeInfo{"MPI_UINT8_T", 1};
    case MPI_INT16_T: return TypeInfo{"MPI_INT16_T", 2};
    case MPI_UINT16_T: return TypeInfo{"MPI_UINT16_T", 2};
    case MPI_INT32_T: return TypeInfo{"MPI_INT32_T", 4};
    case MPI_UINT32_T: return TypeInfo{"MPI_UINT32_T", 4};
    case MPI_INT64_T: return TypeInfo{"MPI_INT64_T", 8};
    case MPI_UINT64_T: return TypeInfo{"MPI_UINT64_T", 8};
    case MPI_C_BOOL: return TypeInfo{"MPI_C_BOOL", sizeof(bool)};
    case MPI_WCHAR: return TypeInfo{"MPI_WCHAR", sizeof(wchar_t)};
    case MPI_AINT: return TypeInfo{"MPI_AINT", sizeof(MPI_Aint)};
    case MPI_OFFSET: return TypeInfo{"MPI_OFFSET", sizeof(MPI_Offset)};
    case MPI_COUNT: return TypeInfo{"MPI_COUNT", sizeof(MPI_Count)};
    default: return std::nullopt;
  }
}

TypeInfo type_or_fail(const char* fn, MPI_Datatype t) {
  auto info = type_info(t);
  if (!info) fail(fn, MPI_ERR_TYPE, "invalid datatype " + std::to_string(t));
  return *info;
}

void check_count(const char* fn, int count) {
  if (count < 0) fail(fn, MPI_ERR_COUNT, "negative count " + std::to_string(count));
}

// What every call that moves data checks first, in this order: the rank's session, the
// communicator, the count, the datatype.
struct DataCall {
  CommRef c;
  TypeInfo t;
};
DataCall data_call(const char* fn, MPI_Comm comm, int count, MPI_Datatype datatype) {
  Node& n = rank_in_session(fn);
  const CommRef c = comm_of(fn, n, comm);
  check_count(fn, count);
  return {c, type_or_fail(fn, datatype)};
}

void check_buffer(const char* fn, const void* buf, int count) {
  if (buf == nullptr && count > 0) {
    fail(fn, MPI_ERR_BUFFER, "null buffer for " + std::to_string(count) + " items");
  }
}

void check_rank(const char* fn, int code, const char* what, int r, const CommRef& c) {
  if (r < 0 || r >= c.size()) {
    fail(fn, code, std::string(what) + " " + std::to_string(r) + " is not a rank of a " +
                       "communicator of " + std::to_string(c.size()));
  }
}

const char* op_name(MPI_Op op) {
  switch (op) {
    case MPI_MAX: return "max";
    case MPI_MIN: return "min";
    case MPI_SUM: return "sum";
    case MPI_PROD: return "prod";
    case MPI_LAND: return "land";
    case MPI_BAND: return "band";
    case MPI_LOR: return "lor";
    case MPI_BOR: return "bor";
    case MPI_LXOR: return "lxor";
    case MPI_BXOR: return "bxor";
    default: return nullptr;
  }
}

template <class T>
std::optional<Op> named_op(const char* name) {
  return ops::named<T>(name);
}

// The vmc op for (op, datatype), or an error: an unknown op, or one the type does not take
// (bitwise ops on floating point, any op on MPI_BYTE's... MPI allows bitwise ops on bytes).
Op op_or_fail(const char* fn, MPI_Op op, MPI_Datatype t) {
  const char* name = op_name(op);
  if (name == nullptr) fail(fn, MPI_ERR_OP, "invalid operation " + std::to_string(op));
  std::optional<Op> r;
  switch (t) {
    case MPI_CHAR: r = named_op<char>(name); break;
    case MPI_SIGNED_CHAR: case MPI_INT8_T: r = named_op<signed char>(name); break;
    case MPI_UNSIGNED_CHAR: case MPI_BYTE: case MPI_UINT8_T:
      r = named_op<unsigned char>(name); break;
    case MPI_SHORT: case MPI_INT16_T: r = named_op<short>(name); break;
    case MPI_UNSIGNED_SHORT: case MPI_UINT16_T: r = named_op<unsigned short>(name); break;
    case MPI_INT: case MPI_INT32_T: r = named_op<int>(name); break;
    case MPI_UNSIGNED: case MPI_UINT32_T: r = named_op<unsigned>(name); break;
    case MPI_LONG: r = named_op<long>(name); break;
    case MPI_UNSIGNED_LONG: r = named_op<unsigned long>(name); break;
    case MPI_LONG_LONG: case MPI_INT64_T: case MPI_AINT: case MPI_OFFSET: case MPI_COUNT:
      r = named_op<long long>(name); break;
    case MPI_UNSIGNED_LONG_LONG: case MPI_UINT64_T: r = named_op<unsigned long long>(name); break;
    case MPI_FLOAT: r = named_op<float>(name); break;
    case MPI_DOUBLE: r = named_op<double>(name); break;
    case MPI_LONG_DOUBLE: r = named_op<long double>(name); break;
    case MPI_C_BOOL: r = named_op<bool>(name); break;
    case MPI_WCHAR: r = named_op<wchar_t>(name); break;
    default: fail(fn, MPI_ERR_TYPE, "invalid datatype " + std::to_string(t));
  }
  if (!r) {
    fail(fn, MPI_ERR_OP, std::string("operation ") + name + " does not apply to " +
                             type_info(t)->name);
  }
  return *r;
}

void set_status(MPI_Status* status, int source, int tag, std::size_t bytes) {
  if (status == MPI_STATUS_IGNORE) return;
  status->MPI_SOURCE = source;
  status->MPI_TAG = tag;
  status->MPI_ERROR = MPI_SUCCESS;
  status->vmc_bytes = static_cast<long long>(bytes);
}

}  // namespace

void begin_job(const JobOptions& options) {
  g_ranks.assign(static_cast<std::size_t>(options.ranks), RankState{});
}

JobOutcome end_job() {
  JobOutcome out;
  for (std::size_t i = 0; i < g_ranks.size(); ++i) {
    if (g_ranks[i].initialized && !g_ranks[i].finalized) {
      out.unfinalized.push_back(static_cast<int>(i));
    }
  }
  return out;
}

}  // namespace vmc::mpi

using namespace vmc;
using namespace vmc::mpi;

extern "C" {

int MPI_Init(int*, char***) {
  Node& n = node_or_fail("MPI_Init");
  RankState& s = g_ranks.at(n.rank());
  if (s.initialized) fail("MPI_Init", MPI_ERR_OTHER, "MPI is already initialized");
  s.initialized = true;
  return MPI_SUCCESS;
}

int MPI_Initialized(int* flag) {
  Node& n = node_or_fail("MPI_Initialized");
  *flag = g_ranks.at(n.rank()).initialized ? 1 : 0;
  return MPI_SUCCESS;
}

int MPI_Finalize(void) {
  Node& n = rank_in_session("MPI_Finalize");
  g_ranks.at(n.rank()).finalized = true;
  return MPI_SUCCESS;
}

int MPI_Finalized(int* flag) {
  Node& n = node_or_fail("MPI_Finalized");
  *flag = g_ranks.at(n.rank()).finalized ? 1 : 0;
  return MPI_SUCCESS;
}

int MPI_Abort(MPI_Comm comm, int errorcode) {
  Node& n = node_or_fail("MPI_Abort");
  throw std::runtime_error("rank " + std::to_string(n.rank()) + " called MPI_Abort(" +
                           (comm == MPI_COMM_SELF ? std::string("MPI_COMM_SELF")
                                                  : std::string("MPI_COMM_WORLD")) +
                           ", " + std::to_string(errorcode) + ")");
}

int MPI_Comm_rank(MPI_Comm comm, int* rank) {
  Node& n = rank_in_session("MPI_Comm_rank");
  *rank = comm_of("MPI_Comm_rank", n, comm).rank();
  return MPI_SUCCESS;
}

int MPI_Comm_size(MPI_Comm comm, int* size) {
  Node& n = rank_in_session("MPI_Comm_size");
  *size = comm_of("MPI_Comm_size", n, comm).size();
  return MPI_SUCCESS;
}

double MPI_Wtime(void) { return node_or_fail("MPI_Wtime").world().now(); }

double MPI_Wtick(void) { return 1e-12; }  // the clock counts picoseconds

int MPI_Get_processor_name(char* name, int* resultlen) {
  Node& n = node_or_fail("MPI_Get_processor_name");
  const std::string s = "vmc-node-" + std::to_string(n.rank());
  std::snprintf(name, MPI_MAX_PROCESSOR_NAME, "%s", s.c_str());
  *resultlen = static_cast<int>(std::strlen(name));
  return MPI_SUCCESS;
}

int MPI_Type_size(MPI_Datatype datatype, int* size) {
  *size = static_cast<int>(type_or_fail("MPI_Type_size", datatype).size);
  return MPI_SUCCESS;
}

int MPI_Send(const void* buf, int count, MPI_Datatype datatype, int dest, int tag,
             MPI_Comm comm) {
  const char* fn = "MPI_Send";
  const auto [c, t] = data_call(fn, comm, count, datatype);
  check_buffer(fn, buf, count);
  if (tag < 0) fail(fn, MPI_ERR_TAG, "negative tag " + std::to_string(tag));
  if (dest == MPI_PROC_NULL) return MPI_SUCCESS;
  check_rank(fn, MPI_ERR_RANK, "destination", dest, c);
  if (c.world == nullptr) {
    fail(fn, MPI_ERR_UNSUPPORTED_OPERATION, "messages on MPI_COMM_SELF are not supported yet");
  }
  const std::size_t items = static_cast<std::size_t>(count);
  c.world->send_raw(buf, items * t.size, items, dest, static_cast<Tag>(tag));
  return MPI_SUCCESS;
}

int MPI_Recv(void* buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm,
             MPI_Status* status) {
  const char* fn = "MPI_Recv";
  const auto [c, t] = data_call(fn, comm, count, datatype);
  check_buffer(fn, buf, count);
  if (source == MPI_ANY_SOURCE) {
    fail(fn, MPI_ERR_UNSUPPORTED_OPERATION,
         "MPI_ANY_SOURCE: receives from any source are not supported yet (give the source)");
  }
  if (tag == MPI_ANY_TAG) {
    fail(fn, MPI_ERR_UNSUPPORTED_OPERATION,
         "MPI_ANY_TAG: receives of any tag are not supported yet (give the tag)");
  }
  if (tag < 0) fail(fn, MPI_ERR_TAG, "negative tag " + std::to_string(tag));
  if (source == MPI_PROC_NULL) {
    set_status(status, MPI_PROC_NULL, MPI_ANY_TAG, 0);
    return MPI_SUCCESS;
  }
  check_rank(fn, MPI_ERR_RANK, "source", source, c);
  if (c.world == nullptr) {
    fail(fn, MPI_ERR_UNSUPPORTED_OPERATION, "messages on MPI_COMM_SELF are not supported yet");
  }
  const std::size_t bytes = c.world->recv_raw(buf, static_cast<std::size_t>(count) * t.size,
                                              t.size, source, static_cast<Tag>(tag));
  set_status(status, source, tag, bytes);
  return MPI_SUCCESS;
}

int MPI_Get_count(const MPI_Status* status, MPI_Datatype datatype, int* count) {
  const TypeInfo t = type_or_fail("MPI_Get_count", datatype);
  if (status == MPI_STATUS_IGNORE) fail("MPI_Get_count", MPI_ERR_ARG, "MPI_STATUS_IGNORE given");
  const long long bytes = status->vmc_bytes;
  *count = bytes % static_cast<long long>(t.size) == 0
               ? static_cast<int>(bytes / static_cast<long long>(t.size))
               : MPI_UNDEFINED;
  return MPI_SUCCESS;
}

int MPI_Barrier(MPI_Comm comm) {
  const char* fn = "MPI_Barrier";
  Node& n = rank_in_session(fn);
  const CommRef c = comm_of(fn, n, comm);
  if (c.world != nullptr) barrier(*c.world);
  return MPI_SUCCESS;
}

int MPI_Bcast(void* buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm) {
  const char* fn = "MPI_Bcast";
  const auto [c, t] = data_call(fn, comm, count, datatype);
  check_buffer(fn, buffer, count);
  check_rank(fn, MPI_ERR_ROOT, "root", root, c);
  if (c.world != nullptr) {
    vmc::detail::broadcast_bytes(*c.world, buffer, static_cast<std::size_t>(count), t.size, root,
                                 {});
  }
  return MPI_SUCCESS;
}

int MPI_Reduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
               int root, MPI_Comm comm) {
  const char* fn = "MPI_Reduce";
  const auto [c, t] = data_call(fn, comm, count, datatype);
  const Op vop = op_or_fail(fn, op, datatype);
  check_rank(fn, MPI_ERR_ROOT, "root", root, c);
  const bool at_root = c.rank() == root;
  if (sendbuf == MPI_IN_PLACE && !at_root) {
    fail(fn, MPI_ERR_BUFFER, "MPI_IN_PLACE is for the root only");
  }
  const std::size_t items = static_cast<std::size_t>(count);
  const std::size_t bytes = items * t.size;
  if (sendbuf != MPI_IN_PLACE) check_buffer(fn, sendbuf, count);
  if (at_root) check_buffer(fn, recvbuf, count);
  // vmc's reduce in place: every rank's contribution in one buffer, the result at the root.
  std::vector<unsigned char> scratch;
  void* work = recvbuf;
  if (!at_root) {
    scratch.assign(static_cast<const unsigned char*>(sendbuf),
                   static_cast<const unsigned char*>(sendbuf) + bytes);
    work = scratch.data();
  } else if (sendbuf != MPI_IN_PLACE && bytes > 0) {
    std::memmove(recvbuf, sendbuf, bytes);
  }
  if (c.world != nullptr) {
    vmc::detail::reduce_bytes(*c.world, nullptr, 0, work, items, t.size, vop, root, {});
  }
  return MPI_SUCCESS;
}

int MPI_Allreduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype,
                  MPI_Op op, MPI_Comm comm) {
  const char* fn = "MPI_Allreduce";
  const auto [c, t] = data_call(fn, comm, count, datatype);
  const Op vop = op_or_fail(fn, op, datatype);
  const std::size_t items = static_cast<std::size_t>(count);
  check_buffer(fn, recvbuf, count);
  if (sendbuf != MPI_IN_PLACE) {
    check_buffer(fn, sendbuf, count);
    if (items > 0) std::memmove(recvbuf, sendbuf, items * t.size);
  }
  if (c.world != nullptr) {
    vmc::detail::allreduce_bytes(*c.world, nullptr, 0, recvbuf, items, t.size, vop, {});
  }
  return MPI_SUCCESS;
}

}  // extern "C"
