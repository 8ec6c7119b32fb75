// What the MPI functions share: each rank's state (its session, its communicators and the
// other objects its handles name), the predefined datatypes, and the checks every function
// makes of its arguments.
//
// The calling rank is the node whose function runs (vmc::this_node()); its world rank is its
// MPI rank and indexes the table of rank states, which begin_job (mpi/job.hpp) sizes before
// the run. A rank touches only its own entry, so no lock is needed; handles are per rank (a
// handle's value on one rank says nothing of another's). Freed objects keep their entry,
// marked, so that a call on a freed handle says so.
#pragma once

#include <compare>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "collectives/vocabulary/operation.hpp"
#include "collectives/vocabulary/query.hpp"
#include "mpi/counts.hpp"
#include "mpi/datatypes.hpp"
#include "mpi/errors.hpp"
#include "mpi/include/mpi.h"
#include "mpi/pt2pt.hpp"
#include "mpi/job.hpp"
#include "mpi/typemap.hpp"
#include "runtime/comm.hpp"
#include "runtime/machine.hpp"

namespace vmc::mpi {

struct ProcessTopology;  // mpi/topology.hpp

// What an intercommunicator has besides its local group (mpi/intercomm.cpp). Its point to
// point runs on `bridge`, a vmc comm over both groups (the group whose lowest world rank is
// lower first, each in its own order), where remote rank r is rank r + remote_offset; its
// collectives run on two handles of the rank's own, never given to the program: `local` (the
// local group, an intracommunicator) and `both` (both groups, ordered as the bridge, another
// context so that no receive of the program takes a collective's message).
struct Intercomm {
  Comm bridge;
  int local_offset = 0;
  int remote_offset = 0;
  std::vector<int> remote;  // the remote group's world ranks, by remote rank
  MPI_Comm local = MPI_COMM_NULL;
  MPI_Comm both = MPI_COMM_NULL;
};

// A communicator handle's object: index = handle (0 MPI_COMM_NULL, 1 MPI_COMM_WORLD,
// 2 MPI_COMM_SELF, then the ones the rank made).
struct CommEntry {
  Comm comm;  // vmc's comm (invalid for MPI_COMM_NULL and once freed); an intercomm's local group
  std::string name;
  MPI_Errhandler errhandler = MPI_ERRORS_ARE_FATAL;
  std::map<int, void*> attributes;  // keyval -> value, in keyval order
  std::shared_ptr<const ProcessTopology> topology;  // a Cartesian or graph one's (or null)
  bool freed = false;
  std::shared_ptr<const Intercomm> inter;  // null: an intracommunicator
  std::vector<std::pair<std::string, std::string>> info;  // MPI_Comm_set_info's hints, kept
};

// An info object (mpi/info.cpp): handle kFirstInfo + index; 0 is MPI_INFO_NULL, 1 MPI_INFO_ENV.
struct InfoEntry {
  std::vector<std::pair<std::string, std::string>> entries;  // in the order keys were set
  bool freed = false;
};
constexpr MPI_Info kFirstInfo = 2;

// A group: its members' world ranks, by group rank. 0 MPI_GROUP_NULL, 1 MPI_GROUP_EMPTY.
struct GroupEntry {
  std::vector<int> members;
  bool freed = false;
};

// An error handler: 0 MPI_ERRHANDLER_NULL, 1 MPI_ERRORS_ARE_FATAL, 2 MPI_ERRORS_RETURN,
// 3 MPI_ERRORS_ABORT, then the ones MPI_Comm_create_errhandler made (fn set).
struct ErrhandlerEntry {
  MPI_Comm_errhandler_function* fn = nullptr;
  bool freed = false;
};
constexpr MPI_Errhandler kPredefinedErrhandlers = 4;

// A key of user attributes (MPI_Comm_create_keyval); keyval = kFirstKeyval + index.
struct KeyvalEntry {
  MPI_Comm_copy_attr_function* copy = nullptr;      // null: not copied by MPI_Comm_dup
  MPI_Comm_delete_attr_function* remove = nullptr;  // null: nothing to do
  void* extra_state = nullptr;
  bool freed = false;
  bool for_types = false;  // MPI_Type_create_keyval's (its callbacks take the datatype)
};
constexpr int kFirstKeyval = 32;  // above the predefined keys (MPI_TAG_UB, ...)

// The values of the predefined attributes; MPI_Comm_get_attr returns their addresses.
struct PredefinedAttributes {
  int tag_ub = 0;
  int host = 0;
  int io = 0;
  int wtime_is_global = 0;
  int universe_size = 0;
  int lastusedcode = 0;
  int appnum = 0;
};

// A derived datatype's handle (VMC_MPI_FIRST_DERIVED_TYPE + index): its typemap (shared: a
// request in flight keeps it past MPI_Type_free), how it was made (MPI_Type_get_envelope and
// _get_contents: the constructor's integers, addresses and old types), its name.
struct DatatypeEntry {
  std::shared_ptr<const Typemap> map;
  int combiner = MPI_COMBINER_NAMED;
  std::vector<int> ints;
  std::vector<MPI_Aint> addresses;
  std::vector<MPI_Datatype> types;
  std::string name;
  bool committed = false;
  bool freed = false;
};

// A user's reduction (MPI_Op_create, _c): handle VMC_MPI_FIRST_USER_OP + index.
struct UserOpEntry {
  MPI_User_function* fn = nullptr;
  MPI_User_function_c* fn_c = nullptr;
  bool commutative = true;
  bool freed = false;
  std::string name;  // "user operation 32": how a collective's signature names it
};

struct RankState {
  bool initialized = false;
  bool finalized = false;
  int thread_level = MPI_THREAD_SINGLE;  // what MPI_Init_thread provided
  std::vector<CommEntry> comms;
  std::vector<GroupEntry> groups;
  std::vector<ErrhandlerEntry> errhandlers;
  std::vector<KeyvalEntry> keyvals;
  PredefinedAttributes attributes;
  // The most recent error of each class on this rank ("MPI_Send: MPI_ERR_COUNT: negative
  // count -1"), for MPI_Error_string.
  std::map<int, std::string> last_error;
  // Error classes and codes the program added (MPI_Add_error_class, _code): code -> class,
  // and the strings it gave them.
  std::map<int, int> added_codes;
  std::map<int, std::string> added_strings;
  int last_used_code = MPI_ERR_LASTCODE;
  // Names the program gave predefined datatypes (MPI_Type_set_name); the others are named as
  // mpi.h names them.
  std::map<MPI_Datatype, std::string> type_names;
  // The attributes of datatypes, predefined and derived (MPI_Type_set_attr): keyval -> value.
  std::map<MPI_Datatype, std::map<int, void*>> type_attributes;
  std::vector<DatatypeEntry> datatypes;  // derived datatypes, by handle
  std::vector<UserOpEntry> ops;          // user operations, by handle
  std::vector<InfoEntry> infos;          // info objects, by handle - kFirstInfo

