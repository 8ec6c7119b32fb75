// The MPI transport (MachineConfig::transport mpi): the machine's nodes are the
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
// on an oversubscribed machine, then sleeping, longer the longer it waits): bounded by the
// machine's watchdog and ended at once by an abort notice. A node whose function throws (or
// whose wait runs out) sends every other process a notice with its report on the run's
// control communicator; a process waiting sees it and ends its node's function too; at the
// end of the run every process learns every origin's report and throws the same RunError.
//
// The end of a run. Every process's node has returned (or failed): the processes agree on who
// failed (a bounded wait, as every wait of the end), and after a run in which none did, they
// look for messages no receive took, as one process does (LocalNodes::unreceived): each process
// counts the messages it sent to each other and the receives that took one, the counts are
// summed for each receiver (MPI_Ireduce_scatter_block), and a process with fewer receives
// than messages sent to it takes the rest from its run's channels (the world's and every
// split's, kept alive until then) and names them. Every process throws the same report.
#include <mpi.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <limits>
#include <span>
#include <thread>

#include "runtime/machine_impl.hpp"
#include "runtime/mpi_common.hpp"
#include "runtime/mpi_config.hpp"
#include "runtime/run_errors.hpp"
#include "runtime/transport.hpp"

namespace vmc::detail {

namespace {

constexpr int kNoticeTag = 1;

// A group's communicators: its users' messages, its collective calls'.
struct MpiChannels final : GroupChannels {
  MPI_Comm user = MPI_COMM_NULL;
  MPI_Comm collective = MPI_COMM_NULL;
  ~MpiChannels() override {
    int finalized = 0;
    MPI_Finalized(&finalized);
    if (finalized) return;
    if (user != MPI_COMM_NULL) MPI_Comm_free(&user);
    if (collective != MPI_COMM_NULL) MPI_Comm_free(&collective);
  }
};

const MpiChannels& channels_of(const CommGroup& g) {
  return static_cast<const MpiChannels&>(*g.channels);
}

// A Comm tag on MPI: the user's channel with the tag itself, or the collective channel with
// the offset within the call's tag space (the header comment says why that is safe).
struct ChannelTag {
  bool collective = false;
  int tag = 0;
};
ChannelTag channel_tag(Tag tag) {
  if (tag >= kCollectiveTagBase) {
    return {true, static_cast<int>(tag_in_call(tag))};
  }
  return {false, static_cast<int>(tag)};
}

// Whether a transfer completed (its handle is then released), and what a receive got.
struct MpiDone {
  bool done = false;
  std::size_t bytes = 0;   // received
  bool truncated = false;  // the message was larger than the receive buffer
};

// A message that arrived over MPI into a receive buffer: what is wrong with it, or "".
std::string received_problem(const MpiDone& d, std::size_t capacity, std::size_t item_size) {
  if (d.truncated) {
    return "the message is larger than the receive buffer of " + std::to_string(capacity) +
           " bytes";
  }
  if (item_size == 0 || d.bytes % item_size != 0) {
    return "message of " + std::to_string(d.bytes) + " bytes is not a whole number of " +
           std::to_string(item_size) + "-byte items";
  }
  return "";
}

// A signature as text and back, to send it over MPI (fields apart by a unit separator).
std::string encode_signature(const CallSignature& s) {
  const char sep = '\x1f';
  std::string text(s.operation);
  text += sep;
  text += s.op;
  text += sep + std::to_string(s.root) + sep + std::to_string(s.count) + sep +
          std::to_string(s.item_size) + sep + (s.check_count ? "1" : "0") + sep +
          std::to_string(s.layout) + sep;
  text += s.algorithm;
  return text;
}
KeptSignature decode_signature(const std::string& text) {
  std::vector<std::string> f(1);
  for (char ch : text) {
    if (ch == '\x1f') {
      f.emplace_back();
    } else {
      f.back() += ch;
    }
  }
  KeptSignature s;
  if (f.size() != 8) return s;  // cannot happen: every member encodes alike
  s.operation = f[0];
  s.op = f[1];
  s.fields.root = std::stoi(f[2]);
  s.fields.count = std::stoull(f[3]);
  s.fields.item_size = std::stoull(f[4]);
  s.fields.check_count = f[5] == "1";
  s.fields.layout = std::stoull(f[6]);
  s.algorithm = f[7];
  return s;
}

class MpiTransport final : public Transport {
 public:
  explicit MpiTransport(MachineImpl& m);

