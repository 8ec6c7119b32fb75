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
// Before the machine is reset, the processes wait until every message sent was received, so
// that none is left to be matched by the next run.
//
// Not yet offered on a spread machine, each refused with an error naming the node: split (its
// colours and keys would have to be agreed among the processes), and wait_any and test on the
// virtual clock (their answers come from the discrete-event pass, which runs after the run
// here). The collective call signatures are compared among the members in one process. The
// real clock is refused: a link token held for real in one process cannot be held by a node
// of another without a round trip between them, which would be the network's time, not the
// model's.
#include <mpi.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <mutex>
#include <thread>
#include <type_traits>

#include "runtime/mpi_common.hpp"
#include "runtime/run_errors.hpp"
#include "runtime/virtual_clock.hpp"

namespace vmc::detail {

namespace {

constexpr int kDataTag = 0;
constexpr int kLogTag = 1;

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
  void put_string(const std::string& s) {
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
                          batch[i].process, kDataTag, data, &r),
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
        check(MPI_Improbe(MPI_ANY_SOURCE, kDataTag, data, &flag, &handle, &status),
              "MPI_Improbe");
        if (!flag) break;
        int length = 0;
        MPI_Get_count(&status, MPI_BYTE, &length);
        Payload bytes = make_payload(static_cast<std::size_t>(length));
        check(MPI_Mrecv(bytes.get(), length, MPI_BYTE, &handle, MPI_STATUS_IGNORE), "MPI_Mrecv");
        deliver(std::move(bytes), static_cast<std::size_t>(length));
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
    for (std::size_t i = 0; i < requests.size(); ++i) {
      MPI_Cancel(&requests[i]);
      MPI_Wait(&requests[i], MPI_STATUS_IGNORE);
      release(in_flight[i]);
    }
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
  here = processes_here(base);
  if (placement().oversubscribed) spin = 50e-6;
  check(MPI_Comm_dup(base, &data), "MPI_Comm_dup");
  check(MPI_Comm_dup(base, &control), "MPI_Comm_dup");
  MPI_Comm_set_errhandler(data, MPI_ERRORS_RETURN);
  MPI_Comm_set_errhandler(control, MPI_ERRORS_RETURN);
  const char* send_env = std::getenv("VMC_SPREAD_SEND");
  direct = send_env != nullptr && std::string(send_env) == "direct";
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

}  // namespace

namespace {

bool everywhere_among(SpreadNetwork& net, bool mine) {
  int all = mine ? 1 : 0;
  const std::lock_guard mpi_lock(net.mpi_mutex);
  check(MPI_Allreduce(MPI_IN_PLACE, &all, 1, MPI_INT, MPI_LAND, net.control), "MPI_Allreduce");
  return all != 0;
}

// Every process starts the run together (a bounded wait).
void begin_run(SpreadNetwork& net) {
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
      throw UsageError("spread machine: not every process started the run within the watchdog "
                       "time (" + std::to_string(net.m.config.watchdog_seconds) +
                       " s): every process must call run on its Machine");
    }
    back_off(waited, net.spin);
  }
}

// Blocks until every message sent to another process in this run has been received there.
void drain(SpreadNetwork& net) {
  for (;;) {
    std::uint64_t counts[2] = {net.sent.load(std::memory_order_seq_cst),
                               net.received.load(std::memory_order_seq_cst)};
    {
      const std::lock_guard mpi_lock(net.mpi_mutex);
      check(MPI_Allreduce(MPI_IN_PLACE, counts, 2, MPI_UINT64_T, MPI_SUM, net.control),
            "MPI_Allreduce");
    }
    if (counts[0] == counts[1]) return;
    std::this_thread::sleep_for(std::chrono::microseconds(200));
  }
}

void send_bytes(const std::vector<char>& bytes, int to, const SpreadNetwork& net) {
  const MPI_Comm comm = net.control;
  const std::lock_guard mpi_lock(net.mpi_mutex);
  std::uint64_t size = bytes.size();
  check(MPI_Send(&size, 1, MPI_UINT64_T, to, kLogTag, comm), "MPI_Send");
  for (std::size_t at = 0; at < bytes.size(); at += kChunk) {
    const int n = static_cast<int>(std::min(kChunk, bytes.size() - at));
    check(MPI_Send(bytes.data() + at, n, MPI_BYTE, to, kLogTag, comm), "MPI_Send");
  }
}

std::vector<char> receive_bytes(int from, const SpreadNetwork& net) {
  const MPI_Comm comm = net.control;
  const std::lock_guard mpi_lock(net.mpi_mutex);
  std::uint64_t size = 0;
  check(MPI_Recv(&size, 1, MPI_UINT64_T, from, kLogTag, comm, MPI_STATUS_IGNORE), "MPI_Recv");
  std::vector<char> bytes(size);
  for (std::size_t at = 0; at < bytes.size(); at += kChunk) {
    const int n = static_cast<int>(std::min(kChunk, bytes.size() - at));
    check(MPI_Recv(bytes.data() + at, n, MPI_BYTE, from, kLogTag, comm, MPI_STATUS_IGNORE),
          "MPI_Recv");
  }
  return bytes;
}

