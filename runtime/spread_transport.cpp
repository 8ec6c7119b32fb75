// A machine spread over MPI processes (MachineConfig::transport spread): the p
// nodes of one emulated machine run in the K processes of MPI_COMM_WORLD (mpirun -np K), or of
// the communicator given (MachineConfig::mpi_communicator), process
// k running the contiguous block [first(k), first(k + 1)) of p/K nodes (the first p mod K
// processes one more) as threads or fibers with mailboxes, as on one process: the local
// machine on the virtual clock (virtual_clock.hpp), whose messages to the nodes of other
// processes go by MPI.
//
// Messages. A message to a node of the same process goes to its mailbox as on one process. A
// message to a node of another process is one MPI message: its bytes (none on a timing-only
// machine), then a trailer saying whom it is for and how it matches (comm, source, tag,
// items, the sender's send index). The sending node queues it for this process's progress
// thread, which posts it with MPI_Isend and frees it when the send completes; the progress
// thread also takes the messages that arrive (MPI_Improbe, MPI_Mrecv), puts each in its
// node's mailbox and wakes the node. One thread calls MPI for the nodes, so a node never
// waits in MPI (a fiber that did would stall its worker's other nodes) and the MPI library
// sees one sender per process. The thread that runs the machine calls MPI too, to agree on
// the run's end, so MPI runs with MPI_THREAD_MULTIPLE; but the two never call it at once (one
// mutex, SpreadNetwork::mpi_mutex). The library moves a message's bytes on whichever thread
// calls it: without the mutex, a message the progress thread receives could be copied into
// its buffer by the machine's thread testing a round, and the node that reads the buffer
// would be ordered after that copy only by the library's own atomics, which ThreadSanitizer
// does not see (it took every word of the buffer for a race in Open MPI, and checking them one
// by one against its suppressions outlasted the watchdog for a 1 MiB message). Under the
// mutex, every copy into a buffer happens before a release of the mutex that the node's read
// comes after. Messages between two nodes keep their
// order: a node's messages leave its process in the order it sent them (one queue, FIFO per
// producing thread; a node always runs on one thread), and MPI does not let a message
// overtake an earlier one between two processes on one communicator and tag.
//
// Virtual time. Every node appends its operations to its log as on one process, and the logs
// do not depend on which process ran the node, nor on the schedule. After the run, process 0
// gathers every node's log and runs the same discrete-event pass over all p (simulator.cpp),
// then sends the statistics to every process: the times are those of the run on one process,
// bit for bit, by construction. The trace, when recorded, stays on process 0.
//
// The end of a run. Every few milliseconds the processes' controllers take part in a round:
// an MPI_Iallreduce of what each sees (nodes still running; whether they are all blocked with
// nothing new since they last looked; messages sent to and received from other processes;
// whether a node failed; the machine's activity). Every process judges the same sums the same
// way, so every process reaches the same verdict in the same round:
//   - a node failed somewhere: every process ends its nodes, and every process throws the same
//     RunError, made from every process's errors (the first in process order, then how many);
//   - every node has returned: the run is over;
//   - two rounds in a row with every unfinished node blocked, as many messages received as
//     sent (nothing in flight) and the same activity everywhere: a deadlock, reported with
//     every blocked node of every process;
//   - no activity anywhere for the watchdog time: the watchdog's report, with what every
//     unfinished node of every process was doing (running, or the wait it was in).
// A round that does not complete within the watchdog time (a process stopped taking part)
// ends the run on every process with one report.
//
// Making the machine. Its communicators (MPI_Comm_idup) and the count of processes on this
// host (HostNames) are nonblocking collectives polled against the watchdog time: a process
// that does not make the machine ends the making on the others with an error.
//
// After the verdict. Every exchange is a star through process 0, of nonblocking sends and
// receives polled against the watchdog time (through_first): the drain (the processes wait
// until every message sent was received, so that none is left to be matched by the next run),
// then either the sharing of every process's errors and blocked nodes (a failed run), or the
// gathering of the logs and the sharing of the pass's outcome. With its logs, each process
// sends the messages its nodes left in their mailboxes (every message sent has arrived by
// then); any on any process is the run's failure, reported by process 0 before the pass as
// one process reports them (RunError::Kind::unreceived, nodes in order). Process 0 waits for each
// process's part until the watchdog time has passed since it last heard from it; it sends
// every process either the answer or a report naming the processes that did not answer and
// the phase, so that every process that took part ends with that one report. The others wait
// for process 0 as long, and name it if it does not answer. A process still ending its nodes
// (a node computing comes to a call of vmc only when it does), and process 0 while it waits
// for the others or runs the pass, send word every quarter of the watchdog time that they are
// at work, and the wait for them starts again: a report comes within the watchdog time of the
// last word from the process it names. After a process stopped answering (or this one failed
// there) the machine runs no more: the processes are at different points of the run's end,
// and messages of it may still come.
//
// Collective calls. Their signatures are compared among the members in one process, as on
// one process; and the first member of every other process sends its call's signature to
// process 0, whose progress thread compares it with rank 0's: a mismatch is recorded as that
// member's error, as it would have thrown it on one process, ends the run, and comes first in
// the report (what followed came of it), found by the drain at the latest.
//
// A test hook: VMC_SPREAD_TEST_FAIL=phase:process makes that process (of the machine's
// communicator) throw at that phase of every run, as one out of memory there would, and take
// no further part: rounds (before the verdict), drain (at it), errors, logs or outcome (after
// it: the first two before its part, outcome once its logs are sent, on process 0 before the
// pass). The processes' tests hold every other process to one report within the watchdog time
// (docs/mpi.md).
//
// Not yet offered on a spread machine, each refused with an error naming the node: split (its
// colours and keys would have to be agreed among the processes), and wait_any and test on the
// virtual clock (their answers come from the discrete-event pass, which runs after the run
// here). The real clock is refused: a link token held for real in one process cannot be held
// by a node of another without a round trip between them, which would be the network's time,
// not the model's.
#include <mpi.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <map>
#include <memory>
#include <mutex>
#include <thread>
#include <type_traits>

#include "runtime/mpi_common.hpp"
#include "runtime/run_errors.hpp"
#include "runtime/virtual_clock.hpp"

