// The MPI transport (MachineConfig::transport = Transport::mpi): the machine's nodes are the
// processes of MPI_COMM_WORLD, one node per process, and every message is MPI's point-to-point
// on the network the processes run on. Comm's calls keep their meaning (comm.cpp checks them
// as on the emulated machine and hands the transfers here); what changes is the clock, which
// is the real one of the real network (MPI_Wtime), and the protocol, which is MPI's: a blocking
// send is a standard-mode send, which may wait for its receive (vmc's own collectives are
// written to run under vmc's rendezvous protocol, so none relies on buffering).
//
// Channels. Every group has two communicators: one for the user's messages (tag as given, at
// most MPI_TAG_UB, which MPI guarantees to be at least 32767 and Open MPI makes 2^31 - 1,
// vmc's largest user tag) and one for collective calls, whose tags are the offset within the
// call's tag space (Comm::begin_collective): consecutive calls reuse tags, which is safe because
// MPI never lets a message overtake an earlier one of the same source, tag and communicator,
// and a member posts a call's receives only after it has completed the earlier call's. The
// world's pair is made anew for every run (MPI_Comm_dup), so that a failed run leaves nothing
// behind that the next one could match.
//
// Waits. Every wait is a loop over MPI_Test with backoff (back_off: yielding for 2 ms, 50 us
// on an oversubscribed machine, then sleeping, longer the longer it waits): bounded by the machine's watchdog and ended at once by an
// abort notice. A node whose function throws (or whose wait runs out) sends every other process
// a notice with its report on the run's control communicator; a process waiting sees it and
// ends its node's function too; at the end of the run every process learns every origin's
// report and throws the same RunError.
#include <mpi.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <functional>
#include <limits>
#include <thread>

#include "runtime/detail.hpp"
#include "runtime/mpi_common.hpp"

namespace vmc::detail {

namespace {
constexpr int kNoticeTag = 1;
}  // namespace

[[noreturn]] void mpi_failed(const char* call, int code) {
  char text[MPI_MAX_ERROR_STRING];
  int len = 0;
  MPI_Error_string(code, text, &len);
  throw UsageError(std::string("MPI transport: ") + call + " failed: " + std::string(text, len));
}

void check(int code, const char* call) {
  if (code != MPI_SUCCESS) mpi_failed(call, code);
}

namespace {

// MPI is started by vmc when the program has not started it, and finished when the program
// exits. It asks for MPI_THREAD_MULTIPLE: a spread machine's progress thread moves messages
// while the thread that runs the machine agrees on the run's end (spread_network.cpp).
struct MpiSession {
  bool started_here = false;
  MpiSession() {
    int initialized = 0;
    MPI_Initialized(&initialized);
    if (!initialized) {
      int provided = 0;
      MPI_Init_thread(nullptr, nullptr, MPI_THREAD_MULTIPLE, &provided);
      started_here = true;
    }
  }
  ~MpiSession() {
    int finalized = 0;
    MPI_Finalized(&finalized);
    if (started_here && !finalized) MPI_Finalize();
  }
};

}  // namespace

void ensure_mpi() { static MpiSession session; }

// The pause of a wait that has lasted `waited` seconds: a yield of the core for the first
// `spin` seconds (a message between processes takes microseconds), then sleeps growing from
// 20 us to 1 ms, so that a long wait costs the core nothing.
void back_off(double waited, double spin) {
  if (waited < spin) {
    std::this_thread::yield();
    return;
  }
  const double pause = std::min(1e-3, std::max(20e-6, waited / 100));
  std::this_thread::sleep_for(std::chrono::duration<double>(pause));
}

int processes_here(MPI_Comm comm) {
  MPI_Comm local = MPI_COMM_NULL;
  MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &local);
  int here = 1;
  MPI_Comm_size(local, &here);
  MPI_Comm_free(&local);
  return here;
}

