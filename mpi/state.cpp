// Each rank's state, the predefined datatypes and the shared checks (state.hpp); the host's
// calls around a run (job.hpp).
#include "mpi/state.hpp"

#include <mutex>

#include "mpi/job.hpp"

namespace vmc::mpi {
namespace {

std::vector<RankState> g_ranks;  // sized by begin_job, before the run
// The first MPI_Abort of the job: its rank (-1: none) and code, for end_job.
std::mutex g_abort_mutex;
int g_abort_rank = -1;
int g_abort_code = 0;

}  // namespace

void begin_job(const JobOptions& options) {
  g_ranks.assign(static_cast<std::size_t>(options.ranks), RankState{});
  g_abort_rank = -1;
  g_abort_code = 0;
}

void record_abort(int rank, int code) {
  std::lock_guard lock(g_abort_mutex);
  if (g_abort_rank >= 0) return;
  g_abort_rank = rank;
  g_abort_code = code;
}

JobOutcome end_job() {
  JobOutcome out;
  out.abort_rank = g_abort_rank;
  out.abort_code = g_abort_code;
  for (std::size_t i = 0; i < g_ranks.size(); ++i) {
    if (g_ranks[i].initialized && !g_ranks[i].finalized) {
      out.unfinalized.push_back(static_cast<int>(i));
    }
  }
  return out;
}

Node& node_or_fail(const char* function) {
  Node* n = this_node();
  if (n == nullptr) {
    fail(function, MPI_ERR_OTHER,
         "called outside a rank of vmc mpirun (no vmc node runs on this thread)");
  }
  return *n;
}

RankState& rank_state(const Node& node) { return g_ranks.at(node.rank()); }

Node& rank_in_session(const char* function) {
  Node& n = node_or_fail(function);
  const RankState& s = rank_state(n);
  if (!s.initialized) fail(function, MPI_ERR_OTHER, "called before MPI_Init");
  if (s.finalized) fail(function, MPI_ERR_OTHER, "called after MPI_Finalize");
  return n;
}

const CommEntry& comm_or_fail(const char* function, RankState& state, MPI_Comm comm) {
  if (comm <= MPI_COMM_NULL || comm >= static_cast<MPI_Comm>(state.comms.size())) {
    fail(function, MPI_ERR_COMM, "invalid communicator " + std::to_string(comm));
  }
  const CommEntry& e = state.comms[static_cast<std::size_t>(comm)];
  if (e.freed) fail(function, MPI_ERR_COMM, "communicator " + std::to_string(comm) + " was freed");
  return e;
}

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

TypeInfo type_or_fail(const char* function, MPI_Datatype t) {
  auto info = type_info(t);
  if (!info) fail(function, MPI_ERR_TYPE, "invalid datatype " + std::to_string(t));
  return *info;
}

void check_count(const char* function, int count) {
  if (count < 0) fail(function, MPI_ERR_COUNT, "negative count " + std::to_string(count));
}

void check_buffer(const char* function, const void* buf, int count) {
  if (buf == nullptr && count > 0) {
    fail(function, MPI_ERR_BUFFER, "null buffer for " + std::to_string(count) + " items");
  }
}

void check_rank(const char* function, int error_class, const char* what, int r,
                const Comm& comm) {
  if (r < 0 || r >= comm.size()) {
    fail(function, error_class,
         std::string(what) + " " + std::to_string(r) + " is not a rank of a communicator of " +
             std::to_string(comm.size()));
  }
}

DataCall data_call(const char* function, MPI_Comm comm, int count, MPI_Datatype datatype) {
  Node& n = rank_in_session(function);
  const CommEntry& c = comm_or_fail(function, rank_state(n), comm);
  check_count(function, count);
  return {c.comm, type_or_fail(function, datatype)};
}

}  // namespace vmc::mpi
