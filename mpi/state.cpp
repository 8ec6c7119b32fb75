// Each rank's state, the predefined datatypes and the shared checks (state.hpp); the host's
// calls around a run (job.hpp).
#include "mpi/state.hpp"

#include <algorithm>
#include <limits>
#include <complex>
#include <map>
#include <mutex>
#include <stdexcept>
#include <string>

namespace vmc::mpi {
namespace {

std::vector<RankState> g_ranks;  // sized by begin_job, before the run
JobOptions g_options;
std::vector<Options> g_operation_options;  // by Operation (operation_options), from g_options
std::mutex g_abort_mutex;
int g_abort_rank = -1;
int g_abort_code = 0;
bool g_abort_by_handler = false;

// share_values' table: each entry's values and the readers yet to take them.
struct Shared {
  std::vector<std::size_t> values;
  int readers = 0;
};
std::mutex g_shared_mutex;
std::map<SharedKey, Shared> g_shared;

std::mutex g_notes_mutex;
std::vector<std::string> g_notes;  // note_once's lines

}  // namespace

void begin_job(const JobOptions& options) {
  g_ranks.assign(static_cast<std::size_t>(options.ranks), RankState{});
  g_options = options;
  set_shared_malloc(options.shared_malloc);
  g_operation_options.assign(all_operations().size(), Options{});
  for (const Operation operation : all_operations()) {
    auto it = options.algorithms.find(to_string(operation));
    if (it == options.algorithms.end() && operation == Operation::broadcast) {
      it = options.algorithms.find("bcast");
    }
    if (it != options.algorithms.end()) {
      g_operation_options.at(static_cast<std::size_t>(operation)).algorithm = it->second;
    }
  }
  g_abort_rank = -1;
  g_abort_code = 0;
  g_abort_by_handler = false;
  {
    std::lock_guard lock(g_notes_mutex);
    g_notes.clear();
  }
  std::lock_guard lock(g_shared_mutex);
  g_shared.clear();
}

JobOutcome end_job() {
  JobOutcome out;
  for (std::size_t i = 0; i < g_ranks.size(); ++i) {
    if (g_ranks[i].initialized && !g_ranks[i].finalized) {
      out.unfinalized.push_back(static_cast<int>(i));
    }
  }
  out.abort_rank = g_abort_rank;
  out.abort_code = g_abort_code;
  out.abort_by_handler = g_abort_by_handler;
  std::lock_guard lock(g_notes_mutex);
  out.notes = g_notes;
  if (const std::string shared = shared_malloc_note(); !shared.empty()) out.notes.push_back(shared);
  return out;
}

void note_once(const std::string& line) {
  std::lock_guard lock(g_notes_mutex);
  if (std::find(g_notes.begin(), g_notes.end(), line) == g_notes.end()) g_notes.push_back(line);
}

const JobOptions& job_options() { return g_options; }

const Options& operation_options(Operation operation) {
  static const Options automatic;  // before any job
  const auto i = static_cast<std::size_t>(operation);
  return i < g_operation_options.size() ? g_operation_options[i] : automatic;
}

void share_values(SharedKey key, std::vector<std::size_t> values, int readers) {
  if (readers <= 0) return;
  std::lock_guard lock(g_shared_mutex);
  g_shared[key] = Shared{std::move(values), readers};
}

std::vector<std::size_t> take_shared_values(SharedKey key) {
  std::lock_guard lock(g_shared_mutex);
  auto it = g_shared.find(key);
  if (it == g_shared.end()) {
    throw std::logic_error("mpi: values of comm " + std::to_string(key.comm) + " tag " +
                           std::to_string(key.tag) + " taken before they were shared");
  }
  if (--it->second.readers > 0) return it->second.values;
  std::vector<std::size_t> values = std::move(it->second.values);
  g_shared.erase(it);
  return values;
}

void record_abort(int rank, int code, bool by_handler) {
  std::lock_guard lock(g_abort_mutex);
  if (g_abort_rank >= 0) return;
  g_abort_rank = rank;
  g_abort_code = code;
  g_abort_by_handler = by_handler;
}

Node& node_or_fail(const char* function) {
  Node* n = this_node();
  if (n == nullptr) {
    fail(function, MPI_ERR_OTHER,
         "called outside a rank of vmc mpirun (no vmc node runs on this thread)");
  }
  if (static_cast<std::size_t>(n->rank()) >= g_ranks.size()) {
    fail(function, MPI_ERR_OTHER,
         "called on node " + std::to_string(n->rank()) + " of a job of " +
             std::to_string(g_ranks.size()) + " ranks (mpi::begin_job sizes the job)");
  }
  return *n;
}

RankState& rank_state(const Node& node) { return g_ranks[static_cast<std::size_t>(node.rank())]; }

Node& rank_in_session(const char* function) {
  Node& n = node_or_fail(function);
  const RankState& s = rank_state(n);
  if (!s.initialized) fail(function, MPI_ERR_OTHER, "called before MPI_Init");
  if (s.finalized) fail(function, MPI_ERR_OTHER, "called after MPI_Finalize");
  return n;
}

RankState& session_state(const char* function) { return rank_state(rank_in_session(function)); }

const CommEntry* live_comm(const RankState& state, MPI_Comm comm) {
  if (comm <= MPI_COMM_NULL || comm >= static_cast<MPI_Comm>(state.comms.size())) return nullptr;
  const CommEntry& e = state.comms[static_cast<std::size_t>(comm)];
  return e.freed ? nullptr : &e;
}

CommEntry& comm_or_fail(const char* function, RankState& state, MPI_Comm comm) {
  if (comm == MPI_COMM_NULL) fail(function, MPI_ERR_COMM, "MPI_COMM_NULL is not a communicator");
  if (comm < MPI_COMM_NULL || comm >= static_cast<MPI_Comm>(state.comms.size())) {
    fail(function, MPI_ERR_COMM,
         "invalid communicator " + std::to_string(comm) + " (no communicator of this rank)");
  }
  CommEntry& e = state.comms[static_cast<std::size_t>(comm)];
  if (e.freed) {
    fail(function, MPI_ERR_COMM,
         "communicator " + std::to_string(comm) + " was freed (MPI_Comm_free)");
  }
  return e;
}

std::string comm_label(const RankState& state, MPI_Comm comm) {
  if (comm == MPI_COMM_NULL) return "MPI_COMM_NULL";
  if (comm > MPI_COMM_NULL && comm < static_cast<MPI_Comm>(state.comms.size())) {
    const std::string& name = state.comms[static_cast<std::size_t>(comm)].name;
    if (!name.empty()) return name;
  }
  return "communicator " + std::to_string(comm);
}

GroupEntry& group_or_fail(const char* function, RankState& state, MPI_Group group) {
  if (group == MPI_GROUP_NULL) fail(function, MPI_ERR_GROUP, "MPI_GROUP_NULL is not a group");
  if (group < MPI_GROUP_NULL || group >= static_cast<MPI_Group>(state.groups.size())) {
    fail(function, MPI_ERR_GROUP,
         "invalid group " + std::to_string(group) + " (no group of this rank)");
  }
  GroupEntry& g = state.groups[static_cast<std::size_t>(group)];
  if (g.freed) {
    fail(function, MPI_ERR_GROUP, "group " + std::to_string(group) + " was freed (MPI_Group_free)");
  }
  return g;
}

MPI_Group add_group(RankState& state, std::vector<int> members) {
  if (members.empty()) return MPI_GROUP_EMPTY;
  state.groups.push_back(GroupEntry{std::move(members)});
  return static_cast<MPI_Group>(state.groups.size() - 1);
}

std::optional<TypeInfo> type_info(MPI_Datatype t) {
  // Every type of the predefined table (mpi/datatypes.hpp) that holds data: C's, C++'s and
  // Fortran's, which a C program may name too (MPI-4.1 section 19.3.6; MPICH's tests reduce
  // MPI_DOUBLE_COMPLEX from C). Not the markers MPI_LB and MPI_UB.
  const PredefinedType* p = predefined_type(t);
  if (p == nullptr || p->kind == TypeKind::bound) return std::nullopt;
  // MPI_CHAR is a C integer for the reductions too, as MPICH has it (the standard lists it as
  // text only; MPICH's own tests reduce it with every operation).
  const TypeKind kind = t == MPI_CHAR ? TypeKind::c_integer : p->kind;
  return TypeInfo{p->name, p->extent, p->size, kind};
}

TypeInfo type_or_fail(const char* function, MPI_Datatype t) {
  if (t == MPI_DATATYPE_NULL) fail(function, MPI_ERR_TYPE, "MPI_DATATYPE_NULL is not a datatype");
  auto info = type_info(t);
  if (!info) {
    fail(function, MPI_ERR_TYPE,
         "invalid datatype " + std::to_string(t) + " (neither predefined nor made by this rank)");
  }
  return *info;
}

namespace {

// The entry of derived handle t, or null when t names none of this rank's.
const DatatypeEntry* find_derived(const RankState& state, MPI_Datatype t) {
  if (t < VMC_MPI_FIRST_DERIVED_TYPE) return nullptr;
  const auto i = static_cast<std::size_t>(t - VMC_MPI_FIRST_DERIVED_TYPE);
  return i < state.datatypes.size() ? &state.datatypes[i] : nullptr;
}

}  // namespace

const DatatypeEntry* derived_entry(const char* function, const RankState& state,
                                   MPI_Datatype t) {
  if (predefined_type(t) != nullptr) return nullptr;
  if (t == MPI_DATATYPE_NULL) fail(function, MPI_ERR_TYPE, "MPI_DATATYPE_NULL is not a datatype");
  const DatatypeEntry* e = find_derived(state, t);
  if (e == nullptr) {
    fail(function, MPI_ERR_TYPE, "invalid datatype " + std::to_string(t) +
                                     " (neither predefined nor made by this rank)");
  }
  if (e->freed) {
    fail(function, MPI_ERR_TYPE,
         "datatype " + std::to_string(t) + " was freed (MPI_Type_free)");
  }
  return e;
}

const Typemap& any_typemap(const char* function, const RankState& state, MPI_Datatype t) {
  const DatatypeEntry* e = derived_entry(function, state, t);
  return e != nullptr ? *e->map : predefined_typemap(t);
}

const Typemap& data_typemap(const char* function, MPI_Datatype predefined) {
  if (predefined == MPI_LB || predefined == MPI_UB) {
    fail(function, MPI_ERR_TYPE,
         std::string(kPredefinedTypes[static_cast<std::size_t>(predefined)].name) +
             " marks a bound in a datatype's map; it is no type of data");
  }
  return predefined_typemap(predefined);
}

const Typemap& moved_typemap(const char* function, const RankState& state, MPI_Datatype t,
                             MPI_Count count) {
  if (t == MPI_DATATYPE_NULL && count == 0) return predefined_typemap(MPI_DATATYPE_NULL);
  const DatatypeEntry* e = derived_entry(function, state, t);
  const Typemap* map = nullptr;
  if (e == nullptr) {
    map = &data_typemap(function, t);
  } else {
    if (!e->committed) {
      fail(function, MPI_ERR_TYPE,
           type_label(state, t) + " is not committed (MPI_Type_commit it before communication)");
    }
    map = e->map.get();
  }
  if (count > 0) check_span(function, count, *map, state, t);
  return *map;
}

void check_span(const char* function, MPI_Count count, const Typemap& t, const RankState& state,
                MPI_Datatype datatype) {
  if (count <= 0) return;
  // The bytes the items take packed, and in memory (the extents between them and the last
  // one's data), each an MPI_Aint.
  const MPI_Count limit = std::numeric_limits<MPI_Aint>::max();
  const MPI_Count per = std::max<MPI_Count>(
      {static_cast<MPI_Count>(t.packed), t.extent() < 0 ? -t.extent() : t.extent(),
       t.true_extent()});
  if (per > 0 && count > limit / per) {
    fail(function, MPI_ERR_COUNT,
         "count " + std::to_string(count) + " of " + type_label(state, datatype) + " (" +
             std::to_string(per) + " bytes each) spans more than the " +
             std::to_string(limit) + " bytes an MPI_Aint addresses");
  }
}

std::shared_ptr<const Typemap> kept_typemap(const RankState& state, MPI_Datatype t) {
  const DatatypeEntry* e = find_derived(state, t);
  return e != nullptr ? e->map : nullptr;
}

std::string type_label(const RankState& state, MPI_Datatype t) {
  if (const PredefinedType* p = predefined_type(t)) return p->name;
  std::string label = "datatype " + std::to_string(t);
  const DatatypeEntry* e = find_derived(state, t);
  if (e != nullptr && !e->name.empty()) label += " (\"" + e->name + "\")";
  return label;
}

void check_count(const char* function, MPI_Count count) {
  if (count < 0) fail(function, MPI_ERR_COUNT, "negative count " + std::to_string(count));
}

void check_buffer(const char* function, const void* buf, MPI_Count count) {
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

void check_arg(const char* function, const void* p, const char* what) {
  if (p == nullptr) fail(function, MPI_ERR_ARG, std::string(what) + " is a null pointer");
}


}  // namespace vmc::mpi