struct MpiChannels {
  MPI_Comm user = MPI_COMM_NULL;
  MPI_Comm collective = MPI_COMM_NULL;
  ~MpiChannels() {
    int finalized = 0;
    MPI_Finalized(&finalized);
    if (finalized) return;
    if (user != MPI_COMM_NULL) MPI_Comm_free(&user);
    if (collective != MPI_COMM_NULL) MPI_Comm_free(&collective);
  }
};

struct MpiNetwork {
  MachineImpl& machine;
  MPI_Comm base = MPI_COMM_WORLD;    // the machine's processes
  int rank = 0;
  int size = 1;
  MPI_Comm control = MPI_COMM_NULL;  // this run's notices
  std::vector<MPI_Request> requests;  // by handle
  std::vector<bool> receives;         // by handle: a receive (else a send)
  std::vector<int> free_handles;
  std::vector<MPI_Request> notices;   // notices this process sent in this run
  std::vector<bool> noticed;          // by rank: its notice was received in this run
  std::vector<std::string> reports;   // by rank: the notice's text
  bool origin = false;                // this process's node failed on its own
  std::string origin_report;
  double run_start = 0;
  // How long a wait yields before it sleeps: 2 ms, or 50 us where this machine runs more
  // processes than it has cores (a waiting process that kept yielding would slow the one
  // whose message it waits for).
  double spin = 2e-3;
  int tag_ub = 32767;  // MPI_TAG_UB: the largest tag this MPI takes

  // A tag MPI takes, or a UsageError.
  int tag(int t) const {
    if (t > tag_ub) {
      throw UsageError("MPI transport: tag " + std::to_string(t) +
                       " is above this MPI's largest tag (MPI_TAG_UB = " +
                       std::to_string(tag_ub) + ")");
    }
    return t;
  }

  explicit MpiNetwork(MachineImpl& m) : machine(m) {}

  int add(MPI_Request r, bool receive) {
    if (!free_handles.empty()) {
      const int h = free_handles.back();
      free_handles.pop_back();
      requests[h] = r;
      receives[h] = receive;
      return h;
    }
    requests.push_back(r);
    receives.push_back(receive);
    return static_cast<int>(requests.size()) - 1;
  }
  void release(int h) {
    requests[h] = MPI_REQUEST_NULL;
    free_handles.push_back(h);
  }

  // Takes the abort notices that have arrived; true when there was one.
  bool take_notices() {
    bool any = false;
    for (;;) {
      int flag = 0;
      MPI_Status status;
      MPI_Iprobe(MPI_ANY_SOURCE, kNoticeTag, control, &flag, &status);
      if (!flag) return any;
      int len = 0;
      MPI_Get_count(&status, MPI_CHAR, &len);
      std::string text(static_cast<std::size_t>(len), '\0');
      MPI_Recv(text.data(), len, MPI_CHAR, status.MPI_SOURCE, kNoticeTag, control,
               MPI_STATUS_IGNORE);
      noticed[status.MPI_SOURCE] = true;
      reports[status.MPI_SOURCE] = std::move(text);
      any = true;
    }
  }
};

int mpi_processes() {
  ensure_mpi();
  int size = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  return size;
}

int mpi_process_rank() {
  ensure_mpi();
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  return rank;
}

MPI_Comm base_communicator(const MachineConfig& c) {
  ensure_mpi();
  if (!c.mpi_communicator) return MPI_COMM_WORLD;
  MPI_Comm comm = MPI_Comm_f2c(*c.mpi_communicator);
  if (comm == MPI_COMM_NULL) {
    throw UsageError("Machine: mpi_communicator is MPI_COMM_NULL: give the communicator whose "
                     "processes run the machine (MPI_COMM_NULL is what MPI_Comm_split hands a "
                     "process left out)");
  }
  return comm;
}

int mpi_processes(const MachineConfig& c) {
  int size = 0;
  check(MPI_Comm_size(base_communicator(c), &size), "MPI_Comm_size");
  return size;
}

int mpi_process_rank(const MachineConfig& c) {
  int rank = 0;
  check(MPI_Comm_rank(base_communicator(c), &rank), "MPI_Comm_rank");
  return rank;
}

