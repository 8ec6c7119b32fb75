// Start and end of a rank's MPI session, the clock and the environment's queries:
// MPI_Init, MPI_Init_thread, MPI_Query_thread, MPI_Is_thread_main, MPI_Initialized,
// MPI_Finalize, MPI_Finalized, MPI_Abort, MPI_Wtime, MPI_Wtick, MPI_Get_version,
// MPI_Get_library_version, MPI_Get_processor_name, MPI_Pcontrol.
//
// Each rank is one thread of control (a node's function), so MPI_Init_thread provides at most
// MPI_THREAD_FUNNELED: the rank's own thread makes every call. The clock is the node's modelled
// time (Comm::now(), free in modelled time): one virtual clock for every rank.
#include <cstdio>
#include <cstring>
#include <string>

#include "mpi/state.hpp"

using namespace vmc;
using namespace vmc::mpi;

namespace {

// The tag of MPI_COMM_SELF's group (Comm::create_group): negative, as every tag of a group MPI
// makes for itself, so that no user tag (MPI_Comm_create_group's) can be one.
constexpr std::int64_t kSelfTag = -1;

// A rank's handles as MPI_Init leaves them: the predefined communicators, groups and error
// handlers, and the values of the predefined attributes.
void start_session(RankState& s, const Node& n) {
  const int me = n.world().rank();
  s.comms.clear();
  s.comms.push_back(CommEntry{});  // MPI_COMM_NULL
  s.comms.push_back(CommEntry{.comm = n.world(), .name = "MPI_COMM_WORLD"});
  s.comms.push_back(CommEntry{.comm = n.world().create_group({&me, 1}, kSelfTag),
                              .name = "MPI_COMM_SELF"});
  s.groups.assign(2, GroupEntry{});  // MPI_GROUP_NULL, MPI_GROUP_EMPTY
  s.errhandlers.assign(static_cast<std::size_t>(kPredefinedErrhandlers), ErrhandlerEntry{});
  s.keyvals.clear();
  s.attributes = PredefinedAttributes{
      .tag_ub = static_cast<int>(kMaxUserTag),
      .host = MPI_PROC_NULL,      // no rank is a host
      .io = MPI_ANY_SOURCE,       // every rank can do I/O
      .wtime_is_global = 1,       // one virtual clock for every rank
      .universe_size = n.size(),  // no rank can be added to a job
      .lastusedcode = s.last_used_code,
      .appnum = 0,                // the only program of the job
  };
}

int init(const char* fn, int required, int* provided) {
  Node& n = node_or_fail(fn);
  RankState& s = rank_state(n);
  if (s.initialized) fail(fn, MPI_ERR_OTHER, "MPI is already initialized (MPI_Init called twice)");
  if (s.finalized) fail(fn, MPI_ERR_OTHER, "called after MPI_Finalize");
  s.thread_level = std::min(required, MPI_THREAD_FUNNELED);
  if (s.thread_level < MPI_THREAD_SINGLE) s.thread_level = MPI_THREAD_SINGLE;
  if (provided != nullptr) *provided = s.thread_level;
  start_session(s, n);
  s.initialized = true;
  return MPI_SUCCESS;
}

// The attributes of MPI_COMM_SELF go first at MPI_Finalize, their delete callbacks called
// (the standard's hook for work at the end of a session).
void delete_self_attributes(RankState& s) {
  // A callback may make communicators (the table may move): look the entry up anew.
  while (!s.comms[MPI_COMM_SELF].attributes.empty()) {
    auto& attributes = s.comms[MPI_COMM_SELF].attributes;
    auto [keyval, value] = *attributes.begin();
    attributes.erase(attributes.begin());
    const KeyvalEntry& k = s.keyvals.at(static_cast<std::size_t>(keyval - kFirstKeyval));
    if (k.remove == nullptr) continue;
    const int rc = k.remove(MPI_COMM_SELF, keyval, value, k.extra_state);
    if (rc != MPI_SUCCESS) {
      fail("MPI_Finalize", rc,
           "the delete callback of keyval " + std::to_string(keyval) + " on MPI_COMM_SELF "
           "returned " + std::to_string(rc));
    }
  }
}

}  // namespace