  void run(CommGroup& world, const NodeBody& body, Stats& stats, Trace& trace) override;
  bool hosts(int r) const override { return r == self_->rank; }
  bool everywhere(bool mine) override {
    int all = mine ? 1 : 0;
    check(MPI_Allreduce(MPI_IN_PLACE, &all, 1, MPI_INT, MPI_LAND, base_), "MPI_Allreduce");
    return all != 0;
  }

  std::string refuses(const NodeState&, const Outgoing& out) const override {
    if (out.bytes <= static_cast<std::size_t>(std::numeric_limits<int>::max())) return {};
    return "message of " + std::to_string(out.bytes) + " bytes is larger than one MPI transfer "
           "of bytes holds (2^31 - 1)";
  }

  void send(NodeState&, const Outgoing& out) override {
    const int h = post_send(out);
    complete({h}, WaitDescription{out.op, -1, out.dst, out.tag, out.group.id});
  }
  Received recv(NodeState&, const Incoming& in) override {
    const int h = post_recv(in);
    const MpiDone d =
        complete({h}, WaitDescription{in.op, in.source, in.src, in.tag, in.group.id})[0];
    return {d.bytes, received_problem(d, in.capacity, in.item_size)};
  }
  Received sendrecv(NodeState&, const Outgoing& out, const Incoming& in) override {
    const int r = post_recv(in);
    const int h = post_send(out);
    const MpiDone d =
        complete({r, h}, WaitDescription{in.op, in.source, in.src, in.tag, in.group.id})[0];
    return {d.bytes, received_problem(d, in.capacity, in.item_size)};
  }
  void isend(NodeState& self, std::uint32_t id, const Outgoing& out) override {
    self.requests[id].handle = post_send(out);
  }
  void irecv(NodeState& self, std::uint32_t id, const Incoming& in) override {
    self.requests[id].handle = post_recv(in);
  }
  bool arrived(NodeState&, RequestState& r) override {
    if (r.handle >= 0) {
      const MpiDone d = test_handle(r.handle);
      if (!d.done) return false;
      r.handle = -1;
      if (!r.send) {
        r.received = d.bytes;
        r.error = received_problem(d, r.capacity, r.item_size);
      }
    }
    return true;
  }
  void block(NodeState&, FunctionRef<bool()> ready, const WaitDescription& what) override;

  // Real work takes its real time.
  void charge(NodeState&, Picos, std::uint64_t, Work) override {}
  Picos now(NodeState&, const WaitDescription&) override {
    return to_picos(std::max(0.0, MPI_Wtime() - run_start_));
  }
  void pause(NodeState&, double seconds) override {
    if (seconds > 0) {
      std::this_thread::sleep_for(std::chrono::duration<double>(seconds));
    } else {
      std::this_thread::yield();
    }
  }

  SplitResult split(NodeState& self, CommGroup& g, int rank, std::uint64_t seq, int color,
                    int key) override;
  const char* unsupported(Call call) const override {
    if (call == Call::create_group) {
      return "the MPI transport does not make groups from a list of members yet: use split";
    }
    return Transport::unsupported(call);
  }
  std::string compare_call(NodeState& self, CommGroup& g, int rank, std::uint64_t seq,
                           const CallSignature& mine, CompareCall compare) override;