MpiNetwork* make_mpi_network(MachineImpl& m) {
  ensure_mpi();
  auto net = std::make_unique<MpiNetwork>(m);
  net->base = base_communicator(m.config);
  MPI_Comm_rank(net->base, &net->rank);
  MPI_Comm_size(net->base, &net->size);
  int* ub = nullptr;
  int has_ub = 0;
  MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &ub, &has_ub);
  if (has_ub && ub != nullptr) net->tag_ub = *ub;
  if (processes_here(net->base) > static_cast<int>(std::max(1u, std::thread::hardware_concurrency()))) {
    net->spin = 50e-6;
  }
  int level = 0;
  MPI_Query_thread(&level);
  int main_thread = 0;
  MPI_Is_thread_main(&main_thread);
  if (level < MPI_THREAD_SERIALIZED && !main_thread) {
    throw UsageError("Machine: the MPI transport calls MPI from the thread that runs the "
                     "machine; MPI was started for its main thread only (start it with "
                     "MPI_Init_thread and MPI_THREAD_SERIALIZED, or run the machine there)");
  }
  return net.release();
}

void destroy_mpi_network(MpiNetwork* net) noexcept { delete net; }

std::shared_ptr<MpiChannels> mpi_begin_run(MpiNetwork& net) {
  auto world = std::make_shared<MpiChannels>();
  // The three at once: one round among the processes instead of three.
  MPI_Request dups[3];
  check(MPI_Comm_idup(net.base, &world->user, &dups[0]), "MPI_Comm_idup");
  check(MPI_Comm_idup(net.base, &world->collective, &dups[1]), "MPI_Comm_idup");
  check(MPI_Comm_idup(net.base, &net.control, &dups[2]), "MPI_Comm_idup");
  // Bounded like every wait: a process that never starts the run ends it here by the watchdog.
  const auto start = std::chrono::steady_clock::now();
  for (int done = 0; !done;) {
    check(MPI_Testall(3, dups, &done, MPI_STATUSES_IGNORE), "MPI_Testall");
    const double waited =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (!done && waited > net.machine.config.watchdog_seconds) {
      throw UsageError("MPI transport: not every process started the run within the watchdog "
                       "time (" + std::to_string(net.machine.config.watchdog_seconds) + " s)");
    }
    if (!done) back_off(waited, net.spin);
  }
  for (MPI_Comm c : {world->user, world->collective, net.control}) {
    MPI_Comm_set_errhandler(c, MPI_ERRORS_RETURN);
  }
  net.noticed.assign(net.size, false);
  net.reports.assign(net.size, "");
  net.origin = false;
  net.origin_report.clear();
  net.notices.clear();
  // Every process starts its node's function together: the run's time is measured from here.
  MPI_Request barrier = MPI_REQUEST_NULL;
  check(MPI_Ibarrier(net.control, &barrier), "MPI_Ibarrier");
  mpi_block(
      net, [&] { int f = 0; MPI_Test(&barrier, &f, MPI_STATUS_IGNORE); return f != 0; },
      WaitDescription{"the start of the run", -1, -1, 0, 0});
  net.run_start = MPI_Wtime();
  return world;
}

void mpi_block(MpiNetwork& net, const std::function<bool()>& ready, const WaitDescription& what) {
  using Clock = std::chrono::steady_clock;
  const auto start = Clock::now();
  const double watchdog = net.machine.config.watchdog_seconds;
  for (unsigned round = 0;; ++round) {
    if (ready()) return;
    if (net.take_notices()) throw RunAborted{};
    const double waited = std::chrono::duration<double>(Clock::now() - start).count();
    if (waited > watchdog) {
      std::string text = std::string("no progress for ") + std::to_string(watchdog) +
                         " s in " + what.operation;
      if (what.peer >= 0) text += " from rank " + std::to_string(what.peer);
      if (what.peer_world >= 0 && what.peer < 0) text += " to node " + std::to_string(what.peer_world);
      text += " (a deadlock across the processes, or a process that stopped): the run was ended";
      throw UsageError(text);
    }
    back_off(waited, net.spin);
  }
}