extern "C" {

int MPI_Init(int*, char***) {
  return mpi_call(MPI_COMM_NULL, [&] { return init("MPI_Init", MPI_THREAD_SINGLE, nullptr); });
}

int MPI_Init_thread(int*, char***, int required, int* provided) {
  const char* fn = "MPI_Init_thread";
  return mpi_call(MPI_COMM_NULL, [&] {
    check_arg(fn, provided, "provided");
    if (required < MPI_THREAD_SINGLE || required > MPI_THREAD_MULTIPLE) {
      fail(fn, MPI_ERR_ARG, "required thread level " + std::to_string(required) +
                                " is none of MPI_THREAD_SINGLE to MPI_THREAD_MULTIPLE");
    }
    return init(fn, required, provided);
  });
}

int MPI_Query_thread(int* provided) {
  const char* fn = "MPI_Query_thread";
  return mpi_call(MPI_COMM_NULL, [&] {
    RankState& s = session_state(fn);
    check_arg(fn, provided, "provided");
    *provided = s.thread_level;
    return MPI_SUCCESS;
  });
}

int MPI_Is_thread_main(int* flag) {
  const char* fn = "MPI_Is_thread_main";
  return mpi_call(MPI_COMM_NULL, [&] {
    session_state(fn);
    check_arg(fn, flag, "flag");
    *flag = 1;  // a rank's calls all come from its one thread of control
    return MPI_SUCCESS;
  });
}

int MPI_Initialized(int* flag) {
  const char* fn = "MPI_Initialized";
  return mpi_call(MPI_COMM_NULL, [&] {
    check_arg(fn, flag, "flag");
    *flag = rank_state(node_or_fail(fn)).initialized ? 1 : 0;
    return MPI_SUCCESS;
  });
}

int MPI_Finalize(void) {
  const char* fn = "MPI_Finalize";
  return mpi_call(MPI_COMM_NULL, [&] {
    RankState& s = session_state(fn);
    finish_point_to_point(s);  // buffered sends still in flight
    delete_self_attributes(s);
    s.finalized = true;
    return MPI_SUCCESS;
  });
}

int MPI_Finalized(int* flag) {
  const char* fn = "MPI_Finalized";
  return mpi_call(MPI_COMM_NULL, [&] {
    check_arg(fn, flag, "flag");
    *flag = rank_state(node_or_fail(fn)).finalized ? 1 : 0;
    return MPI_SUCCESS;
  });
}

// Ends the whole job (every rank, whatever communicator is given: the standard allows it),
// recording the rank and the code for the host (mpi/job.hpp).
int MPI_Abort(MPI_Comm comm, int errorcode) {
  const char* fn = "MPI_Abort";
  return mpi_call(MPI_COMM_NULL, [&]() -> int {
    Node& n = node_or_fail(fn);
    const RankState& s = rank_state(n);
    record_abort(n.rank(), errorcode);
    const std::string on = s.initialized ? comm_label(s, comm) : std::to_string(comm);
    throw FatalError("rank " + std::to_string(n.rank()) + ": MPI_Abort(" + on + ", " +
                     std::to_string(errorcode) + "): the program aborted the job with code " +
                     std::to_string(errorcode));
  });
}

double MPI_Wtime(void) {
  const char* fn = "MPI_Wtime";
  double t = 0;
  mpi_call(MPI_COMM_NULL, [&] {
    Node& n = node_or_fail(fn);
    CallContext context("MPI_Wtime()");
    t = n.world().now();
    return MPI_SUCCESS;
  });
  return t;
}

double MPI_Wtick(void) { return 1e-12; }  // the clock counts picoseconds

// Profiling control is a profiler's (one that defines MPI_Pcontrol itself); vmc's does
// nothing, whatever the level, as the standard's default.
int MPI_Pcontrol(const int level, ...) {
  (void)level;
  return MPI_SUCCESS;
}

int MPI_Get_version(int* version, int* subversion) {
  const char* fn = "MPI_Get_version";
  return mpi_call(MPI_COMM_NULL, [&] {
    check_arg(fn, version, "version");
    check_arg(fn, subversion, "subversion");
    *version = MPI_VERSION;
    *subversion = MPI_SUBVERSION;
    return MPI_SUCCESS;
  });
}

int MPI_Get_library_version(char* version, int* resultlen) {
  const char* fn = "MPI_Get_library_version";
  return mpi_call(MPI_COMM_NULL, [&] {
    check_arg(fn, version, "version");
    check_arg(fn, resultlen, "resultlen");
    const std::string text = std::string("vmc ") + VMC_VERSION +
                             " (MPI " + std::to_string(MPI_VERSION) + "." +
                             std::to_string(MPI_SUBVERSION) +
                             "): every rank a node of vmc's emulated machine, virtual time";
    std::snprintf(version, MPI_MAX_LIBRARY_VERSION_STRING, "%s", text.c_str());
    *resultlen = static_cast<int>(std::strlen(version));
    return MPI_SUCCESS;
  });
}

int MPI_Get_processor_name(char* name, int* resultlen) {
  const char* fn = "MPI_Get_processor_name";
  return mpi_call(MPI_COMM_NULL, [&] {
    check_arg(fn, name, "name");
    check_arg(fn, resultlen, "resultlen");
    Node& n = node_or_fail(fn);
    const std::string s = "vmc-node-" + std::to_string(n.rank());
    std::snprintf(name, MPI_MAX_PROCESSOR_NAME, "%s", s.c_str());
    *resultlen = static_cast<int>(std::strlen(name));
    return MPI_SUCCESS;
  });
}

}  // extern "C"