 private:
  // A tag MPI takes, or a UsageError.
  int tag(int t) const {
    if (t > tag_ub_) {
      throw UsageError("MPI transport: tag " + std::to_string(t) +
                       " is above this MPI's largest tag (MPI_TAG_UB = " +
                       std::to_string(tag_ub_) + ")");
    }
    return t;
  }
  int add(MPI_Request r, bool receive) {
    if (!free_handles_.empty()) {
      const int h = free_handles_.back();
      free_handles_.pop_back();
      requests_[h] = r;
      receives_[h] = receive;
      return h;
    }
    requests_.push_back(r);
    receives_.push_back(receive);
    return static_cast<int>(requests_.size()) - 1;
  }
  void release_handle(int h) {
    requests_[h] = MPI_REQUEST_NULL;
    free_handles_.push_back(h);
  }
  // Nonblocking transfers of bytes to or from a rank of the group (its rank in the group's
  // communicators too: a split ranks its members as MPI_Comm_split does); a handle for
  // test_handle.
  int post_send(const Outgoing& out);
  int post_recv(const Incoming& in);
  MpiDone test_handle(int handle);
  // Blocks until the transfers of `handles` have completed; returns what each received.
  std::vector<MpiDone> complete(std::vector<int> handles, const WaitDescription& what);
  // Takes the abort notices that have arrived; true when there was one.
  bool take_notices();
  // This process's node failed on its own: every other process is told, with its report.
  void notify_failure(const std::string& report);
  // A run: its world's channels, after every process arrived (its time starts then).
  std::shared_ptr<MpiChannels> begin_run();
  // After the node's function: what every process agrees on.
  struct RunEnd {
    std::vector<double> node_seconds;  // by node: its function's wall time
    std::vector<int> origins;          // nodes that failed on their own, in rank order
    std::vector<std::string> reports;  // ... and their reports
    std::vector<Unreceived> unreceived;  // every process's messages no receive took
  };
  RunEnd end_run();
  // What the nonblocking collectives of a run's end write into: on the heap, and let go of
  // without being freed when a wait for them runs out (MPI may still write into it).
  struct EndBuffers;
  RunEnd end_run(EndBuffers& b);
  // After a run in which no node failed: the messages left unreceived on every process.
  std::vector<Unreceived> left_unreceived(EndBuffers& b);
  // The messages sent to this process that no receive took: taken from the run's channels,
  // waiting (bounded) for those still on their way. `missing` is how many there are.
  std::vector<Unreceived> take_unreceived(std::uint64_t missing);
  // Every member of the group gets rank 0's `mine` (collective call signatures).
  std::string agree(const MpiChannels& ch, const std::string& mine, const WaitDescription& what);
  // Waits for the requests of a run's start or end, which every process makes: bounded by the
  // watchdog ("MPI transport: not every process <what> within the watchdog time"), and not
  // ended by another process's notice of failure (block's are); with `notices`, the notices
  // that arrive meanwhile are taken. `statuses`: one per request, or MPI_STATUSES_IGNORE.
  // `watchdogs`: how many watchdog times it waits.
  void await_all(std::span<MPI_Request> rs, const char* what, bool notices = false,
                 MPI_Status* statuses = MPI_STATUSES_IGNORE, int watchdogs = 1);
  // Blocks until the MPI request completes (bounded like every wait).
  void wait_request(MPI_Request& r, const WaitDescription& what) {
    block(*self_, [&] {
      int f = 0;
      MPI_Test(&r, &f, MPI_STATUS_IGNORE);
      return f != 0;
    }, what);
  }