namespace vmc::detail {

namespace {

// Tags on the data communicator: messages between nodes, and the signatures of collective
// calls sent to process 0 to be compared.
constexpr int kDataTag = 0;
constexpr int kSignatureTag = 1;
// Tags on the control communicator: the exchanges through process 0 after the verdict.
constexpr int kLogTag = 1;
constexpr int kDrainTag = 2;
constexpr int kErrorsTag = 3;

// Where a process is in a run's end, for the reports of a process that did not answer and for
// the test hook (VMC_SPREAD_TEST_FAIL, see the top of this file).
enum class Phase { none, rounds, drain, errors, logs, outcome };
constexpr const char* kPhaseNames[] = {"", "rounds", "drain", "errors", "logs", "outcome"};
const char* doing(Phase phase) {
  switch (phase) {
    case Phase::none:
    case Phase::rounds:
      return "the rounds that agree on the run's end";
    case Phase::drain:
      return "the wait for every message between processes to arrive";
    case Phase::errors:
      return "the sharing of the errors";
    case Phase::logs:
    case Phase::outcome:
      return "the gathering of the logs and the sharing of the outcome";
  }
  return "";
}

// What requests left unfinished may still use (their buffers, the communicators they make),
// kept until the process ends.
void keep_for_the_process(std::shared_ptr<void> kept) {
  static std::mutex mutex;
  static auto* all = new std::vector<std::shared_ptr<void>>;  // never destroyed: MPI may use them
  const std::lock_guard lock(mutex);
  all->push_back(std::move(kept));
}

// After a message's bytes: whom it is for and how it is matched.
struct Trailer {
  std::uint64_t items = 0;
  std::uint64_t send_index = 0;
  std::uint64_t bytes = 0;  // the message's bytes (0 carried on a timing-only machine)
  Tag tag = 0;
  std::uint32_t comm = 0;
  std::int32_t src = 0;
  std::int32_t dst = 0;
  std::int32_t unused = 0;
};
static_assert(std::is_trivially_copyable_v<Trailer>);

struct Queued {
  Message* msg = nullptr;
  int process = 0;
  int length = 0;  // bytes, the trailer included
  int tag = kDataTag;
};

// Bytes in, bytes out: the logs and statistics the processes exchange.
struct Writer {
  std::vector<char> out;
  template <class T>
  void put(const T& v) {
    static_assert(std::is_trivially_copyable_v<T>);
    const char* p = reinterpret_cast<const char*>(&v);
    out.insert(out.end(), p, p + sizeof v);
  }
  template <class T>
  void put_vector(const std::vector<T>& v) {
    static_assert(std::is_trivially_copyable_v<T>);
    put<std::uint64_t>(v.size());
    const char* p = reinterpret_cast<const char*>(v.data());
    out.insert(out.end(), p, p + v.size() * sizeof(T));
  }
  void put_string(std::string_view s) {
    put<std::uint64_t>(s.size());
    out.insert(out.end(), s.begin(), s.end());
  }
};
struct Reader {
  const char* at;
  const char* end;
  template <class T>
  T get() {
    T v;
    take(&v, sizeof v);
    return v;
  }
  template <class T>
  void get_vector(std::vector<T>& v) {
    v.resize(get<std::uint64_t>());
    take(v.data(), v.size() * sizeof(T));
  }
  std::string get_string() {
    std::string s(get<std::uint64_t>(), '\0');
    take(s.data(), s.size());
    return s;
  }
  void take(void* to, std::size_t n) {
    if (static_cast<std::size_t>(end - at) < n) {
      throw std::logic_error("spread machine: a record from another process is cut short");
    }
    if (n > 0) std::memcpy(to, at, n);
    at += n;
  }
};

void put_stats(Writer& w, const Stats& s) {
  w.put(s.time);
  w.put_vector(s.node_time);
  for (std::uint64_t v : {s.messages, s.items, s.bytes, s.combined_items, s.rearranged_items}) {
    w.put(v);
  }
  w.put(s.critical_startups);
  w.put_vector(s.link_busy);
  w.put_vector(s.link_peak);
  w.put(s.max_link_waiters);
  for (Picos v : {s.token_wait, s.contention_delay, s.max_message_delay,
                  s.contention_critical_delay, s.free_time}) {
    w.put(v);
  }
}
Stats get_stats(Reader& r) {
  Stats s;
  s.time = r.get<Picos>();
  r.get_vector(s.node_time);
  for (std::uint64_t* v :
       {&s.messages, &s.items, &s.bytes, &s.combined_items, &s.rearranged_items}) {
    *v = r.get<std::uint64_t>();
  }
  s.critical_startups = r.get<int>();
  r.get_vector(s.link_busy);
  r.get_vector(s.link_peak);
  s.max_link_waiters = r.get<int>();
  for (Picos* v : {&s.token_wait, &s.contention_delay, &s.max_message_delay,
                   &s.contention_critical_delay, &s.free_time}) {
    *v = r.get<Picos>();
  }
  return s;
}

// A collective call's signature, from the first member of a process to process 0.
void put_signature(Writer& w, const CallSignature& s) {
  w.put_string(s.operation);
  w.put_string(s.op);
  w.put_string(s.type);
  w.put_string(s.algorithm);
  w.put(s.root);
  w.put(s.count);
  w.put(s.item_size);
  w.put(s.check_count);
  w.put(s.layout);
}
void get_signature(Reader& r, KeptSignature& s) {
  s.operation = r.get_string();
  s.op = r.get_string();
  s.type = r.get_string();
  s.algorithm = r.get_string();
  s.fields.root = r.get<int>();
  s.fields.count = r.get<std::uint64_t>();
  s.fields.item_size = r.get<std::size_t>();
  s.fields.check_count = r.get<bool>();
  s.fields.layout = r.get<std::uint64_t>();
}

// A round's values, summed over the processes.
enum Field : int { kRunning, kNotQuiet, kSent, kReceived, kFailed, kStalled, kActivity, kFields };

enum class Verdict { go_on, finished, failed, deadlock, watchdog };

// Sends and receives of at most 1 GiB each: a record may be larger than an int's count.
constexpr std::size_t kChunk = std::size_t{1} << 30;

}  // namespace

// The MPI side of a spread machine: its communicators, which process runs which nodes, and the
// progress thread that carries the messages between processes.
struct SpreadNetwork {
  MachineImpl& m;
  LocalNodes* nodes = nullptr;  // this process's, once made (start)
  int rank = 0;
  int size = 1;
  int here = 1;                // processes on this host
  std::vector<int> first;      // first[k]: the first node of process k; first[size] = p
  MPI_Comm data = MPI_COMM_NULL;     // messages between nodes (the progress thread's)
  MPI_Comm control = MPI_COMM_NULL;  // rounds and the end of a run (the machine's thread's)
  double spin = 2e-3;                // how long an idle progress thread yields before it sleeps

  // Held by each thread for its MPI calls (see the top of this file): the progress thread for
  // each pass over its queues, the machine's thread for each of its calls.
  mutable std::mutex mpi_mutex;
  moodycamel::ConcurrentQueue<Queued> outbox;
  // VMC_SPREAD_SEND=direct (to measure the choice): nodes post their own MPI_Isend, and the
  // progress thread only completes them (handed over here) and receives.
  bool direct = false;
  moodycamel::ConcurrentQueue<std::pair<MPI_Request, Message*>> posted;
  moodycamel::LightweightSemaphore outbox_signal{0, 0};
  std::atomic<std::uint64_t> sent{0}, received{0};  // messages to and from other processes
  std::atomic<bool> stopping{false};
  // Whether this machine runs (from begin_run to drain): only then does its progress thread
  // call MPI. An idle machine's thread that went on polling would call into the MPI library
  // beside another machine's run in this process, and the library would move that machine's
  // bytes on it, past the other machine's mpi_mutex (see the top of this file). Guarded by
  // mpi_mutex, so that the thread's calls end with a pass begun before the machine stopped;
  // begin_run wakes the thread (outbox_signal).
  bool active = false;
  std::thread progress;

  // Collective calls compared between processes: the first member of every other process
  // sends its call's signature to process 0 (kSignatureTag), whose progress thread compares
  // it with rank 0's; a mismatch is recorded as that member's error, as it would have thrown
  // it on one process, and ends the run.
  struct CrossCall {
    bool have_first = false;
    KeptSignature first;                            // rank 0's, once it called
    std::vector<std::pair<int, KeptSignature>> waiting;  // (node, signature) before that
    int compared = 0;
  };
  std::mutex signature_mutex;
  std::map<std::uint64_t, CrossCall> calls;  // by the call's seq; guarded by signature_mutex
  std::vector<ErrorRecord> mismatches;       // guarded by signature_mutex
  std::atomic<bool> mismatched{false};

  // A process stopped answering after the verdict, or this one failed in between: the
  // processes are at different points of the run's end and messages of it may still come,
  // so the machine runs no more (run and everywhere refuse, saying why). Requests left
  // unfinished then keep their buffers, which MPI may still use, until the process ends.
  bool broken = false;  // the machine's thread's
  std::string broken_why;
  std::vector<std::shared_ptr<void>> left_behind;
  // Marks the machine broken for `why` (the first reason given stands) and stops its progress
  // thread's calls (active). Returns the reason that stands.
  const std::string& break_for_good(std::string why) {
    const std::lock_guard mpi_lock(mpi_mutex);
    active = false;
    broken = true;
    if (broken_why.empty()) broken_why = std::move(why);
    return broken_why;
  }
  // The test hook VMC_SPREAD_TEST_FAIL=phase:process: that process stops at that phase.
  Phase fail_at = Phase::none;
  int fail_process = -1;

  // Joins the machine's processes (MPI_THREAD_MULTIPLE), and finds this process's block.
  explicit SpreadNetwork(MachineImpl& machine);
  ~SpreadNetwork();
  // Where this process's nodes are.
  NodePlacement placement() const;
  // Starts the progress thread, which delivers to `local`.
  void start(LocalNodes& local);

  int process_of(int node) const {
    return static_cast<int>(std::upper_bound(first.begin(), first.end(), node) - first.begin()) - 1;
  }