  // --- point to point (mpi/pt2pt.cpp): requests, matched messages, the Bsend buffer --------
  PointToPointState p2p;
};

// The job's options (mpi/job.hpp), as begin_job received them.
const JobOptions& job_options();
// The options of vmc's `operation` in this job: the algorithm the job names for it (`vmc
// mpirun --coll allreduce=ring`; MPI's name bcast is broadcast's too), else auto. Made by
// begin_job, so that a call makes none.
const Options& operation_options(Operation operation);
// Records the first rank that aborted the job (MPI_Abort, or MPI_ERRORS_ABORT: by_handler) and
// its code.
void record_abort(int rank, int code, bool by_handler = false);
// Adds `line` to the job's notes (JobOutcome::notes) unless it is there already.
void note_once(const std::string& line);

// Timing-only runs (vmc mpirun --data none) copy no payload, so a message the MPI layer sends
// for its own bookkeeping (the root's counts of MPI_Gatherv and MPI_Scatterv, broadcast so that
// every rank can run a named algorithm) carries nothing. Its values go through the job instead,
// while the message is still sent and charged: the sender shares them under the call's key
// (its comm's id and the tag begin_collective gave the call) before it sends, each of `readers`
// ranks takes them once the message has reached it (so they are there by then), and the last
// reader erases them. begin_job forgets what a run that ended early left.
struct SharedKey {
  std::uint32_t comm = 0;
  Tag tag = 0;
  auto operator<=>(const SharedKey&) const = default;
};
void share_values(SharedKey key, std::vector<std::size_t> values, int readers);
std::vector<std::size_t> take_shared_values(SharedKey key);

// The calling rank's node, or an error: no node runs this thread.
Node& node_or_fail(const char* function);
// The calling rank's state (its node's world rank).
RankState& rank_state(const Node& node);
// The calling rank, checked to be between MPI_Init and MPI_Finalize.
Node& rank_in_session(const char* function);
// The calling rank's state, checked to be between MPI_Init and MPI_Finalize.
RankState& session_state(const char* function);

// The communicator `comm` names on this rank, or an error (MPI_ERR_COMM): null, unknown or
// freed.
CommEntry& comm_or_fail(const char* function, RankState& state, MPI_Comm comm);
// The same, or null when `comm` names no live communicator of this rank.
const CommEntry* live_comm(const RankState& state, MPI_Comm comm);
// How a call names `comm` in a report or a call context: its name, or "communicator 5".
std::string comm_label(const RankState& state, MPI_Comm comm);
// The group `group` names on this rank, or an error (MPI_ERR_GROUP).
GroupEntry& group_or_fail(const char* function, RankState& state, MPI_Group group);
// A new group handle of these members (MPI_GROUP_EMPTY when there are none).
MPI_Group add_group(RankState& state, std::vector<int> members);
// The entries of an info a call takes (mpi/info.cpp; MPI_INFO_NULL: none; MPI_ERR_INFO).
std::vector<std::pair<std::string, std::string>> info_entries(const char* function,
                                                              RankState& state, MPI_Info info);


// A predefined datatype: its name, the bytes an item takes in a buffer (its extent: what
// buffers are laid out and messages sized by) and the bytes of data in it (MPI_Type_size's
// answer; less than `size` for the pairs, whose value is padded).
struct TypeInfo {
  const char* name;
  std::size_t size;
  std::size_t data_size;
  TypeKind kind;
};
std::optional<TypeInfo> type_info(MPI_Datatype t);
TypeInfo type_or_fail(const char* function, MPI_Datatype t);

// The typemap of a datatype a call moves (MPI_ERR_TYPE: null, unknown, freed, MPI_LB or
// MPI_UB, or a derived type not committed). MPI_DATATYPE_NULL is taken for no items when
// `count` is 0 (MPICH takes it too). A `count` whose items span more bytes than an MPI_Aint
// holds (packed or in memory) is MPI_ERR_COUNT: a large-count call's count beyond what
// vmc's buffer arithmetic carries.
const Typemap& moved_typemap(const char* function, const RankState& state, MPI_Datatype t,
                             MPI_Count count = -1);
// The same check for `count` items of the typemap `t` of `datatype` (named by type_label
// only when the check fails: it runs on every call of a collective).
void check_span(const char* function, MPI_Count count, const Typemap& t, const RankState& state,
                MPI_Datatype datatype);
// The typemap of a predefined datatype that holds data (MPI_ERR_TYPE for MPI_LB and MPI_UB,
// the bound markers).
const Typemap& data_typemap(const char* function, MPI_Datatype predefined);
// The typemap of any live datatype (uncommitted ones and the bound markers too), for queries
// and constructors (MPI_ERR_TYPE: null, unknown, freed).
const Typemap& any_typemap(const char* function, const RankState& state, MPI_Datatype t);
// The entry of a live derived datatype, or null for a predefined one (MPI_ERR_TYPE: null,
// unknown, freed).
const DatatypeEntry* derived_entry(const char* function, const RankState& state,
                                   MPI_Datatype t);
// A derived datatype's shared typemap (null for a predefined one), for a request to keep.
std::shared_ptr<const Typemap> kept_typemap(const RankState& state, MPI_Datatype t);
// The attributes of datatype `from` whose copy callbacks say so, onto `to` (MPI_Type_dup; a
// callback that fails: the copies deleted, `undo` run, an MPI error); every attribute of
// `type` deleted, its delete callbacks run (MPI_Type_free).
void copy_type_attributes(const char* fn, RankState& s, MPI_Datatype from, MPI_Datatype to,
                          const std::function<void()>& undo);
void delete_type_attributes(const char* fn, RankState& s, MPI_Datatype type);
// How a report names a datatype: "MPI_INT", "datatype 257 (\"row\")".
std::string type_label(const RankState& state, MPI_Datatype t);

// The counts are MPI_Count: an int form's count and a large-count (_c) form's alike.
void check_count(const char* function, MPI_Count count);
// A null buffer is an error when it must hold items.
void check_buffer(const char* function, const void* buf, MPI_Count count);
// r is a rank of `comm` (error class `error_class`: MPI_ERR_RANK, MPI_ERR_ROOT; `what`
// names the argument: "destination", "root").
void check_rank(const char* function, int error_class, const char* what, int r,
                const Comm& comm);
// A pointer argument the call writes to or reads from (MPI_ERR_ARG when null).
void check_arg(const char* function, const void* p, const char* what);

// Runs an MPI function's body, which returns its result (MPI_SUCCESS) or throws MpiError
// (fail); an MpiError is raised through the error handler of `comm` and its class returned.
template <class Body>
int mpi_call(MPI_Comm comm, Body&& body) {
  try {
    return body();
  } catch (const MpiError& e) {
    return raise_error(e.function(), comm, e.error_class(), e.text());
  }
}

// Runs a call on the runtime for MPI function `function`: a rank it needed that has failed
// (vmc mpirun --fail; docs/model.md, "Failed nodes") fails it with MPI_ERR_PROC_FAILED, a
// message it needed that a failed link lost with MPI_ERR_OTHER (MPI has no class for a link),
// raised through the communicator's error handler by mpi_call.
template <class Call>
auto told_of_failures(const char* function, Call&& call) -> decltype(call()) {
  try {
    return call();
  } catch (const NodeFailedError& e) {
    fail(function, MPI_ERR_PROC_FAILED, e.what());
  } catch (const LinkFailedError& e) {
    fail(function, MPI_ERR_OTHER, e.what());
  }
}

// A communicator constructor on the runtime (Comm::split, Comm::create_group): a member that
// failed before it reached it makes the call fail with MPI_ERR_PROC_FAILED.
template <class Make>
Comm constructed(const char* function, Make&& make) {
  return told_of_failures(function, std::forward<Make>(make));
}

}  // namespace vmc::mpi