  MachineImpl& m_;
  std::unique_ptr<NodeState> self_;   // this process's node
  MPI_Comm base_ = MPI_COMM_WORLD;    // the machine's processes
  int rank_ = 0;
  int size_ = 1;
  MPI_Comm control_ = MPI_COMM_NULL;  // this run's notices
  std::vector<MPI_Request> requests_;  // by handle
  std::vector<bool> receives_;         // by handle: a receive (else a send)
  std::vector<int> free_handles_;
  std::vector<MPI_Request> notices_;   // notices this process sent in this run
  // This run's counts for the check of messages left unreceived: messages sent, by
  // destination node, and receives that took one.
  std::vector<std::uint64_t> sent_to_;
  std::uint64_t received_ = 0;
  // Every group's channels made in this run (the world's and each split's, with the group's
  // members), kept until its end so that messages left on them can be found there.
  struct RunChannels {
    std::uint32_t comm = 0;
    std::vector<int> world;  // by comm rank: the node
    std::shared_ptr<MpiChannels> channels;
  };
  std::vector<RunChannels> run_channels_;
  std::vector<bool> noticed_;          // by rank: its notice was received in this run
  std::vector<std::string> reports_;   // by rank: the notice's text
  bool origin_ = false;                // this process's node failed on its own
  std::string origin_report_;
  // Why this machine cannot run again: the end of an earlier run did not complete on every
  // process (its processes no longer agree on which run they are in).
  std::string broken_;
  double run_start_ = 0;
  // How long a wait yields before it sleeps: 2 ms, or 50 us where this machine runs more
  // processes than it has cores (a waiting process that kept yielding would slow the one
  // whose message it waits for).
  double spin_ = 2e-3;
  int tag_ub_ = 32767;  // MPI_TAG_UB: the largest tag this MPI takes
};

MpiTransport::MpiTransport(MachineImpl& m) : m_(m) {
  const int processes = mpi_processes(m.config);
  if (m.p != processes) {
    throw UsageError("Machine: topology " + m.topology->spec() + " has " + std::to_string(m.p) +
                     " nodes, but the MPI transport runs one node per process and " +
                     (m.config.mpi_communicator ? std::string("its communicator")
                                                : std::string("MPI_COMM_WORLD")) +
                     " has " + std::to_string(processes) + " (start it with mpirun -np " +
                     std::to_string(m.p) + ")");
  }
  // This process's node only: the others are the other processes.
  self_ = std::make_unique<NodeState>();
  self_->rank = mpi_process_rank(m.config);
  self_->machine = &m;
  base_ = base_communicator(m.config);
  MPI_Comm_rank(base_, &rank_);
  MPI_Comm_size(base_, &size_);
  int* ub = nullptr;
  int has_ub = 0;
  MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &ub, &has_ub);
  if (has_ub && ub != nullptr) tag_ub_ = *ub;
  if (processes_here(base_) >
      static_cast<int>(std::max(1u, std::thread::hardware_concurrency()))) {
    spin_ = 50e-6;
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
}

void MpiTransport::run(CommGroup& world, const NodeBody& body, Stats& stats, Trace& trace) {
  if (!broken_.empty()) throw UsageError(broken_);
  NodeState& self = *self_;
  world.channels = begin_run();
  world.local_members = 1;
  current_node = &self;
  try {
    body(self);
  } catch (const RunAborted&) {
    // Another process's node failed: its report comes with the end of the run.
  } catch (const std::exception& e) {
    notify_failure(e.what());
  } catch (...) {
    notify_failure("an exception that is not a std::exception");
  }
  current_node = nullptr;
  RunEnd end = end_run();
  self.clear_run();
  if (!end.origins.empty()) {
    throw RunError(RunError::Kind::node_threw,
                   threw_report(end.origins.front(), end.reports.front(), end.origins.size()),
                   end.origins.front(), {});
  }
  if (!end.unreceived.empty()) throw unreceived_error(std::move(end.unreceived));
  stats.critical_startups = -1;
  stats.node_time.resize(m_.p);
  for (int r = 0; r < m_.p; ++r) {
    stats.node_time[r] = to_picos(end.node_seconds[r]);
    stats.time = std::max(stats.time, stats.node_time[r]);
  }
  trace.nodes = m_.p;
}

bool MpiTransport::take_notices() {
  bool any = false;
  for (;;) {
    int flag = 0;
    MPI_Status status;
    MPI_Iprobe(MPI_ANY_SOURCE, kNoticeTag, control_, &flag, &status);
    if (!flag) return any;
    int len = 0;
    MPI_Get_count(&status, MPI_CHAR, &len);
    std::string text(static_cast<std::size_t>(len), '\0');
    MPI_Recv(text.data(), len, MPI_CHAR, status.MPI_SOURCE, kNoticeTag, control_,
             MPI_STATUS_IGNORE);
    noticed_[status.MPI_SOURCE] = true;
    reports_[status.MPI_SOURCE] = std::move(text);
    any = true;
  }
}

void MpiTransport::await_all(std::span<MPI_Request> rs, const char* what, bool notices,
                             MPI_Status* statuses, int watchdogs) {
  const auto start = std::chrono::steady_clock::now();
  for (int done = 0; !done;) {
    check(MPI_Testall(int(rs.size()), rs.data(), &done, statuses), "MPI_Testall");
    if (!done && notices) take_notices();
    const double waited =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (!done && waited > watchdogs * m_.config.watchdog_seconds) {
      throw UsageError(std::string("MPI transport: not every process ") + what + " within " +
                       (watchdogs == 1 ? std::string("the watchdog time (")
                                       : std::to_string(watchdogs) + " times the watchdog time (") +
                       seconds_text(m_.config.watchdog_seconds) + ")");
    }
    if (!done) back_off(waited, spin_);
  }
}

std::shared_ptr<MpiChannels> MpiTransport::begin_run() {
  auto world = std::make_shared<MpiChannels>();
  // The three at once: one round among the processes instead of three.
  MPI_Request dups[3];
  check(MPI_Comm_idup(base_, &world->user, &dups[0]), "MPI_Comm_idup");
  check(MPI_Comm_idup(base_, &world->collective, &dups[1]), "MPI_Comm_idup");
  check(MPI_Comm_idup(base_, &control_, &dups[2]), "MPI_Comm_idup");
  // Bounded like every wait: a process that never starts the run ends it here by the watchdog.
  await_all(dups, "started the run");
  for (MPI_Comm c : {world->user, world->collective, control_}) {
    MPI_Comm_set_errhandler(c, MPI_ERRORS_RETURN);
  }
  noticed_.assign(size_, false);
  reports_.assign(size_, "");
  origin_ = false;
  origin_report_.clear();
  notices_.clear();
  // Every process starts its node's function together: the run's time is measured from here.
  // Not abortable by a notice (block takes them): every process reaches this barrier, so it
  // completes, and a process that passed it first may already have failed and sent its
  // notice; the notice is taken in the run, whose end reports it. Bounded by the watchdog.
  MPI_Request barrier = MPI_REQUEST_NULL;
  check(MPI_Ibarrier(control_, &barrier), "MPI_Ibarrier");
  await_all(std::span(&barrier, 1), "reached the start of the run");
  sent_to_.assign(static_cast<std::size_t>(size_), 0);
  received_ = 0;
  run_channels_.clear();
  run_channels_.push_back({0, {}, world});
  run_start_ = MPI_Wtime();
  return world;
}

void MpiTransport::block(NodeState&, FunctionRef<bool()> ready, const WaitDescription& what) {
  using Clock = std::chrono::steady_clock;
  const auto start = Clock::now();
  const double watchdog = m_.config.watchdog_seconds;
  for (unsigned round = 0;; ++round) {
    if (ready()) return;
    if (take_notices()) throw RunAborted{};
    const double waited = std::chrono::duration<double>(Clock::now() - start).count();
    if (waited > watchdog) {
      std::string text = std::string("no progress for ") + std::to_string(watchdog) +
                         " s in " + what.operation;
      if (what.peer >= 0) text += " from rank " + std::to_string(what.peer);
      if (what.peer_world >= 0 && what.peer < 0) {
        text += " to node " + std::to_string(what.peer_world);
      }
      text += " (a deadlock across the processes, or a process that stopped): the run was ended";
      throw UsageError(text);
    }
    back_off(waited, spin_);
  }
}

int MpiTransport::post_send(const Outgoing& out) {
  const ChannelTag t = channel_tag(out.tag);
  const MpiChannels& ch = channels_of(out.group);
  MPI_Request r = MPI_REQUEST_NULL;
  check(MPI_Isend(out.data, static_cast<int>(out.bytes), MPI_BYTE, out.dest, tag(t.tag),
                  t.collective ? ch.collective : ch.user, &r),
        "MPI_Isend");
  ++sent_to_[static_cast<std::size_t>(out.dst)];
  return add(r, false);
}

int MpiTransport::post_recv(const Incoming& in) {
  const ChannelTag t = channel_tag(in.tag);
  const MpiChannels& ch = channels_of(in.group);
  MPI_Request r = MPI_REQUEST_NULL;
  // No message is larger than an int's bytes (the send refuses it), so a larger buffer is
  // as good as one of that size.
  const int count = static_cast<int>(std::min<std::size_t>(
      in.capacity, static_cast<std::size_t>(std::numeric_limits<int>::max())));
  check(MPI_Irecv(in.data, count, MPI_BYTE, in.source, tag(t.tag),
                  t.collective ? ch.collective : ch.user, &r),
        "MPI_Irecv");
  return add(r, true);
}

MpiDone MpiTransport::test_handle(int handle) {
  int flag = 0;
  MPI_Status status;
  const int code = MPI_Test(&requests_[handle], &flag, &status);
  MpiDone d;
  if (code != MPI_SUCCESS) {
    int cls = 0;
    MPI_Error_class(code, &cls);
    if (cls != MPI_ERR_TRUNCATE) mpi_failed("MPI_Test", code);
    d.done = true;
    d.truncated = true;
    ++received_;  // the message was taken, too large for its buffer
    release_handle(handle);
    return d;
  }
  if (!flag) return d;
  d.done = true;
  if (receives_[handle]) ++received_;
  int count = 0;
  MPI_Get_count(&status, MPI_BYTE, &count);
  d.bytes = count == MPI_UNDEFINED ? 0 : static_cast<std::size_t>(count);
  release_handle(handle);
  return d;
}

std::vector<MpiDone> MpiTransport::complete(std::vector<int> handles,
                                            const WaitDescription& what) {
  std::vector<MpiDone> done(handles.size());
  block(
      *self_,
      [&] {
        bool all = true;
        for (std::size_t k = 0; k < handles.size(); ++k) {
          if (handles[k] < 0) continue;
          done[k] = test_handle(handles[k]);
          if (done[k].done) {
            handles[k] = -1;
          } else {
            all = false;
          }
        }
        return all;
      },
      what);
  return done;
}

std::string MpiTransport::agree(const MpiChannels& ch, const std::string& mine,
                                const WaitDescription& what) {
  // Rank 0's text, its length first (MPI_Ibcast: the wait stays bounded).
  int len = static_cast<int>(mine.size());
  MPI_Request r = MPI_REQUEST_NULL;
  check(MPI_Ibcast(&len, 1, MPI_INT, 0, ch.user, &r), "MPI_Ibcast");
  wait_request(r, what);
  std::string first = mine;
  first.resize(static_cast<std::size_t>(len));
  check(MPI_Ibcast(first.data(), len, MPI_CHAR, 0, ch.user, &r), "MPI_Ibcast");
  wait_request(r, what);
  return first;
}

std::string MpiTransport::compare_call(NodeState&, CommGroup& g, int, std::uint64_t,
                                       const CallSignature& mine, CompareCall compare) {
  // The members compare their calls with rank 0's, sent to them (one broadcast); a timing
  // run may leave it out (MachineConfig::check_calls).
  if (!m_.config.check_calls) return "";
  const std::string first = agree(channels_of(g), encode_signature(mine),
                                  WaitDescription{"collective", -1, -1, 0, g.id});
  return compare(decode_signature(first).view(), 0);
}

SplitResult MpiTransport::split(NodeState& self, CommGroup& g, int, std::uint64_t, int color,
                                int key) {
  // Every process makes one id per split, so that the ids agree wherever they are shown.
  const std::uint32_t id = m_.allocate_comm_id();
  const WaitDescription what{"split", -1, -1, 0, g.id};
  const MpiChannels& parent = channels_of(g);
  // Every member arrives first (a bounded wait), so the blocking calls below return.
  MPI_Request r = MPI_REQUEST_NULL;
  check(MPI_Ibarrier(parent.user, &r), "MPI_Ibarrier");
  wait_request(r, what);
  MPI_Comm user = MPI_COMM_NULL;
  check(MPI_Comm_split(parent.user, color < 0 ? MPI_UNDEFINED : color, key, &user),
        "MPI_Comm_split");
  if (user == MPI_COMM_NULL) return {};  // an invalid Comm, which still names the node
  auto ch = std::make_shared<MpiChannels>();
  ch->user = user;
  MPI_Comm_set_errhandler(ch->user, MPI_ERRORS_RETURN);
  check(MPI_Comm_dup(ch->user, &ch->collective), "MPI_Comm_dup");
  MPI_Comm_set_errhandler(ch->collective, MPI_ERRORS_RETURN);
  int size = 0;
  MPI_Comm_size(ch->user, &size);
  auto ng = std::make_shared<CommGroup>();
  ng->id = id;
  ng->machine = &m_;
  ng->world.assign(static_cast<std::size_t>(size), 0);
  check(MPI_Allgather(&self.rank, 1, MPI_INT, ng->world.data(), 1, MPI_INT, ch->user),
        "MPI_Allgather");
  ng->channels = std::move(ch);
  for (int i = 0; i < static_cast<int>(ng->world.size()); ++i) ng->rank_of[ng->world[i]] = i;
  ng->describe_members();
  ng->local_members = 1;
  run_channels_.push_back({id, ng->world, std::static_pointer_cast<MpiChannels>(ng->channels)});
  return {ng, ng->rank_of.at(self.rank)};
}

void MpiTransport::notify_failure(const std::string& report) {
  origin_ = true;
  origin_report_ = report;
  for (int r = 0; r < size_; ++r) {
    if (r == rank_) continue;
    MPI_Request req = MPI_REQUEST_NULL;
    MPI_Isend(report.data(), static_cast<int>(report.size()), MPI_CHAR, r, kNoticeTag, control_,
              &req);
    notices_.push_back(req);
  }
}

struct MpiTransport::EndBuffers {
  struct Entry {
    double elapsed;
    int origin;
  };
  Entry mine{};
  std::vector<Entry> all;
  std::uint64_t sent_here = 0;
  int count = 0;
  std::vector<int> counts, offsets;
  std::vector<Unreceived> mine_left, all_left;
  MPI_Request r = MPI_REQUEST_NULL;
};

MpiTransport::RunEnd MpiTransport::end_run() {
  auto buffers = std::make_unique<EndBuffers>();
  try {
    return end_run(*buffers);
  } catch (const UsageError& e) {
    // A wait of the end ran out: a collective of it may still complete and write into the
    // buffers, so they are not freed; the processes no longer agree on which run they are in.
    (void)buffers.release();
    broken_ = "MPI transport: the end of an earlier run did not complete on every process "
              "(one was still in its node's function, or stopped): this machine cannot run "
              "again";
    throw RunError(RunError::Kind::watchdog, e.what(), -1, {});
  }
}

MpiTransport::RunEnd MpiTransport::end_run(EndBuffers& b) {
  const double elapsed = MPI_Wtime() - run_start_;
  // Every process's (origin, elapsed): an allgather it waits for while taking notices, so
  // that a process still blocked elsewhere is released by them first.
  b.mine = {elapsed, origin_ ? 1 : 0};
  b.all.resize(static_cast<std::size_t>(size_));
  MPI_Datatype entry_type;
  MPI_Type_contiguous(sizeof(EndBuffers::Entry), MPI_BYTE, &entry_type);
  MPI_Type_commit(&entry_type);
  MPI_Iallgather(&b.mine, 1, entry_type, b.all.data(), 1, entry_type, control_, &b.r);
  // Bounded: a process still in its node's function ends the run here. It gets twice the
  // watchdog time, since one that waits in a call without progress gives up within one.
  await_all(std::span(&b.r, 1), "ended the run", true, MPI_STATUSES_IGNORE, 2);
  MPI_Type_free(&entry_type);
  const std::vector<EndBuffers::Entry>& all = b.all;
  RunEnd end;
  for (int k = 0; k < size_; ++k) {
    end.node_seconds.push_back(all[k].elapsed);
    if (!all[k].origin) continue;
    end.origins.push_back(k);
    if (k == rank_) {
      reports_[k] = origin_report_;
    } else if (!noticed_[k]) {
      // Its notice was sent before it joined the allgather: it arrives (a bounded wait).
      MPI_Status status;
      MPI_Request probe = MPI_REQUEST_NULL;
      MPI_Message message = MPI_MESSAGE_NULL;
      const auto since = std::chrono::steady_clock::now();
      for (int flag = 0; !flag;) {
        MPI_Improbe(k, kNoticeTag, control_, &flag, &message, &status);
        const double waited =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - since).count();
        if (!flag && waited > m_.config.watchdog_seconds) {
          throw UsageError("MPI transport: the report of process " + std::to_string(k) +
                           "'s failure did not arrive within the watchdog time (" +
                           seconds_text(m_.config.watchdog_seconds) + ")");
        }
        if (!flag) back_off(waited, spin_);
      }
      int len = 0;
      MPI_Get_count(&status, MPI_CHAR, &len);
      reports_[k].assign(static_cast<std::size_t>(len), '\0');
      MPI_Imrecv(reports_[k].data(), len, MPI_CHAR, &message, &probe);
      await_all(std::span(&probe, 1), "sent its report");
      noticed_[k] = true;
    }
    end.reports.push_back(reports_[k]);
  }
  await_all(notices_, "took the reports of failure");
  notices_.clear();
  // Transfers left in flight: receives are cancelled and completed (their buffers were the
  // node function's; one that had taken its message counts as a receive), sends let go of
  // (after a failed run their receivers are gone too).
  // All cancelled first, then one wait for them all (bounded once, not once each).
  std::vector<MPI_Request> cancelled;
  for (std::size_t h = 0; h < requests_.size(); ++h) {
    if (requests_[h] == MPI_REQUEST_NULL) continue;
    if (receives_[h]) {
      MPI_Cancel(&requests_[h]);
      cancelled.push_back(requests_[h]);
    } else {
      MPI_Request_free(&requests_[h]);
    }
  }
  std::vector<MPI_Status> statuses(cancelled.size());
  await_all(cancelled, "completed its cancelled receives", false, statuses.data());
  for (const MPI_Status& status : statuses) {
    int was_cancelled = 0;
    MPI_Test_cancelled(&status, &was_cancelled);
    if (!was_cancelled) ++received_;
  }
  requests_.clear();
  receives_.clear();
  free_handles_.clear();
  if (end.origins.empty()) end.unreceived = left_unreceived(b);
  run_channels_.clear();
  MPI_Comm_free(&control_);
  return end;
}

std::vector<Unreceived> MpiTransport::left_unreceived(EndBuffers& b) {
  // How many messages were sent to this process: the sum over the senders.
  check(MPI_Ireduce_scatter_block(sent_to_.data(), &b.sent_here, 1, MPI_UINT64_T, MPI_SUM,
                                  control_, &b.r),
        "MPI_Ireduce_scatter_block");
  await_all(std::span(&b.r, 1), "counted the messages of the run");
  if (b.sent_here > received_) b.mine_left = take_unreceived(b.sent_here - received_);
  // Every process's, to every process: their counts, then the messages.
  b.count = static_cast<int>(b.mine_left.size());
  b.counts.resize(static_cast<std::size_t>(size_));
  check(MPI_Iallgather(&b.count, 1, MPI_INT, b.counts.data(), 1, MPI_INT, control_, &b.r),
        "MPI_Iallgather");
  await_all(std::span(&b.r, 1), "counted the messages left unreceived");
  b.offsets.resize(static_cast<std::size_t>(size_));
  int total = 0;
  for (int k = 0; k < size_; ++k) {
    b.offsets[k] = total;
    total += b.counts[k];
  }
  if (total == 0) return {};
  b.all_left.resize(static_cast<std::size_t>(total));
  MPI_Datatype entry;
  MPI_Type_contiguous(sizeof(Unreceived), MPI_BYTE, &entry);
  MPI_Type_commit(&entry);
  check(MPI_Iallgatherv(b.mine_left.data(), b.count, entry, b.all_left.data(), b.counts.data(),
                        b.offsets.data(), entry, control_, &b.r),
        "MPI_Iallgatherv");
  await_all(std::span(&b.r, 1), "shared the messages left unreceived");
  MPI_Type_free(&entry);
  return b.all_left;
}

std::vector<Unreceived> MpiTransport::take_unreceived(std::uint64_t missing) {
  std::vector<Unreceived> left;
  std::vector<char> scratch;
  const auto start = std::chrono::steady_clock::now();
  while (left.size() < missing) {
    bool any = false;
    for (const RunChannels& rc : run_channels_) {
      for (const bool collective : {false, true}) {
        const MPI_Comm comm = collective ? rc.channels->collective : rc.channels->user;
        int flag = 0;
        MPI_Status status;
        MPI_Message message = MPI_MESSAGE_NULL;
        MPI_Improbe(MPI_ANY_SOURCE, MPI_ANY_TAG, comm, &flag, &message, &status);
        if (!flag) continue;
        any = true;
        int bytes = 0;
        MPI_Get_count(&status, MPI_BYTE, &bytes);
        scratch.resize(static_cast<std::size_t>(std::max(bytes, 1)));
        MPI_Mrecv(scratch.data(), bytes, MPI_BYTE, &message, MPI_STATUS_IGNORE);
        Unreceived u;
        u.node = rank_;
        u.src = rc.world.empty() ? status.MPI_SOURCE : rc.world.at(status.MPI_SOURCE);
        u.tag = collective ? kCollectiveTagBase + status.MPI_TAG : status.MPI_TAG;
        u.call_known = !collective;
        u.comm = rc.comm;
        u.bytes = static_cast<std::size_t>(bytes);
        left.push_back(u);
      }
    }
    if (any) continue;
    // The rest are still on their way (their sends completed when MPI buffered them).
    const double waited =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (waited > m_.config.watchdog_seconds) {
      throw UsageError("MPI transport: " + std::to_string(missing - left.size()) +
                       " of the messages sent to node " + std::to_string(rank_) +
                       " in the run were neither received nor found within the watchdog time (" +
                       seconds_text(m_.config.watchdog_seconds) + ")");
    }
    back_off(waited, spin_);
  }
  return left;
}

}  // namespace

std::unique_ptr<Transport> make_mpi(MachineImpl& m) {
  ensure_mpi();
  return std::make_unique<MpiTransport>(m);
}

}  // namespace vmc::detail