int mpi_post_send(MpiNetwork& net, const MpiChannels& ch, bool collective, int tag,
                  const void* data, std::size_t bytes, int dest) {
  MPI_Request r = MPI_REQUEST_NULL;
  check(MPI_Isend(data, static_cast<int>(bytes), MPI_BYTE, dest, net.tag(tag),
                  collective ? ch.collective : ch.user, &r),
        "MPI_Isend");
  return net.add(r, false);
}

int mpi_post_recv(MpiNetwork& net, const MpiChannels& ch, bool collective, int tag, void* data,
                  std::size_t capacity, int source) {
  MPI_Request r = MPI_REQUEST_NULL;
  // No message is larger than an int's bytes (the send refuses it), so a larger buffer is
  // as good as one of that size.
  const int count = static_cast<int>(
      std::min<std::size_t>(capacity, static_cast<std::size_t>(std::numeric_limits<int>::max())));
  check(MPI_Irecv(data, count, MPI_BYTE, source, net.tag(tag),
                  collective ? ch.collective : ch.user, &r),
        "MPI_Irecv");
  return net.add(r, true);
}

MpiDone mpi_test(MpiNetwork& net, int handle) {
  int flag = 0;
  MPI_Status status;
  const int code = MPI_Test(&net.requests[handle], &flag, &status);
  MpiDone d;
  if (code != MPI_SUCCESS) {
    int cls = 0;
    MPI_Error_class(code, &cls);
    if (cls != MPI_ERR_TRUNCATE) mpi_failed("MPI_Test", code);
    d.done = true;
    d.truncated = true;
    net.release(handle);
    return d;
  }
  if (!flag) return d;
  d.done = true;
  int count = 0;
  MPI_Get_count(&status, MPI_BYTE, &count);
  d.bytes = count == MPI_UNDEFINED ? 0 : static_cast<std::size_t>(count);
  net.release(handle);
  return d;
}

std::string mpi_agree(MpiNetwork& net, const MpiChannels& ch, const std::string& mine,
                      const WaitDescription& what) {
  // Rank 0's text, its length first (MPI_Ibcast: the wait stays bounded).
  int len = static_cast<int>(mine.size());
  MPI_Request r = MPI_REQUEST_NULL;
  check(MPI_Ibcast(&len, 1, MPI_INT, 0, ch.user, &r), "MPI_Ibcast");
  mpi_block(
      net, [&] { int f = 0; MPI_Test(&r, &f, MPI_STATUS_IGNORE); return f != 0; }, what);
  std::string first = mine;
  first.resize(static_cast<std::size_t>(len));
  check(MPI_Ibcast(first.data(), len, MPI_CHAR, 0, ch.user, &r), "MPI_Ibcast");
  mpi_block(
      net, [&] { int f = 0; MPI_Test(&r, &f, MPI_STATUS_IGNORE); return f != 0; }, what);
  return first;
}

std::shared_ptr<MpiChannels> mpi_split(MpiNetwork& net, const MpiChannels& parent, int color,
                                       int key, int world_rank, std::vector<int>& members,
                                       const WaitDescription& what) {
  // Every member arrives first (a bounded wait), so the blocking calls below return.
  MPI_Request r = MPI_REQUEST_NULL;
  check(MPI_Ibarrier(parent.user, &r), "MPI_Ibarrier");
  mpi_block(
      net, [&] { int f = 0; MPI_Test(&r, &f, MPI_STATUS_IGNORE); return f != 0; }, what);
  MPI_Comm user = MPI_COMM_NULL;
  check(MPI_Comm_split(parent.user, color < 0 ? MPI_UNDEFINED : color, key, &user),
        "MPI_Comm_split");
  if (user == MPI_COMM_NULL) return nullptr;
  auto ch = std::make_shared<MpiChannels>();
  ch->user = user;
  MPI_Comm_set_errhandler(ch->user, MPI_ERRORS_RETURN);
  check(MPI_Comm_dup(ch->user, &ch->collective), "MPI_Comm_dup");
  MPI_Comm_set_errhandler(ch->collective, MPI_ERRORS_RETURN);
  int size = 0;
  MPI_Comm_size(ch->user, &size);
  members.assign(static_cast<std::size_t>(size), 0);
  check(MPI_Allgather(&world_rank, 1, MPI_INT, members.data(), 1, MPI_INT, ch->user),
        "MPI_Allgather");
  return ch;
}