// Process `root`'s bytes to every process.
std::vector<char> broadcast_from(int root, std::vector<char> bytes, const SpreadNetwork& net) {
  const std::lock_guard mpi_lock(net.mpi_mutex);
  std::uint64_t size = bytes.size();
  check(MPI_Bcast(&size, 1, MPI_UINT64_T, root, net.control), "MPI_Bcast");
  bytes.resize(size);
  for (std::size_t at = 0; at < bytes.size(); at += kChunk) {
    const int n = static_cast<int>(std::min(kChunk, bytes.size() - at));
    check(MPI_Bcast(bytes.data() + at, n, MPI_BYTE, root, net.control), "MPI_Bcast");
  }
  return bytes;
}

// Every process's bytes, in process order, to every process.
std::vector<std::vector<char>> allgather_bytes(const std::vector<char>& mine,
                                               const SpreadNetwork& net) {
  std::vector<std::vector<char>> all(net.size);
  for (int k = 0; k < net.size; ++k) {
    all[k] = broadcast_from(k, k == net.rank ? mine : std::vector<char>{}, net);
  }
  return all;
}

// Every node's log of this process to process 0, which keeps them in remote_logs.
void gather_logs(SpreadNetwork& net, LocalNodes& m) {
  if (net.rank != 0) {
    Writer w;
    for (auto& n : m.local()) {
      // Whole: a spread machine's pass runs after the run, and drops nothing.
      w.put_vector(n->log.ops.to_vector());
      w.put_vector(n->log.sends.to_vector());
      w.put_vector(n->log.request_lists.to_vector());
    }
    send_bytes(w.out, 0, net);
    return;
  }
  m.remote_logs.assign(m.p, NodeLog{});
  for (int k = 1; k < net.size; ++k) {
    const std::vector<char> bytes = receive_bytes(k, net);
    Reader r{bytes.data(), bytes.data() + bytes.size()};
    for (int node = net.first[k]; node < net.first[k + 1]; ++node) {
      NodeLog& log = m.remote_logs[node];
      std::vector<OpRecord> ops;
      std::vector<SendRecord> sends;
      std::vector<std::uint32_t> lists;
      r.get_vector(ops);
      r.get_vector(sends);
      r.get_vector(lists);
      log.ops.assign(ops);
      log.sends.assign(sends);
      log.request_lists.assign(lists);
    }
  }
}

// The controller's side of a run, from the release of this process's nodes to its end: the
// run's statistics (and, on process 0, its trace), or RunError, the nodes reset either way.
void watch_rounds(SpreadNetwork& net, LocalNodes& m, Stats& stats, Trace& trace) {
  using Clock = std::chrono::steady_clock;
  std::int64_t out[kFields] = {}, in[kFields] = {}, prev[kFields] = {};
  bool have_prev = false;
  bool stalled = false;
  MPI_Request round = MPI_REQUEST_NULL;
  auto round_start = Clock::now();
  std::uint64_t suspect = ~0ull;
  std::int64_t last_progress_sum = -1;
  auto last_progress = Clock::now();
  Verdict verdict = Verdict::go_on;
  while (verdict == Verdict::go_on) {
    const bool running = m.running.load(std::memory_order_acquire) > 0;
    if (round == MPI_REQUEST_NULL) {
      // What this process sees: whether its unfinished nodes are all blocked, confirmed as
      // on one process (LocalNodes::watch) once each has looked again at the same activity.
      const std::uint64_t a = m.activity.load(std::memory_order_seq_cst);
      const bool quiet = !running || m.blocked_confirmed(a, suspect);
      bool failed = false;
      {
        std::lock_guard lock(m.error_mutex);
        failed = !m.errors.empty();
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
        m.abort_run();
        while (m.running.load(std::memory_order_acquire) > 0) m.controller.wait(10'000);
        m.fail(RunError(RunError::Kind::watchdog,
                            "no word from every process of the spread machine for " +
                                std::to_string(m.machine.config.watchdog_seconds) +
                                " s (one stopped, or did not call run): the run was ended",
                            -1, std::vector<BlockedWait>{}));
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
  while (m.running.load(std::memory_order_acquire) > 0) m.controller.wait(10'000);
  drain(net);
  {
    const std::lock_guard mpi_lock(net.mpi_mutex);
    net.active = false;
  }

  if (verdict != Verdict::finished) {
    // Every process's errors and blocked nodes, in process order, to every process.
    Writer w;
    {
      std::lock_guard lock(m.error_mutex);
      w.put<std::uint64_t>(m.errors.size());
      for (const ErrorRecord& e : m.errors) {
        w.put(e.node);
        w.put_string(e.what);
      }
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
    std::vector<ErrorRecord> errors;
    waits.clear();
    for (const std::vector<char>& bytes : allgather_bytes(w.out, net)) {
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
    if (verdict == Verdict::failed && !errors.empty()) {
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

  // Every node returned: process 0 runs the discrete-event pass over every node's log and
  // tells every process what it found.
  gather_logs(net, m);
  Writer w;
  if (net.rank == 0) {
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
      w.put_string(e.what());
    }
  }
  const std::vector<char> outcome = broadcast_from(0, std::move(w.out), net);
  Reader r{outcome.data(), outcome.data() + outcome.size()};
  const int status = r.get<int>();
  if (status != 0) {
    m.fail(RunError(status == 1 ? RunError::Kind::deadlock : RunError::Kind::node_threw,
                        r.get_string(), -1, std::vector<BlockedWait>{}));
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
    watch_rounds(*net_, nodes_, stats, trace);
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