  // The progress thread: posts queued messages, frees sent ones, delivers arrived ones.
  void progress_main() {
    std::vector<MPI_Request> requests;
    std::vector<Message*> in_flight;
    std::vector<int> done;
    Queued batch[64];
    auto idle_since = std::chrono::steady_clock::now();
    while (!stopping.load(std::memory_order_acquire)) {
      bool did = false;
      std::unique_lock mpi_lock(mpi_mutex);
      if (!active) {
        mpi_lock.unlock();
        outbox_signal.wait(100'000);  // woken by begin_run and by stop (bounded either way)
        idle_since = std::chrono::steady_clock::now();
        continue;
      }
      std::pair<MPI_Request, Message*> handed[64];
      for (std::size_t got; (got = posted.try_dequeue_bulk(handed, 64)) > 0;) {
        for (std::size_t i = 0; i < got; ++i) {
          requests.push_back(handed[i].first);
          in_flight.push_back(handed[i].second);
        }
        did = true;
      }
      for (std::size_t got; (got = outbox.try_dequeue_bulk(batch, 64)) > 0;) {
        for (std::size_t i = 0; i < got; ++i) {
          MPI_Request r = MPI_REQUEST_NULL;
          check(MPI_Isend(batch[i].msg->payload.get(), batch[i].length, MPI_BYTE,
                          batch[i].process, batch[i].tag, data, &r),
                "MPI_Isend");
          requests.push_back(r);
          in_flight.push_back(batch[i].msg);
        }
        did = true;
      }
      if (!requests.empty()) {
        int count = 0;
        done.resize(requests.size());
        check(MPI_Testsome(static_cast<int>(requests.size()), requests.data(), &count, done.data(),
                           MPI_STATUSES_IGNORE),
              "MPI_Testsome");
        if (count > 0 && count != MPI_UNDEFINED) {
          for (int i = 0; i < count; ++i) {
            release(in_flight[done[i]]);
            in_flight[done[i]] = nullptr;
          }
          std::size_t keep = 0;
          for (std::size_t i = 0; i < requests.size(); ++i) {
            if (in_flight[i] == nullptr) continue;
            requests[keep] = requests[i];
            in_flight[keep++] = in_flight[i];
          }
          requests.resize(keep);
          in_flight.resize(keep);
          did = true;
        }
      }
      for (;;) {
        int flag = 0;
        MPI_Message handle;
        MPI_Status status;
        check(MPI_Improbe(MPI_ANY_SOURCE, MPI_ANY_TAG, data, &flag, &handle, &status),
              "MPI_Improbe");
        if (!flag) break;
        int length = 0;
        MPI_Get_count(&status, MPI_BYTE, &length);
        Payload bytes = make_payload(static_cast<std::size_t>(length));
        check(MPI_Mrecv(bytes.get(), length, MPI_BYTE, &handle, MPI_STATUS_IGNORE), "MPI_Mrecv");
        if (status.MPI_TAG == kSignatureTag) {
          const char* at = reinterpret_cast<const char*>(bytes.get());
          Reader r{at, at + length};
          const auto seq = r.get<std::uint64_t>();
          const int node = r.get<int>();
          KeptSignature sig;
          get_signature(r, sig);
          other_call(seq, node, std::move(sig));
          received.fetch_add(1, std::memory_order_seq_cst);
        } else {
          deliver(std::move(bytes), static_cast<std::size_t>(length));
        }
        did = true;
      }
      mpi_lock.unlock();
      const auto now = std::chrono::steady_clock::now();
      if (did) {
        idle_since = now;
        continue;
      }
      // Idle: a message between processes takes microseconds, so yield for a while; then
      // sleep, woken at once by a node's send, and looking for arrivals every 20 us to 500 us.
      const double idle = std::chrono::duration<double>(now - idle_since).count();
      if (idle < spin) {
        std::this_thread::yield();
        continue;
      }
      while (outbox_signal.tryWait()) {
      }
      if (outbox.size_approx() > 0 || posted.size_approx() > 0) continue;
      const double pause = std::min(500e-6, std::max(20e-6, idle / 100));
      outbox_signal.wait(static_cast<std::int64_t>(pause * 1e6));
    }
    const std::lock_guard mpi_lock(mpi_mutex);
    if (broken) return;  // a send to a process that stopped may never end: its message is kept
    for (std::size_t i = 0; i < requests.size(); ++i) {
      MPI_Cancel(&requests[i]);
      MPI_Wait(&requests[i], MPI_STATUS_IGNORE);
      release(in_flight[i]);
    }
  }

  // Rank 0's call `seq` (on process 0): compared with the other processes' that came first.
  void first_call(std::uint64_t seq, const CallSignature& sig) {
    const std::lock_guard lock(signature_mutex);
    CrossCall& call = calls[seq];
    call.have_first = true;
    call.first.keep(sig);
    for (const auto& [node, other] : call.waiting) compare_with_first(call, seq, node, other);
    call.waiting.clear();
    if (call.compared == size - 1) calls.erase(seq);
  }
  // The call `seq` of the first member of another process, `node` (process 0's progress
  // thread): compared with rank 0's, or kept until rank 0 calls it.
  void other_call(std::uint64_t seq, int node, KeptSignature sig) {
    const std::lock_guard lock(signature_mutex);
    CrossCall& call = calls[seq];
    if (!call.have_first) {
      call.waiting.emplace_back(node, std::move(sig));
      return;
    }
    compare_with_first(call, seq, node, sig);
    if (call.compared == size - 1) calls.erase(seq);
  }
  // Under signature_mutex: the error node would have thrown on one process, if its call
  // differs from rank 0's (the world is a spread machine's only group: rank r is node r).
  void compare_with_first(CrossCall& call, std::uint64_t seq, int node, const KeptSignature& sig) {
    ++call.compared;
    const CallSignature mine = sig.view();
    const std::string mismatch = compare_signatures(mine, call.first.view(), seq, node, node, 0, 0);
    if (mismatch.empty()) return;
    mismatches.push_back({node, "node " + std::to_string(node) + ": " +
                                    std::string(mine.operation) + ": " + mismatch});
    mismatched.store(true, std::memory_order_seq_cst);
  }

  void deliver(Payload bytes, std::size_t length) {
    if (length < sizeof(Trailer)) {
      throw std::logic_error("spread machine: a message from another process is cut short");
    }
    Trailer t;
    std::memcpy(&t, bytes.get() + length - sizeof t, sizeof t);
    if (!nodes->hosts(t.dst)) {
      throw std::logic_error("spread machine: a message for node " + std::to_string(t.dst) +
                             " reached a process that does not run it");
    }
    auto* msg = new Message;
    msg->comm = t.comm;
    msg->src = t.src;
    msg->tag = t.tag;
    msg->items = t.items;
    msg->send_index = t.send_index;
    msg->bytes = t.bytes;
    if (length > sizeof t) msg->payload = std::move(bytes);
    NodeState& target = *nodes->nodes[t.dst];
    target.incoming.enqueue(msg);
    nodes->wake(target);
    // Counted after the wake: a round never sees the message received before its node could.
    received.fetch_add(1, std::memory_order_seq_cst);
  }
};

SpreadNetwork::SpreadNetwork(MachineImpl& machine) : m(machine) {
  ensure_mpi();
  int level = 0;
  MPI_Query_thread(&level);
  if (level < MPI_THREAD_MULTIPLE) {
    throw UsageError("Machine: a machine spread over MPI processes needs MPI started with "
                     "MPI_THREAD_MULTIPLE (its progress thread and the thread that runs the "
                     "machine both call MPI); the program started MPI with less");
  }
  const MPI_Comm base = base_communicator(m.config);
  MPI_Comm_rank(base, &rank);
  MPI_Comm_size(base, &size);
  if (m.p < size) {
    throw UsageError("Machine: topology " + m.topology->spec() + " has " + std::to_string(m.p) +
                     " nodes, fewer than the " + std::to_string(size) +
                     " MPI processes it would be spread over: every process runs at least one "
                     "node (start fewer processes, or a machine of more nodes)");
  }
  first.resize(size + 1);
  const int block = m.p / size, extra = m.p % size;
  for (int k = 0; k <= size; ++k) first[k] = k * block + std::min(k, extra);
  // Every process makes the machine together: the count of processes on this host and the
  // two communicators are nonblocking collectives, waited for at most the watchdog time. A
  // process that does not make the machine ends the making on the others with an error; what
  // they posted is kept for the rest of the process (MPI may still complete it).
  struct Making {
    HostNames hosts;
    MPI_Comm data = MPI_COMM_NULL;
    MPI_Comm control = MPI_COMM_NULL;
    std::vector<MPI_Request> requests;
    explicit Making(MPI_Comm base) : hosts(base) {}
  };
  auto making = std::make_shared<Making>(base);
  making->requests = {making->hosts.request, MPI_REQUEST_NULL, MPI_REQUEST_NULL};
  check(MPI_Comm_idup(base, &making->data, &making->requests[1]), "MPI_Comm_idup");
  check(MPI_Comm_idup(base, &making->control, &making->requests[2]), "MPI_Comm_idup");
  if (!wait_within(making->requests, m.config.watchdog_seconds, spin)) {
    keep_for_the_process(making);
    throw UsageError("Machine: not every process of the spread machine made it within the "
                     "watchdog time (" + seconds_text(m.config.watchdog_seconds) +
                     "): every process of its communicator must make the same Machine");
  }
  here = making->hosts.count();
  data = making->data;
  control = making->control;
  if (placement().oversubscribed) spin = 50e-6;
  MPI_Comm_set_errhandler(data, MPI_ERRORS_RETURN);
  MPI_Comm_set_errhandler(control, MPI_ERRORS_RETURN);
  const char* send_env = std::getenv("VMC_SPREAD_SEND");
  direct = send_env != nullptr && std::string(send_env) == "direct";
  if (const char* fail_env = std::getenv("VMC_SPREAD_TEST_FAIL")) {
    const std::string text = fail_env;
    const std::size_t colon = text.find(':');
    for (int k = 1; k < static_cast<int>(std::size(kPhaseNames)); ++k) {
      if (colon != std::string::npos && text.substr(0, colon) == kPhaseNames[k]) {
        fail_at = static_cast<Phase>(k);
      }
    }
    try {
      std::size_t used = 0;
      if (fail_at != Phase::none) fail_process = std::stoi(text.substr(colon + 1), &used);
      if (used != text.size() - colon - 1) fail_at = Phase::none;
    } catch (const std::exception&) {
      fail_at = Phase::none;
    }
    if (fail_at == Phase::none) {
      throw UsageError("VMC_SPREAD_TEST_FAIL=" + text + ": expected phase:process, the phase "
                       "one of rounds, drain, errors, logs, outcome (a test hook: that process "
                       "of the spread machine stops at that phase of every run)");
    }
  }
}

NodePlacement SpreadNetwork::placement() const {
  const int cores = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  return NodePlacement{.lo = first[rank],
                       .hi = first[rank + 1],
                       .oversubscribed = here > cores,
                       .processes_here = here};
}

void SpreadNetwork::start(LocalNodes& local) {
  nodes = &local;
  progress = std::thread([this] { progress_main(); });
}

SpreadNetwork::~SpreadNetwork() {
  stopping.store(true, std::memory_order_release);
  outbox_signal.signal();
  if (progress.joinable()) progress.join();
  Queued o;
  while (outbox.try_dequeue(o)) release(o.msg);
  if (broken) {
    // Requests left unfinished may still use their buffers and communicators: both are kept
    // for the rest of the process.
    for (std::shared_ptr<void>& kept : left_behind) keep_for_the_process(std::move(kept));
    return;
  }
  std::pair<MPI_Request, Message*> h;
  while (posted.try_dequeue(h)) {
    MPI_Cancel(&h.first);
    MPI_Wait(&h.first, MPI_STATUS_IGNORE);
    release(h.second);
  }
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (!finalized) {
    if (data != MPI_COMM_NULL) MPI_Comm_free(&data);
    if (control != MPI_COMM_NULL) MPI_Comm_free(&control);
  }
}

namespace {

// A message to node dst of another process: its payload, its bytes (none on a timing-only
// machine) and then the trailer, to the progress thread (or posted here, VMC_SPREAD_SEND).
void send_away(SpreadNetwork& net, Message* msg, const void* data, int dst) {
  const std::size_t carried = net.m.config.data == Data::full ? msg->bytes : 0;
  msg->payload = make_payload(carried + sizeof(Trailer));
  if (carried > 0) std::memcpy(msg->payload.get(), data, carried);
  Trailer t;
  t.items = msg->items;
  t.send_index = msg->send_index;
  t.bytes = msg->bytes;
  t.tag = msg->tag;
  t.comm = msg->comm;
  t.src = msg->src;
  t.dst = dst;
  std::memcpy(msg->payload.get() + carried, &t, sizeof t);
  net.sent.fetch_add(1, std::memory_order_seq_cst);
  const int length = static_cast<int>(carried + sizeof t);
  if (net.direct) {
    const std::lock_guard mpi_lock(net.mpi_mutex);
    MPI_Request r = MPI_REQUEST_NULL;
    check(MPI_Isend(msg->payload.get(), length, MPI_BYTE, net.process_of(dst), kDataTag, net.data,
                    &r),
          "MPI_Isend");
    net.posted.enqueue({r, msg});
  } else {
    net.outbox.enqueue(Queued{msg, net.process_of(dst), length});
  }
  net.outbox_signal.signal();
}

// The signature of collective call `seq` of the first member here, `node`, to process 0.
void send_signature(SpreadNetwork& net, std::uint64_t seq, int node, const CallSignature& sig) {
  Writer w;
  w.put(seq);
  w.put(node);
  put_signature(w, sig);
  auto* msg = new Message;
  msg->payload = make_payload(w.out.size());
  std::memcpy(msg->payload.get(), w.out.data(), w.out.size());
  net.sent.fetch_add(1, std::memory_order_seq_cst);
  net.outbox.enqueue(Queued{msg, 0, static_cast<int>(w.out.size()), kSignatureTag});
  net.outbox_signal.signal();
}

}  // namespace

namespace {

// This process's nodes, ended: a machine broken in its run's end (give_up, and
// SpreadTransport::run when this process fails there).
void end_nodes(LocalNodes& m) {
  m.abort_run();
  while (m.running.load(std::memory_order_acquire) > 0) m.controller.wait(10'000);
}

// The run ends here on every process that reached this point, with `why` (a process did not
// answer): the machine runs no more (SpreadNetwork::broken).
[[noreturn]] void give_up(SpreadNetwork& net, LocalNodes& m, const std::string& why) {
  net.break_for_good(why);
  end_nodes(m);
  m.fail(RunError(RunError::Kind::watchdog, why, -1, std::vector<BlockedWait>{}));
}

// The test hook (VMC_SPREAD_TEST_FAIL, see the top of this file): this process stops at
// `phase` by throwing, as a process that throws there would (out of memory, say): its run
// ends (SpreadTransport::run) and it takes no further part in this run or any other.
void stop_if_asked(SpreadNetwork& net, Phase phase) {
  if (net.fail_at != phase || net.fail_process != net.rank) return;
  net.broken_why = "spread machine: process " + std::to_string(net.rank) + " stopped at " +
                   kPhaseNames[static_cast<int>(phase)] + " (VMC_SPREAD_TEST_FAIL)";
  throw std::runtime_error(net.broken_why);
}

// The report of processes that did not answer during `phase`.
std::string no_answer(const std::vector<int>& processes, Phase phase, double watchdog) {
  std::string who = processes.size() == 1 ? "process " : "processes ";
  for (std::size_t i = 0; i < processes.size(); ++i) {
    who += (i == 0 ? "" : ", ") + std::to_string(processes[i]);
  }
  return "spread machine: " + who + " did not answer within the watchdog time (" +
         seconds_text(watchdog) + ") during " + doing(phase) +
         ": the run was ended, and this machine cannot run again";
}

// Every process takes part in Machine::everywhere (bounded by the watchdog time).
bool everywhere_among(SpreadNetwork& net, bool mine) {
  if (net.broken) {
    throw UsageError("Machine::everywhere: this spread machine cannot be used again: " +
                     net.broken_why);
  }
  // On the heap: a request given up on keeps them (left_behind).
  auto values = std::make_shared<std::array<int, 2>>(std::array<int, 2>{mine ? 1 : 0, 0});
  MPI_Request request = MPI_REQUEST_NULL;
  {
    const std::lock_guard mpi_lock(net.mpi_mutex);
    check(MPI_Iallreduce(&(*values)[0], &(*values)[1], 1, MPI_INT, MPI_LAND, net.control,
                         &request),
          "MPI_Iallreduce");
  }
  const auto start = std::chrono::steady_clock::now();
  for (int done = 0;;) {
    {
      const std::lock_guard mpi_lock(net.mpi_mutex);
      check(MPI_Test(&request, &done, MPI_STATUS_IGNORE), "MPI_Test");
    }
    if (done) return (*values)[1] != 0;
    const double waited =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (waited > net.m.config.watchdog_seconds) {
      net.left_behind.push_back(values);
      throw UsageError("Machine::everywhere: " +
                       net.break_for_good("not every process took part in Machine::everywhere "
                                          "within the watchdog time (" +
                                          seconds_text(net.m.config.watchdog_seconds) + ")") +
                       ": every process must call it; this machine cannot be used again");
    }
    back_off(waited, net.spin);
  }
}

// Every process starts the run together (a bounded wait).
void begin_run(SpreadNetwork& net) {
  if (net.broken) {
    throw UsageError("spread machine: this machine cannot run again: " + net.broken_why);
  }
  {
    const std::lock_guard lock(net.signature_mutex);
    net.calls.clear();
    net.mismatches.clear();
    net.mismatched.store(false, std::memory_order_seq_cst);
  }
  // Every process arrives (bounded: a process that never starts the run ends it here).
  MPI_Request barrier = MPI_REQUEST_NULL;
  {
    const std::lock_guard mpi_lock(net.mpi_mutex);
    net.active = true;
    check(MPI_Ibarrier(net.control, &barrier), "MPI_Ibarrier");
  }
  net.outbox_signal.signal();  // the progress thread, from its idle wait
  const auto start = std::chrono::steady_clock::now();
  for (int done = 0;;) {
    {
      const std::lock_guard mpi_lock(net.mpi_mutex);
      check(MPI_Test(&barrier, &done, MPI_STATUS_IGNORE), "MPI_Test");
    }
    if (done) return;
    const double waited =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (waited > net.m.config.watchdog_seconds) {
      throw UsageError("spread machine: " +
                       net.break_for_good("not every process started a run within the watchdog "
                                          "time (" +
                                          seconds_text(net.m.config.watchdog_seconds) + ")") +
                       ": every process must call run on its Machine");
    }
    back_off(waited, net.spin);
  }
}

// --- the exchanges after the verdict ---------------------------------------------------------
// Each is a star through process 0, every wait bounded: the other processes send it their
// records, and it sends each the answer it makes of them. A record is its size (a uint64),
// then its bytes in pieces of at most kChunk, all on the exchange's tag; the size
// kStillWorking is no record but word from process 0 that it is still making the answer.
constexpr std::uint64_t kStillWorking = ~std::uint64_t{0};

// A record on its way out (its bytes may be shared by the sends to every process).
struct RecordOut {
  std::shared_ptr<const std::vector<char>> bytes;
  std::uint64_t size = 0;
  std::vector<MPI_Request> requests;
};
// A record on its way in from one process.
struct RecordIn {
  int from = 0;
  int tag = 0;
  std::uint64_t size = 0;
  std::vector<char> bytes;
  std::vector<MPI_Request> requests;  // the size's, then the pieces'
  bool sized = false;
  bool done = false;
  std::chrono::steady_clock::time_point heard = std::chrono::steady_clock::now();  // last word
};

std::unique_ptr<RecordOut> post_record(SpreadNetwork& net, int to, int tag,
                                       std::shared_ptr<const std::vector<char>> bytes) {
  auto out = std::make_unique<RecordOut>();
  out->bytes = std::move(bytes);
  out->size = out->bytes->size();
  const std::lock_guard mpi_lock(net.mpi_mutex);
  out->requests.emplace_back();
  check(MPI_Isend(&out->size, 1, MPI_UINT64_T, to, tag, net.control, &out->requests.back()),
        "MPI_Isend");
  for (std::size_t at = 0; at < out->bytes->size(); at += kChunk) {
    const int n = static_cast<int>(std::min(kChunk, out->bytes->size() - at));
    out->requests.emplace_back();
    check(MPI_Isend(out->bytes->data() + at, n, MPI_BYTE, to, tag, net.control,
                    &out->requests.back()),
          "MPI_Isend");
  }
  return out;
}

std::unique_ptr<RecordIn> expect_record(SpreadNetwork& net, int from, int tag) {
  auto in = std::make_unique<RecordIn>();
  in->from = from;
  in->tag = tag;
  const std::lock_guard mpi_lock(net.mpi_mutex);
  in->requests.emplace_back();
  check(MPI_Irecv(&in->size, 1, MPI_UINT64_T, from, tag, net.control, &in->requests.back()),
        "MPI_Irecv");
  return in;
}

bool finished(SpreadNetwork& net, std::vector<MPI_Request>& requests) {
  int flag = 0;
  const std::lock_guard mpi_lock(net.mpi_mutex);
  check(MPI_Testall(static_cast<int>(requests.size()), requests.data(), &flag,
                    MPI_STATUSES_IGNORE),
        "MPI_Testall");
  return flag != 0;
}

// Takes what has come of `in` without waiting; whether it was word that process 0 is still
// making its answer.
bool poll(SpreadNetwork& net, RecordIn& in) {
  if (in.done || !finished(net, in.requests)) return false;
  const std::lock_guard mpi_lock(net.mpi_mutex);
  in.requests.clear();
  if (!in.sized && in.size == kStillWorking) {
    in.heard = std::chrono::steady_clock::now();
    in.requests.emplace_back();
    check(MPI_Irecv(&in.size, 1, MPI_UINT64_T, in.from, in.tag, net.control,
                    &in.requests.back()),
          "MPI_Irecv");
    return true;
  }
  if (in.sized) {
    in.done = true;
    return false;
  }
  in.sized = true;
  in.bytes.resize(in.size);
  for (std::size_t at = 0; at < in.bytes.size(); at += kChunk) {
    const int n = static_cast<int>(std::min(kChunk, in.bytes.size() - at));
    in.requests.emplace_back();
    check(MPI_Irecv(in.bytes.data() + at, n, MPI_BYTE, in.from, in.tag, net.control,
                    &in.requests.back()),
          "MPI_Irecv");
  }
  in.done = in.requests.empty();
  return false;
}

// The records of one exchange. Those unfinished when it ends (a process that did not answer,
// or an exception here) are left to MPI, which may still use their buffers: their receives
// cancelled, their sends let go, the buffers kept (SpreadNetwork::left_behind).
struct InFlight {
  SpreadNetwork& net;
  std::vector<std::unique_ptr<RecordIn>> in;
  std::vector<std::unique_ptr<RecordOut>> out;
  explicit InFlight(SpreadNetwork& n) : net(n) {}
  InFlight(const InFlight&) = delete;
  InFlight& operator=(const InFlight&) = delete;
  ~InFlight() {
    const std::lock_guard mpi_lock(net.mpi_mutex);
    for (auto& r : in) {
      if (r->done) continue;
      for (MPI_Request& q : r->requests) {
        if (q == MPI_REQUEST_NULL) continue;
        MPI_Cancel(&q);
        MPI_Request_free(&q);
      }
      net.left_behind.push_back(std::shared_ptr<RecordIn>(std::move(r)));
    }
    for (auto& r : out) {
      bool pending = false;
      for (MPI_Request& q : r->requests) {
        if (q == MPI_REQUEST_NULL) continue;
        MPI_Request_free(&q);  // the send goes on, or not, on its own
        pending = true;
      }
      if (pending) net.left_behind.push_back(std::shared_ptr<RecordOut>(std::move(r)));
    }
  }
};

// Word that this process is at work on its part of the exchange on `tag`: process 0's to every
// other process, the others' to process 0.
void say_at_work(SpreadNetwork& net, int tag) {
  const std::lock_guard mpi_lock(net.mpi_mutex);
  for (int k = 0; k < net.size; ++k) {
    if (k == net.rank || (net.rank != 0 && k != 0)) continue;
    MPI_Request r = MPI_REQUEST_NULL;
    check(MPI_Isend(&kStillWorking, 1, MPI_UINT64_T, k, tag, net.control, &r), "MPI_Isend");
    MPI_Request_free(&r);  // a constant's word: nothing to keep
  }
}
// The same from a waiting loop: once every quarter of the watchdog time (`maybe`).
struct AtWork {
  SpreadNetwork& net;
  int tag;
  std::chrono::steady_clock::time_point last = std::chrono::steady_clock::now();
  void maybe() {
    const auto now = std::chrono::steady_clock::now();
    if (std::chrono::duration<double>(now - last).count() < net.m.config.watchdog_seconds / 4) {
      return;
    }
    last = now;
    say_at_work(net, tag);
  }
};

// Runs `make` on this thread while another says every quarter of the watchdog time that this
// process is at work (say_at_work): process 0 makes the answer of the logs as long as the
// discrete-event pass takes.
template <class F>
auto with_word_of_work(SpreadNetwork& net, int tag, F make) {
  std::mutex mutex;
  std::condition_variable cv;
  bool done = false;
  const auto every = std::chrono::duration<double>(net.m.config.watchdog_seconds / 4);
  std::thread word([&] {
    std::unique_lock lock(mutex);
    while (!cv.wait_for(lock, every, [&] { return done; })) say_at_work(net, tag);
  });
  struct Join {
    std::mutex& mutex;
    std::condition_variable& cv;
    bool& done;
    std::thread& word;
    ~Join() {
      {
        const std::lock_guard lock(mutex);
        done = true;
      }
      cv.notify_one();
      word.join();
    }
  } join{mutex, cv, done, word};
  return make();
}

// One exchange through process 0 during `phase`: every process's record on `tag` to process 0,
// which makes the answer of them (`answer`, given the records in process order, its own
// first) and sends it to every process; the answer, on every process. Each waits until the
// watchdog time has passed since it last heard from the other side: process 0 from each
// process whose record has not come (word from one still ending its nodes before the drain),
// the others from process 0, which says every quarter of the watchdog time that it is at work
// while it waits for records, and while it makes the answer (with `word_of_work`). Whoever did
// not answer ends the run on every process that did, with one report naming them and the
// phase (give_up): process 0 sends it to every process.
template <class Answer>
std::vector<char> through_first(SpreadNetwork& net, LocalNodes& m, Phase phase, int tag,
                                std::vector<char> mine, Answer answer, bool word_of_work = false) {
  using Clock = std::chrono::steady_clock;
  const double watchdog = m.machine.config.watchdog_seconds;
  stop_if_asked(net, phase);
  InFlight flight(net);
  std::vector<char> reply;
  if (net.rank != 0) {
    flight.out.push_back(
        post_record(net, 0, tag, std::make_shared<const std::vector<char>>(std::move(mine))));
    flight.in.push_back(expect_record(net, 0, tag));
    RecordIn& in = *flight.in.back();
    auto heard = Clock::now();
    bool sent = false;
    for (;;) {
      if (poll(net, in)) heard = Clock::now();
      if (in.done) break;
      if (!sent && finished(net, flight.out.back()->requests)) {
        sent = true;
        if (phase == Phase::logs) stop_if_asked(net, Phase::outcome);
      }
      const double waited = std::chrono::duration<double>(Clock::now() - heard).count();
      if (waited > watchdog) give_up(net, m, no_answer({0}, phase, watchdog));
      back_off(waited, net.spin);
    }
    // Sent, since process 0 answered (let go if not yet seen to be).
    finished(net, flight.out.back()->requests);
    reply = std::move(in.bytes);
  } else {
    for (int k = 1; k < net.size; ++k) flight.in.push_back(expect_record(net, k, tag));
    const auto start = Clock::now();
    AtWork word{net, tag};
    std::vector<int> missing;
    for (bool late = false; !late;) {
      word.maybe();
      missing.clear();
      const auto now = Clock::now();
      for (auto& in : flight.in) {
        poll(net, *in);
        if (in->done) continue;
        missing.push_back(in->from);
        late = late || std::chrono::duration<double>(now - in->heard).count() > watchdog;
      }
      if (missing.empty()) break;
      back_off(std::chrono::duration<double>(now - start).count(), net.spin);
    }
    Writer w;
    if (missing.empty()) {
      std::vector<std::vector<char>> records;
      records.push_back(std::move(mine));
      for (auto& in : flight.in) records.push_back(std::move(in->bytes));
      const auto make = [&] {
        if (phase == Phase::logs) stop_if_asked(net, Phase::outcome);
        return answer(records);
      };
      w.put<int>(0);
      const std::vector<char> made = word_of_work ? with_word_of_work(net, tag, make) : make();
      w.out.insert(w.out.end(), made.begin(), made.end());
    } else {
      w.put<int>(1);
      w.put_string(no_answer(missing, phase, watchdog));
    }
    // To every process, those that did not answer too: one late, not gone, reads the same.
    auto shared = std::make_shared<const std::vector<char>>(std::move(w.out));
    for (int k = 1; k < net.size; ++k) flight.out.push_back(post_record(net, k, tag, shared));
    const auto sending = Clock::now();
    for (;;) {
      bool all = true;
      for (int k = 1; k < net.size; ++k) {
        const bool answered = std::find(missing.begin(), missing.end(), k) == missing.end();
        if (answered && !finished(net, flight.out[k - 1]->requests)) all = false;
      }
      const double waited = std::chrono::duration<double>(Clock::now() - sending).count();
      if (all || waited > watchdog) break;  // a send unfinished by then is let go (InFlight)
      back_off(waited, net.spin);
    }
    reply = *shared;
  }
  Reader r{reply.data(), reply.data() + reply.size()};
  if (r.get<int>() != 0) give_up(net, m, r.get_string());
  reply.erase(reply.begin(), reply.begin() + sizeof(int));
  return reply;
}

// Until every message sent to another process in this run has been received there: process 0
// sums what every process sent and received, again every 200 us, for at most the watchdog
// time.
void drain(SpreadNetwork& net, LocalNodes& m) {
  const auto start = std::chrono::steady_clock::now();
  for (;;) {
    Writer w;
    w.put<std::uint64_t>(net.sent.load(std::memory_order_seq_cst));
    w.put<std::uint64_t>(net.received.load(std::memory_order_seq_cst));
    const std::vector<char> state = through_first(
        net, m, Phase::drain, kDrainTag, std::move(w.out),
        [&](const std::vector<std::vector<char>>& records) {
          std::uint64_t sent = 0, received = 0;
          for (const std::vector<char>& bytes : records) {
            Reader r{bytes.data(), bytes.data() + bytes.size()};
            sent += r.get<std::uint64_t>();
            received += r.get<std::uint64_t>();
          }
          Writer a;
          const double waited =
              std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
          if (sent == received) {
            a.put<int>(0);
          } else if (waited > m.machine.config.watchdog_seconds) {
            a.put<int>(2);
            a.put_string("spread machine: " + std::to_string(sent - received) + " of the " +
                         std::to_string(sent) + " messages sent between processes were not "
                         "received within the watchdog time (" +
                         seconds_text(m.machine.config.watchdog_seconds) +
                         ") after the run's end: the run was ended, and this machine cannot "
                         "run again");
          } else {
            a.put<int>(1);
          }
          return a.out;
        });
    Reader r{state.data(), state.data() + state.size()};
    const int verdict = r.get<int>();
    if (verdict == 0) return;
    if (verdict == 2) give_up(net, m, r.get_string());
    std::this_thread::sleep_for(std::chrono::microseconds(200));
  }
}

// Every process's records, in process order, to every process (through process 0).
std::vector<std::vector<char>> share(SpreadNetwork& net, LocalNodes& m, Phase phase, int tag,
                                     std::vector<char> mine) {
  const std::vector<char> all =
      through_first(net, m, phase, tag, std::move(mine),
                    [](const std::vector<std::vector<char>>& records) {
                      Writer w;
                      for (const std::vector<char>& bytes : records) w.put_vector(bytes);
                      return w.out;
                    });
  std::vector<std::vector<char>> records;
  Reader r{all.data(), all.data() + all.size()};
  while (r.at != r.end) r.get_vector(records.emplace_back());
  return records;
}

// Messages left in mailboxes, from a process to process 0.
void put_unreceived(Writer& w, const std::vector<Unreceived>& left) {
  w.put<std::uint64_t>(left.size());
  for (const Unreceived& u : left) {
    w.put(u.node);
    w.put(u.src);
    w.put(u.tag);
    w.put(u.comm);
    w.put(u.bytes);
  }
}
void get_unreceived(Reader& r, std::vector<Unreceived>& left) {
  for (auto k = r.get<std::uint64_t>(); k > 0; --k) {
    Unreceived u;
    u.node = r.get<int>();
    u.src = r.get<int>();
    u.tag = r.get<long long>();
    u.comm = r.get<unsigned>();
    u.bytes = r.get<std::size_t>();
    left.push_back(u);
  }
}

// For process 0: the messages this process's nodes left in their mailboxes (every message
// sent has arrived: drain), then the nodes' logs.
std::vector<char> logs_record(LocalNodes& m) {
  Writer w;
  put_unreceived(w, m.left_in_mailboxes());
  for (auto& n : m.local()) {
    // Whole: a spread machine's pass runs after the run, and drops nothing.
    w.put_vector(n->log.ops.to_vector());
    w.put_vector(n->log.request_lists.to_vector());
  }
  return w.out;
}

// On process 0: the other processes' nodes' logs, read from each process's record where
// `readers` are (after its messages left unreceived), kept in remote_logs, each record freed
// once read (the logs are held about once, not twice).
void keep_logs(SpreadNetwork& net, LocalNodes& m, std::vector<std::vector<char>>& records,
               std::vector<Reader>& readers) {
  m.remote_logs.assign(m.p, NodeLog{});
  for (int k = 1; k < net.size; ++k) {
    Reader& r = readers[k];
    for (int node = net.first[k]; node < net.first[k + 1]; ++node) {
      NodeLog& log = m.remote_logs[node];
      std::vector<OpRecord> ops;
      std::vector<std::uint32_t> lists;
      r.get_vector(ops);
      r.get_vector(lists);
      log.ops.assign(ops);
      log.request_lists.assign(lists);
    }
    std::vector<char>().swap(records[k]);
  }
}

// The run's outcome, made on process 0 from every process's record: 0 and the statistics, 1 and
// a schedule deadlock's report, 2, a node and a report (a collective call that differs
// between processes, first; or the pass's own error, under node -1), or 3, a node and the
// report of messages left unreceived (before the pass, as on one process).
std::vector<char> outcome(SpreadNetwork& net, LocalNodes& m,
                          std::vector<std::vector<char>>& records, Stats& stats, Trace& trace) {
  Writer w;
  {
    const std::lock_guard lock(net.signature_mutex);
    if (!net.mismatches.empty()) {
      const ErrorRecord& e = net.mismatches.front();
      w.put<int>(2);
      w.put<int>(e.node);
      w.put_string(threw_report(e.node, e.what, net.mismatches.size()));
      return w.out;
    }
  }
  // Every process's messages left unreceived, in one report as one process gives it
  // (LocalNodes::unreceived): process 0's own, then each other process's.
  std::vector<Unreceived> left = m.left_in_mailboxes();
  std::vector<Reader> readers(net.size, Reader{nullptr, nullptr});
  for (int k = 1; k < net.size; ++k) {
    readers[k] = Reader{records[k].data(), records[k].data() + records[k].size()};
    get_unreceived(readers[k], left);
  }
  if (!left.empty()) {
    const RunError e = unreceived_error(std::move(left));
    w.put<int>(3);
    w.put<int>(e.node());
    w.put_string(e.what());
    return w.out;
  }
  keep_logs(net, m, records, readers);
  try {
    std::lock_guard lock(m.sim_mutex);
    if (m.sim == nullptr) m.sim = start_simulation(m, false);
    finish_simulation(m, *m.sim, stats, trace);
    w.put<int>(0);
    put_stats(w, stats);
  } catch (const ScheduleDeadlock& e) {
    w.put<int>(1);
    w.put_string(e.what());
  } catch (const std::exception& e) {
    w.put<int>(2);
    w.put<int>(-1);
    w.put_string(e.what());
  }
  return w.out;
}

// This process's errors and blocked nodes (on process 0, the collective calls that differ
// between processes first: what followed came of them).
std::vector<char> errors_record(SpreadNetwork& net, LocalNodes& m,
                                const std::vector<BlockedWait>& waits) {
  std::vector<ErrorRecord> errors;
  {
    const std::lock_guard lock(net.signature_mutex);
    errors = net.mismatches;
  }
  {
    std::lock_guard lock(m.error_mutex);
    errors.insert(errors.end(), m.errors.begin(), m.errors.end());
  }
  Writer w;
  w.put<std::uint64_t>(errors.size());
  for (const ErrorRecord& e : errors) {
    w.put(e.node);
    w.put_string(e.what);
  }
  w.put<std::uint64_t>(waits.size());
  for (const BlockedWait& b : waits) {
    w.put(b.node);
    w.put_string(b.operation);
    w.put(b.peer);
    w.put(b.peer_world);
    w.put(b.tag);
    w.put(b.comm);
  }
  return w.out;
}

// The controller's side of a run, from the release of this process's nodes to its end: the
// run's statistics (and, on process 0, its trace), or RunError, the nodes reset either way.
void watch_rounds(SpreadNetwork& net, LocalNodes& m, Stats& stats, Trace& trace) {
  using Clock = std::chrono::steady_clock;
  // A round's values, out and in, on the heap: a round given up on keeps them (left_behind).
  auto round_values = std::make_shared<std::array<std::int64_t, 2 * kFields>>();
  std::int64_t* out = round_values->data();
  std::int64_t* in = round_values->data() + kFields;
  std::int64_t prev[kFields] = {};
  bool have_prev = false;
  bool stalled = false;
  MPI_Request round = MPI_REQUEST_NULL;
  struct KeepIfPending {  // a round given up on (or left by an exception) keeps its values
    SpreadNetwork& net;
    const MPI_Request& round;
    std::shared_ptr<void> values;
    ~KeepIfPending() {
      if (round != MPI_REQUEST_NULL) net.left_behind.push_back(values);
    }
  } keep_if_pending{net, round, round_values};
  auto round_start = Clock::now();
  std::uint64_t suspect = ~0ull;
  std::int64_t last_progress_sum = -1;
  auto last_progress = Clock::now();
  Verdict verdict = Verdict::go_on;
  while (verdict == Verdict::go_on) {
    const bool running = m.running.load(std::memory_order_acquire) > 0;
    if (round == MPI_REQUEST_NULL) {
      stop_if_asked(net, Phase::rounds);
      // What this process sees: whether its unfinished nodes are all blocked, confirmed as
      // on one process (LocalNodes::watch) once each has looked again at the same activity.
      const std::uint64_t a = m.activity.load(std::memory_order_seq_cst);
      const bool quiet = !running || m.blocked_confirmed(a, suspect);
      bool failed = net.mismatched.load(std::memory_order_seq_cst);
      {
        std::lock_guard lock(m.error_mutex);
        failed = failed || !m.errors.empty();
      }
      out[kRunning] = running ? 1 : 0;
      out[kNotQuiet] = quiet ? 0 : 1;
      out[kSent] = static_cast<std::int64_t>(net.sent.load(std::memory_order_seq_cst));
      out[kReceived] = static_cast<std::int64_t>(net.received.load(std::memory_order_seq_cst));
      out[kFailed] = failed ? 1 : 0;
      out[kStalled] = stalled ? 1 : 0;
      out[kActivity] = static_cast<std::int64_t>(a);
      const std::lock_guard mpi_lock(net.mpi_mutex);
      check(MPI_Iallreduce(out, in, kFields, MPI_INT64_T, MPI_SUM, net.control, &round),
            "MPI_Iallreduce");
      round_start = Clock::now();
    }
    int done = 0;
    {
      const std::lock_guard mpi_lock(net.mpi_mutex);
      check(MPI_Test(&round, &done, MPI_STATUS_IGNORE), "MPI_Test");
    }
    if (!done) {
      if (std::chrono::duration<double>(Clock::now() - round_start).count() >
          m.machine.config.watchdog_seconds) {
        // A process stopped taking part (it died, or never called run): no agreement can be
        // had. This process's nodes end, and the run with them; the machine cannot run again.
        give_up(net, m,
                "no word from every process of the spread machine for " +
                    seconds_text(m.machine.config.watchdog_seconds) +
                    " (one stopped, or did not call run): the run was ended");
      }
      m.controller.wait(1'000);
      continue;
    }
    // Every process judges the same sums: the same verdict everywhere, in the same round.
    const auto now = Clock::now();
    const std::int64_t progress_sum = in[kSent] + in[kReceived] + in[kActivity];
    if (progress_sum != last_progress_sum) {
      last_progress_sum = progress_sum;
      last_progress = now;
    }
    stalled = std::chrono::duration<double>(now - last_progress).count() >
              m.machine.config.watchdog_seconds;
    if (in[kFailed] > 0) {
      verdict = Verdict::failed;
    } else if (in[kStalled] > 0) {
      verdict = Verdict::watchdog;
    } else if (in[kRunning] == 0) {
      verdict = Verdict::finished;
    } else if (in[kNotQuiet] == 0 && in[kSent] == in[kReceived] && have_prev &&
               prev[kNotQuiet] == 0 && prev[kSent] == in[kSent] &&
               prev[kReceived] == in[kReceived] && prev[kActivity] == in[kActivity]) {
      verdict = Verdict::deadlock;
    }
    std::copy(in, in + kFields, prev);
    have_prev = true;
    // The next round after a pause: 2 ms while this process waits for the others or
    // suspects a deadlock, else 5 ms.
    if (verdict == Verdict::go_on) {
      const bool soon = !running || suspect != ~0ull || in[kNotQuiet] == 0;
      m.controller.wait(soon ? 2'000 : 5'000);
      m.woke_stale = false;
    }
  }

  std::vector<BlockedWait> waits;
  if (verdict == Verdict::deadlock || verdict == Verdict::watchdog) {
    waits = m.blocked_waits(verdict == Verdict::watchdog);
  }
  if (verdict != Verdict::finished) m.abort_run();
  // A node computing ends at its next call of vmc: the others hear meanwhile that this process
  // is at work (their wait for its part of the drain starts again).
  for (AtWork word{net, kDrainTag}; m.running.load(std::memory_order_acquire) > 0;) {
    m.controller.wait(10'000);
    word.maybe();
  }
  drain(net, m);
  {
    const std::lock_guard mpi_lock(net.mpi_mutex);
    net.active = false;
  }

  if (verdict != Verdict::finished) {
    // Every process's errors and blocked nodes, in process order, to every process.
    std::vector<ErrorRecord> errors;
    const std::vector<std::vector<char>> records =
        share(net, m, Phase::errors, kErrorsTag, errors_record(net, m, waits));
    waits.clear();
    for (const std::vector<char>& bytes : records) {
      Reader r{bytes.data(), bytes.data() + bytes.size()};
      for (auto k = r.get<std::uint64_t>(); k > 0; --k) {
        ErrorRecord e;
        e.node = r.get<int>();
        e.what = r.get_string();
        errors.push_back(std::move(e));
      }
      for (auto k = r.get<std::uint64_t>(); k > 0; --k) {
        BlockedWait b;
        b.node = r.get<int>();
        b.operation = r.get_string();
        b.peer = r.get<int>();
        b.peer_world = r.get<int>();
        b.tag = r.get<long long>();
        b.comm = r.get<unsigned>();
        waits.push_back(std::move(b));
      }
    }
    // A collective call that differed between processes may be found only once every
    // message has arrived (drain): an error then is the report, before a deadlock.
    if (verdict != Verdict::watchdog && !errors.empty()) {
      const ErrorRecord& e = errors.front();
      m.fail(RunError(RunError::Kind::node_threw, threw_report(e.node, e.what, errors.size()),
                      e.node, std::vector<BlockedWait>{}));
    }
    if (verdict == Verdict::watchdog) {
      m.fail(watchdog_error(m.machine.config.watchdog_seconds, std::move(waits),
                            " on any of the " + std::to_string(net.size) +
                                " processes of the spread machine"));
    }
    m.fail(deadlock_error(std::move(waits)));
  }

  // Every node returned: process 0 gathers every process's messages left unreceived and every
  // node's log, reports the messages as one process would, or else runs the discrete-event
  // pass over the logs, and tells every process what it found.
  const std::vector<char> result = through_first(
      net, m, Phase::logs, kLogTag, net.rank == 0 ? std::vector<char>{} : logs_record(m),
      [&](std::vector<std::vector<char>>& records) {
        return outcome(net, m, records, stats, trace);
      },
      true);
  Reader r{result.data(), result.data() + result.size()};
  const int status = r.get<int>();
  if (status == 1) {
    m.fail(RunError(RunError::Kind::deadlock, r.get_string(), -1, std::vector<BlockedWait>{}));
  }
  if (status == 2 || status == 3) {
    const int node = r.get<int>();
    m.fail(RunError(status == 2 ? RunError::Kind::node_threw : RunError::Kind::unreceived,
                    r.get_string(), node, std::vector<BlockedWait>{}));
  }
  if (net.rank != 0) stats = get_stats(r);
  if (net.rank != 0 || !m.machine.config.trace) trace = Trace{};
  m.reset();
}

class SpreadTransport final : public VirtualClock {
 public:
  SpreadTransport(MachineImpl& m, std::unique_ptr<SpreadNetwork> net)
      : VirtualClock(m, net->placement()), net_(std::move(net)) {
    net_->start(nodes_);
  }
  ~SpreadTransport() override { net_.reset(); }  // before the nodes its thread delivers to

  void run(CommGroup& world, const NodeBody& body, Stats& stats, Trace& trace) override {
    begin_run(*net_);  // every process's run starts together
    world.local_members = nodes_.hi - nodes_.lo;
    nodes_.start(body);
    try {
      watch_rounds(*net_, nodes_, stats, trace);
    } catch (const RunError&) {
      throw;  // the run's report, the nodes reset
    } catch (...) {
      // This process failed in the middle of the run's end (out of memory, say): the others
      // give up on it within their watchdog time, and this machine runs no more.
      net_->break_for_good("this process failed in a run's end");
      end_nodes(nodes_);
      nodes_.reset();
      throw;
    }
  }

  std::string compare_call(NodeState& self, CommGroup& g, int rank, std::uint64_t seq,
                           const CallSignature& mine, CompareCall compare) override {
    // Among this process's members, as on one process; then the first member here (the
    // world is a spread machine's only group: its rank is its node) against rank 0's call,
    // on process 0 (SpreadNetwork::CrossCall).
    std::string mismatch = VirtualClock::compare_call(self, g, rank, seq, mine, compare);
    if (!mismatch.empty() || net_->size == 1 || !g.whole || rank != nodes_.lo) return mismatch;
    if (net_->rank == 0) {
      net_->first_call(seq, mine);
    } else {
      send_signature(*net_, seq, rank, mine);
    }
    return mismatch;
  }

  bool everywhere(bool mine) override { return everywhere_among(*net_, mine); }

  std::string refuses(const NodeState&, const Outgoing& out) const override {
    // Between processes a message is one MPI message: its bytes and the trailer.
    const std::size_t most =
        static_cast<std::size_t>(std::numeric_limits<int>::max()) - sizeof(Trailer);
    if (nodes_.hosts(out.dst) || out.bytes <= most) return {};
    return "message of " + std::to_string(out.bytes) + " bytes: between the processes of a "
           "spread machine a message carries at most " + std::to_string(most) +
           " bytes (one MPI message)";
  }

  const char* unsupported(Call call) const override {
    switch (call) {
      case Call::split:
      case Call::create_group:
        return "a machine spread over MPI processes does not split its groups or make new "
               "ones yet (their members would have to be agreed among the processes): run on "
               "the world, or on the local transport";
      case Call::wait_any:
      case Call::test:
        return "a machine spread over MPI processes does not answer wait_any or test on the "
               "virtual clock yet (the answer comes from the discrete-event pass over every "
               "node's log, which runs after the run there): use wait or wait_all";
      case Call::wildcard:
      case Call::probe:
      case Call::cancel:
        return "a machine spread over MPI processes does not decide receives from any "
               "source, probes or cancels yet (the answer comes from the discrete-event pass, "
               "which runs after the run there): name the source and tag";
    }
    return nullptr;
  }

 protected:
  bool simulates_during_run() const override { return false; }
  void send_elsewhere(Message* msg, const Outgoing& out) override {
    send_away(*net_, msg, out.data, out.dst);
  }

 private:
  std::unique_ptr<SpreadNetwork> net_;
};

}  // namespace

std::unique_ptr<Transport> make_spread(MachineImpl& m) {
  auto net = std::make_unique<SpreadNetwork>(m);
  return std::make_unique<SpreadTransport>(m, std::move(net));
}

}  // namespace vmc::detail