void mpi_notify_failure(MpiNetwork& net, const std::string& report) {
  net.origin = true;
  net.origin_report = report;
  for (int r = 0; r < net.size; ++r) {
    if (r == net.rank) continue;
    MPI_Request req = MPI_REQUEST_NULL;
    MPI_Isend(report.data(), static_cast<int>(report.size()), MPI_CHAR, r, kNoticeTag,
              net.control, &req);
    net.notices.push_back(req);
  }
}

MpiRunEnd mpi_end_run(MpiNetwork& net) {
  const double elapsed = MPI_Wtime() - net.run_start;
  // Every process's (origin, elapsed): an allgather it waits for while taking notices, so
  // that a process still blocked elsewhere is released by them first.
  struct Entry {
    double elapsed;
    int origin;
  };
  Entry mine{elapsed, net.origin ? 1 : 0};
  std::vector<Entry> all(static_cast<std::size_t>(net.size));
  MPI_Datatype entry_type;
  MPI_Type_contiguous(sizeof(Entry), MPI_BYTE, &entry_type);
  MPI_Type_commit(&entry_type);
  MPI_Request r = MPI_REQUEST_NULL;
  MPI_Iallgather(&mine, 1, entry_type, all.data(), 1, entry_type, net.control, &r);
  const auto start = std::chrono::steady_clock::now();
  for (int f = 0; !f;) {
    MPI_Test(&r, &f, MPI_STATUS_IGNORE);
    if (!f) {
      net.take_notices();
      back_off(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(),
               net.spin);
    }
  }
  MPI_Type_free(&entry_type);
  MpiRunEnd end;
  for (int k = 0; k < net.size; ++k) {
    end.node_seconds.push_back(all[k].elapsed);
    if (!all[k].origin) continue;
    end.origins.push_back(k);
    if (k == net.rank) {
      net.reports[k] = net.origin_report;
    } else if (!net.noticed[k]) {
      // Its notice was sent before it joined the allgather: it arrives.
      MPI_Status status;
      MPI_Probe(k, kNoticeTag, net.control, &status);
      int len = 0;
      MPI_Get_count(&status, MPI_CHAR, &len);
      net.reports[k].assign(static_cast<std::size_t>(len), '\0');
      MPI_Recv(net.reports[k].data(), len, MPI_CHAR, k, kNoticeTag, net.control,
               MPI_STATUS_IGNORE);
      net.noticed[k] = true;
    }
    end.reports.push_back(net.reports[k]);
  }
  MPI_Waitall(static_cast<int>(net.notices.size()), net.notices.data(), MPI_STATUSES_IGNORE);
  net.notices.clear();
  // Transfers a failed run left in flight: receives are cancelled and completed (their
  // buffers were the node function's), sends let go of (their receivers are gone too).
  for (std::size_t h = 0; h < net.requests.size(); ++h) {
    if (net.requests[h] == MPI_REQUEST_NULL) continue;
    if (net.receives[h]) {
      MPI_Cancel(&net.requests[h]);
      MPI_Wait(&net.requests[h], MPI_STATUS_IGNORE);
    } else {
      MPI_Request_free(&net.requests[h]);
    }
  }
  net.requests.clear();
  net.receives.clear();
  net.free_handles.clear();
  MPI_Comm_free(&net.control);
  return end;
}

bool mpi_everywhere(MpiNetwork& net, bool mine) {
  int all = mine ? 1 : 0;
  check(MPI_Allreduce(MPI_IN_PLACE, &all, 1, MPI_INT, MPI_LAND, net.base), "MPI_Allreduce");
  return all != 0;
}

}  // namespace vmc::detail
