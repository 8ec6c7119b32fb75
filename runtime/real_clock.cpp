// The local machine on the real clock (MachineConfig::transport local, clock real): the
// emulation. Nodes are threads with mailboxes (MailboxTransport); link-ownership tokens are
// held for real and every modelled delay is a real wait of (modelled time x time_scale); the
// wall clock is what gets measured, and the run's statistics are assembled from what each
// node measured (RealClock::measure).
//
// Due times: every wait ends at an absolute deadline, the time its event is due by the model,
// not at (the moment the thread got there + the modelled duration). An event is due at the
// latest of what it waits for in the model: the node's previous operation, the messages
// delivered to it and its isends completed (RealNetwork::due_), the ports and links it takes
// (the due end of whoever held them last) and, under rendezvous, its receive posted; never
// later than now. So the host's share of a step (a thread woken tens of microseconds after
// its deadline, a receiver woken after its message, nodes started one after the other) is
// taken out of the next wait instead of adding up over the steps: with waits measured from
// wake-ups, each step lost a wake-up or two, and 000's Fig. 7 allreduce on 64 nodes read 1.4
// to 1.5 times its model at time scale 1 on 2 cores.
// A node's own work counts in full: the real time its code runs between two of its calls
// (its computation, an automatic selection's simulations, vmc's bookkeeping on its thread)
// is added to the due time its latest wait ended at (RealNetwork::ready, stop and resume:
// each call in which the node may wait, or takes in a message or a request, restarts the
// count when it returns). Only the host's lag, from a wait's due time to the moment its
// thread runs again, is taken out; a node that computes for C between a receive and a send
// sends no earlier than C after the receive was due. Due times only ever lie at or after
// the model's time for the same event (each is the latest of its dependencies, each due at
// or after its model time, plus real work the model does not see), and the run's time is
// still the wall clock when the last node returns, so a run is never faster than the model.
// The trace's request, start and end of a message and of a charge are its due times
// (modelled time, as on the virtual clock, plus the node's own work); what the host added is
// the run's time minus the model's.
//
// The resource rules are those of the simulator (simulator.cpp), by the same rule
// (runtime/ports.hpp): ports by the port model, links by the routing, taken all at once
// (wormhole) or hop by hop (store_and_forward).
// All tokens sit under one mutex: acquiring a whole route is one atomic step, so it cannot
// deadlock, and waiting is on a condition variable, never a spin. Waits are bounded: every
// holder releases after its modelled duration, and an aborted run wakes every waiter.
// Under shared contention a message sleeps its n beta part in slices, each stretched to the
// rate max(beta, c beta_net) for the c messages on its most loaded link at the start of the
// slice (an approximation of the fluid model the simulator computes exactly); with per-class
// link rates (002 §3.3.4) the rate of its slowest link, max(beta, max_l c_l beta_net_l). With
// Worm::blocking a wormhole message takes its ports, then the links of its route one by one,
// keeping what it has while it waits (004 §13).
//
// Under the rendezvous protocol a receiver posts each receive (RealNetwork::post_receive)
// before it waits for the message, and a transfer takes its tokens only once its receive is
// posted.
//
// Every real wait ends early when the run is aborted (a node threw, a deadlock, the
// watchdog): sleeps to a deadline wait on the run's abort word, which aborting() sets and
// wakes (RealNetwork::sleep_until).
//
// An isend's transfer runs on a transfer thread (a pool that grows to the most transfers
// ever in flight at once and is kept for the machine's life), with the same rules; the
// node goes on and completes the request later. While such a transfer may still progress,
// nodes waiting for it are not deadlocked (RealNetwork::moving): while it is queued,
// running or moving data, and while it waits for tokens but has not looked at the network
// since its latest change (a receive posted, tokens freed: the change woke it, and a thread
// the host has not run yet for a while must not be taken for a deadlock).
//
// Contention delay (Stats::contention_delay), measured here as on the virtual clock but
// from the modelled quantities, so that it is not confused with the host's noise: the due
// time a transfer waited with its ports free but a link held (exclusive), plus the modelled
// stretch of its n beta part by sharing (shared). The critical-path delay is not measured.
#include <algorithm>
#include <condition_variable>
#include <cstring>
#include <deque>
#include <map>
#include <set>
#include <system_error>
#include <thread>
#include <tuple>

#include "runtime/mailbox_transport.hpp"
#include "runtime/ports.hpp"

#ifdef __linux__
#include <linux/futex.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <ctime>
#endif

namespace vmc::detail {

namespace {

using WallClock = std::chrono::steady_clock;

// Node n's modelled time now: the wall time since the run started, unscaled.
Picos now_real(const NodeState& n, double time_scale) {
  auto d = WallClock::now() - n.run_start;
  double wall = std::chrono::duration<double>(d).count();
  const double model = std::max(0.0, wall / time_scale);
  if (!(model <= 9.0e6)) {
    throw std::overflow_error("node " + std::to_string(n.rank) + ": " + std::to_string(wall) +
                              " wall seconds at time_scale " + std::to_string(time_scale) +
                              " are more modelled time than vmc's clock holds (9e6 s)");
  }
  return to_picos(model);
}

// The tokens, sleeps and transfer threads of the real clock, beside the nodes.
class RealNetwork final : public NetworkHooks {
 public:
  RealNetwork(MachineImpl& m, LocalNodes& nodes);
  ~RealNetwork() override;

  // Sends msg from node `src` to `dst` holding the ports and links it needs for real, waits
  // until it is due to end (scaled), and delivers; records the event in the sender's log, or
  // in `out` (an isend's request). `asked`: when the sender asked to send, in modelled time.
  void transfer(NodeState& src, int dst, Message* msg, Picos asked, MessageEvent* out = nullptr);
  void send(NodeState& src, int dst, Message* msg) {
    const Picos asked = stop(src);
    transfer(src, dst, msg, asked);
    resume(src);
  }
  // An isend: the same transfer run by a transfer thread beside the node, which then sets
  // req.event and req.done and wakes the node.
  void isend(NodeState& src, int dst, Message* msg, RequestState& req);
  void compute(NodeState& node, Picos duration, std::uint64_t items, Work kind);
  // Rendezvous: the receiver has posted a receive for (comm, world source, tag).
  void post_receive(NodeState& receiver, std::uint32_t comm, int src, Tag tag);
  // Per link: most messages that held it at once in this run.
  std::vector<int> link_peak();
  Picos now(const NodeState& n) const { return now_real(n, m_.config.time_scale); }
  // When node n may next act by the model: the latest due time of what it depends on so far,
  // or the model's time it stood at when its latest wait returned plus the real time its own
  // code has run since, whichever is later; never later than now. Node n's thread only.
  Picos ready(const NodeState& n) const {
    const Picos t = now(n);
    const Lap& lap = laps_[n.rank];
    return std::min(t, std::max(due_[n.rank].load(std::memory_order_acquire),
                                lap.base + (t - lap.since)));
  }
  // Node n's thread is about to wait (or to take in what it waited for): its own time so far
  // becomes its base, which the wait does not advance. When it may act (ready).
  Picos stop(const NodeState& n) {
    Lap& lap = laps_[n.rank];
    lap.base = ready(n);
    return lap.base;
  }
  // Its wait has returned: the base is raised to the due time of what it waited for (and of
  // anything else it depends on by now), and its own time counts again from now. The time
  // between the due time and now, the host's lag in waking it, is not counted.
  void resume(const NodeState& n) {
    Lap& lap = laps_[n.rank];
    lap.since = now(n);
    lap.base = std::max(lap.base, due_[n.rank].load(std::memory_order_acquire));
  }

  // NetworkHooks
  // Skew (Model::skew): the node waits for its start delay before its function runs.
  void starting(NodeState& n) override {
    laps_[n.rank] = Lap{0, now(n)};
    const Picos delay = start_delay(m_.config.model, n.rank);
    if (delay > 0) away_until(n, delay);
  }
  // Noise (Model::noise): a node about to send during a detour waits for its end.
  void detour(NodeState& n) {
    if (m_.config.model.noise.every <= 0) return;
    const Picos t = ready(n);
    const Picos clear = noise_clear(m_.config.model, n.rank, t);
    if (clear > t) away_until(n, clear);
  }
  void returned(NodeState& n) override;
  bool settle() override;
  bool moving() override;
  void aborting() override;
  void quiesce() override;
  void reset() override;

 private:
  struct Job {
    NodeState* src;
    int dst;
    Message* msg;
    Picos asked;
    RequestState* req;
  };
  void work();
  // Marks that the network's state changed (tokens freed, a receive posted): the deadlock
  // check sees activity, as for a message delivered. Call after the change, outside the lock.
  void changed();
  template <class Ready>
  void wait_tokens(NodeState* node, std::unique_lock<std::mutex>& lock,
                   const WaitDescription& what, Ready ready);
  // Sleeps until modelled time `due` (scaled) after n's run start.
  void sleep_until(const NodeState& n, Picos due);
  // Node n is away (a start delay, a detour) until modelled time `due`, then acts again.
  void away_until(NodeState& n, Picos due) {
    stop(n);
    sleep_until(n, due);
    depends(n.rank, due);
    resume(n);
  }
  // Node r depends on an event due at t from now on (its own operation ended, a message
  // delivered to it, its isend completed).
  void depends(int r, Picos t);
  // Under the network mutex: when the ports of src -> dst and the links `hop` were last
  // given back, in due time (0: never in this run), and recording that they are given back
  // at `end`.
  Picos ports_due(int src, int dst) const;
  Picos links_due(std::span<const LinkId> hop) const;
  void given_back(int src, int dst, bool ports_too, std::span<const LinkId> hop, Picos end);

  MachineImpl& m_;
  LocalNodes& nodes_;
  std::mutex mutex;
  std::condition_variable freed;
  PortOccupancy ports;  // guarded by mutex
  LinkOccupancy links;  // guarded by mutex
  // Rendezvous: receives posted and not yet matched, with the times they were posted.
  std::map<std::tuple<int, std::uint32_t, int, Tag>, std::deque<Picos>> posted;
  // Every node has returned (settle): a rendezvous transfer whose receive is not posted now
  // never will be, and leaves its message unreceived instead of waiting.
  bool settling = false;
  // Due times (modelled, since the run's start). Per node, the latest due time of what it
  // depends on (raised by the node itself, by its senders and by its transfer threads);
  // under `mutex`, when each token was last given back: each link; each node's port (and
  // the partner it was held for: exchange shares it) or out-port and in-port, by the port
  // model.
  std::unique_ptr<std::atomic<Picos>[]> due_;
  // Per node, its own time (written and read by its thread only; a cache line each, as the
  // threads write theirs at every call): the real time its latest wait returned (as now())
  // and the model's time it then stood at.
  struct alignas(64) Lap {
    Picos base = 0;
    Picos since = 0;
  };
  std::unique_ptr<Lap[]> laps_;
  const PortHold port_hold_;
  const bool partner_shares_;
  std::vector<Picos> link_free;
  std::vector<Picos> out_free, in_free;  // directions: out-port, in-port; nodes: the port,
  std::vector<int> free_partner;         // the partner of its latest release, and the latest
  std::vector<Picos> other_free;         // release for any other partner (or earlier)
  // Sleeps to a deadline wait on this word (1 once the run is aborted), each on its own:
  // see sleep_until.
  std::atomic<int> aborted{0};
  // Transfer threads for isends.
  std::mutex jobs_mutex;
  std::condition_variable jobs_ready, jobs_quiet;
  std::deque<Job> jobs;           // guarded by jobs_mutex
  std::vector<std::thread> workers;
  int idle = 0;                   // workers waiting for a job (jobs_mutex)
  int busy = 0;                   // jobs taken and not finished (jobs_mutex)
  bool stopping = false;          // jobs_mutex
  std::atomic<int> in_transit{0};  // transfers holding their tokens through their time
  // isend transfers not parked in wait_tokens (queued, running, moving, completing), and the
  // activity stamps at which the parked ones last looked (looks_mutex; taken inside mutex).
  std::atomic<int> unsettled{0};
  std::mutex looks_mutex;
  std::multiset<std::uint64_t> looks;
};

RealNetwork::RealNetwork(MachineImpl& m, LocalNodes& nodes)
    : m_(m), nodes_(nodes), ports(m.config.model.port, m.p),
      links(m.uses_links ? m.topology->link_count() : 0), due_(new std::atomic<Picos>[m.p]()),
      laps_(new Lap[m.p]),
      port_hold_(port_hold(m.config.model.port)),
      partner_shares_(partner_shares_port(m.config.model.port)),
      link_free(m.uses_links ? m.topology->link_count() : 0, 0), out_free(m.p, 0),
      in_free(m.p, 0), free_partner(m.p, -1), other_free(m.p, 0) {}

RealNetwork::~RealNetwork() {
  {
    std::lock_guard lock(jobs_mutex);
    stopping = true;
  }
  jobs_ready.notify_all();
  for (auto& t : workers) t.join();
}

void RealNetwork::returned(NodeState& n) {
  try {
    n.log.finish = now(n);
  } catch (const std::exception& e) {
    nodes_.record_error(n.rank, e.what());
    nodes_.abort_run();
  }
}

bool RealNetwork::moving() {
  if (in_transit.load(std::memory_order_seq_cst) > 0) return true;
  if (unsettled.load(std::memory_order_seq_cst) > 0) return true;
  const std::uint64_t now = nodes_.activity.load(std::memory_order_seq_cst);
  std::lock_guard lock(looks_mutex);
  return !looks.empty() && *looks.begin() != now;
}

bool RealNetwork::settle() {
  {
    std::lock_guard lock(mutex);
    settling = true;
  }
  changed();
  // Each transfer left sleeps through its modelled time or waits for tokens one of them
  // holds: they end. Bounded all the same: no transfer ending for the watchdog time ends
  // them all.
  const auto patience = std::chrono::duration<double>(m_.config.watchdog_seconds);
  std::unique_lock lock(jobs_mutex);
  for (;;) {
    const int before = busy + static_cast<int>(jobs.size());
    if (before == 0) return true;
    if (!jobs_quiet.wait_for(lock, patience, [&] {
          return busy + static_cast<int>(jobs.size()) < before;
        })) {
      lock.unlock();
      m_.abort.store(true, std::memory_order_seq_cst);
      aborting();
      return false;
    }
  }
}

void RealNetwork::quiesce() {
  std::unique_lock lock(jobs_mutex);
  // Bounded: an aborted run ends every wait and sleep of the transfers left.
  jobs_quiet.wait(lock, [&] { return jobs.empty() && busy == 0; });
}

void RealNetwork::isend(NodeState& src, int dst, Message* msg, RequestState& req) {
  const Picos asked = ready(src);
  std::lock_guard lock(jobs_mutex);
  unsettled.fetch_add(1, std::memory_order_seq_cst);
  jobs.push_back({&src, dst, msg, asked, &req});
  if (idle > 0) {
    jobs_ready.notify_one();
    return;
  }
  try {
    workers.emplace_back([this] { work(); });
  } catch (const std::system_error& e) {
    jobs.pop_back();
    unsettled.fetch_sub(1, std::memory_order_seq_cst);
    delete msg;
    throw UsageError("node " + std::to_string(src.rank) + ": isend: the system refused a "
                     "transfer thread (" + std::string(e.what()) + "): too many isends in "
                     "flight at once on the real clock");
  }
}

void RealNetwork::aborting() {
  aborted.store(1, std::memory_order_seq_cst);
#ifdef __linux__
  syscall(SYS_futex, &aborted, FUTEX_WAKE_PRIVATE, INT_MAX, nullptr, nullptr, 0);
#endif
  { std::lock_guard lock(mutex); }
  freed.notify_all();
}

std::vector<int> RealNetwork::link_peak() {
  std::lock_guard lock(mutex);
  return links.peaks();
}

void RealNetwork::reset() {
  std::lock_guard lock(mutex);
  links.clear();
  ports.clear();
  posted.clear();
  settling = false;
  for (int r = 0; r < m_.p; ++r) due_[r].store(0, std::memory_order_relaxed);
  aborted.store(0, std::memory_order_seq_cst);
  std::fill(link_free.begin(), link_free.end(), 0);
  std::fill(out_free.begin(), out_free.end(), 0);
  std::fill(in_free.begin(), in_free.end(), 0);
  std::fill(free_partner.begin(), free_partner.end(), -1);
  std::fill(other_free.begin(), other_free.end(), 0);
}

void RealNetwork::depends(int r, Picos t) {
  Picos seen = due_[r].load(std::memory_order_relaxed);
  while (seen < t && !due_[r].compare_exchange_weak(seen, t, std::memory_order_acq_rel)) {
  }
}

Picos RealNetwork::ports_due(int src, int dst) const {
  switch (port_hold_) {
    case PortHold::nothing: return 0;
    case PortHold::directions: return std::max(out_free[src], in_free[dst]);
    case PortHold::nodes: {
      // Under exchange a port held for this same pair is shared with this message, not
      // waited for: then only the releases for other partners count.
      auto held = [&](int a, int b) {
        return partner_shares_ && free_partner[a] == b ? other_free[a] : out_free[a];
      };
      return std::max(held(src, dst), held(dst, src));
    }
  }
  return 0;
}

Picos RealNetwork::links_due(std::span<const LinkId> hop) const {
  Picos t = 0;
  for (LinkId l : hop) t = std::max(t, link_free[l]);
  return t;
}

void RealNetwork::given_back(int src, int dst, bool ports_too, std::span<const LinkId> hop,
                             Picos end) {
  for (LinkId l : hop) link_free[l] = std::max(link_free[l], end);
  if (!ports_too) return;
  switch (port_hold_) {
    case PortHold::nothing: break;
    case PortHold::directions:
      out_free[src] = std::max(out_free[src], end);
      in_free[dst] = std::max(in_free[dst], end);
      break;
    case PortHold::nodes:
      for (auto [a, b] : {std::pair{src, dst}, std::pair{dst, src}}) {
        if (b == free_partner[a]) {
          out_free[a] = std::max(out_free[a], end);
        } else if (end >= out_free[a]) {
          other_free[a] = std::max(other_free[a], out_free[a]);
          out_free[a] = end;
          free_partner[a] = b;
        } else {
          other_free[a] = std::max(other_free[a], end);
        }
      }
      break;
  }
}

void RealNetwork::changed() {
  nodes_.activity.fetch_add(1, std::memory_order_seq_cst);
  freed.notify_all();
}

// Waits until `ready` holds under the network mutex; throws RunAborted if the run ends.
// aborting() wakes it; the 50 ms bound only guards against a lost wake-up. While it waits
// the node counts as blocked for the deadlock check (LocalNodes::block_until): tokens are
// held only by nodes sleeping through a transfer, which are not blocked, so every nodes
// blocked means sends waiting for receives that are never posted (rendezvous).
// `node`: the node whose thread waits, or null on a transfer thread (its node is not
// blocked by it: it went on after its isend).
template <class Ready>
void RealNetwork::wait_tokens(NodeState* node, std::unique_lock<std::mutex>& lock,
                              const WaitDescription& what, Ready ready) {
  if (ready()) return;
  if (node != nullptr) {
    std::lock_guard guard(node->wait_mutex);
    node->waiting = what;
  }
  for (;;) {
    if (m_.abort.load(std::memory_order_acquire)) throw RunAborted{};
    const std::uint64_t stamp = nodes_.activity.load(std::memory_order_seq_cst);
    if (ready()) break;
    if (node != nullptr) {
      node->blocked_stamp.store(stamp + 1, std::memory_order_seq_cst);
    } else {  // a transfer thread: parked, having looked at `stamp` (see moving)
      std::lock_guard guard(looks_mutex);
      looks.insert(stamp);
      unsettled.fetch_sub(1, std::memory_order_seq_cst);
    }
    freed.wait_for(lock, std::chrono::milliseconds(50));
    if (node != nullptr) {
      node->blocked_stamp.store(0, std::memory_order_seq_cst);
    } else {
      std::lock_guard guard(looks_mutex);
      unsettled.fetch_add(1, std::memory_order_seq_cst);
      looks.erase(looks.find(stamp));
    }
  }
}

// Sleeps until the modelled time `due` (scaled) after n's run start, rounded up to the wall
// clock's tick so that it never ends early. Ends early, throwing RunAborted, when the run is
// aborted.
//
// Each sleeper waits alone, on the kernel's timer for its own absolute deadline (Linux: a
// futex wait on `aborted` with a CLOCK_MONOTONIC deadline, which is steady_clock's; aborting
// wakes them all). Not on one condition variable: with due times, the nodes of a step share
// their deadline, and sleepers timing out at once on one condition variable each retake its
// mutex in turn. 64 threads sharing 30 deadlines on 2 busy cores, alternated 12 times (load
// average 16): late by a median of 0.32 ms and a 90th percentile of 4.5 ms (medians over the
// rounds) on one condition variable, 0.28 ms and 3.8 ms on futexes; most of either is the
// host waking 64 threads on 2 cores, which the due times take out of the next wait.
// Elsewhere than Linux: sleeps of at most 1 ms, the abort looked at between them.
void RealNetwork::sleep_until(const NodeState& n, Picos due) {
  // time_scale is at most 1e3 and due at most 9e6 s (now_real), so this stays below 1e10 s.
  const auto deadline = n.run_start + std::chrono::ceil<WallClock::duration>(
                                          std::chrono::duration<double>(
                                              to_seconds(due) * m_.config.time_scale));
  for (;;) {
    if (m_.abort.load(std::memory_order_acquire)) throw RunAborted{};
    const auto now = WallClock::now();
    if (now >= deadline) return;
#ifdef __linux__
    const auto since_epoch = std::chrono::duration_cast<std::chrono::nanoseconds>(
                                 deadline.time_since_epoch())
                                 .count();
    timespec at{};
    at.tv_sec = static_cast<time_t>(since_epoch / 1'000'000'000);
    at.tv_nsec = static_cast<long>(since_epoch % 1'000'000'000);
    // Returns at the deadline (ETIMEDOUT), when woken, or early (EINTR, or EAGAIN if the
    // run was aborted meanwhile): the loop looks again.
    syscall(SYS_futex, &aborted, FUTEX_WAIT_BITSET_PRIVATE, 0, &at, nullptr,
            FUTEX_BITSET_MATCH_ANY);
#else
    std::this_thread::sleep_until(std::min(deadline, now + std::chrono::milliseconds(1)));
#endif
  }
}

void RealNetwork::transfer(NodeState& src, int dst, Message* raw, Picos asked,
                           MessageEvent* out) {
  std::unique_ptr<Message> msg(raw);
  const Model& model = m_.config.model;
  const bool exclusive = model.contention == Contention::exclusive;
  // 004 §13: a blocked worm keeps its ports and the links it has taken (see Worm).
  const bool blocking = exclusive && model.worm == Worm::blocking &&
                        model.routing == Routing::wormhole;
  std::vector<LinkId> route;
  if (m_.uses_links) m_.topology->route(src.rank, dst, route);
  const bool saf = model.routing == Routing::store_and_forward && !route.empty();
  const std::size_t hops = saf ? route.size() : 1;

  MessageEvent ev;
  ev.src = src.rank;
  ev.dst = dst;
  ev.tag = msg->tag;
  ev.comm = msg->comm;
  ev.items = msg->items;
  ev.bytes = msg->bytes;
  ev.request = asked;
  ev.links = route;
  const bool rendezvous = model.protocol == Protocol::rendezvous && dst != src.rank;
  const auto post_key = std::tuple{dst, msg->comm, src.rank, msg->tag};
  Picos link_wait = 0;  // due time waited with the ports free but a link held
  Picos stretch = 0;    // modelled extra time from sharing links
  Picos end = asked;    // the due end of the hop before (of the message, after the last)

  for (std::size_t hop = 0; hop < hops; ++hop) {
    std::span<const LinkId> hop_links =
        saf ? std::span<const LinkId>(&route[hop], 1) : std::span<const LinkId>(route);
    Picos requested = end;  // due: the sender asked, or the hop before ended
    Picos ports_free = 0;   // due: its ports given back by the messages before
    Picos links_free = 0;   // due: its links given back
    Picos start = 0;
    {
      std::unique_lock lock(mutex);
      bool ports_held = false;
      std::size_t links_held = 0;
      const WaitDescription what{rendezvous ? "send (rendezvous: its receive is not posted)"
                                            : "send (waiting for ports and links)",
                                 -1, dst, msg->tag, msg->comm};
      bool never = false;  // settling, and its receive was never posted
      wait_tokens(out == nullptr ? &src : nullptr, lock, what, [&] {
        if (hop == 0 && rendezvous) {
          auto it = posted.find(post_key);
          if (it == posted.end()) return never = settling;
          // Waiting for the receive to be posted is neither a port nor a link wait.
          requested = std::max(requested, it->second.front());
        }
        if (blocking) {
          if (!ports_held) {
            if (!ports.free(src.rank, dst)) return false;
            ports_free = ports_due(src.rank, dst);
            ports.take(src.rank, dst);
            ports_held = true;
          }
          for (; links_held < hop_links.size(); ++links_held) {
            const LinkId l = hop_links[links_held];
            if (!links.free(l)) return false;
            links_free = std::max(links_free, link_free[l]);
            links.take(l);
          }
          return true;
        }
        if (hop == 0 && !ports.free(src.rank, dst)) return false;
        if (exclusive && !links.free(hop_links)) return false;
        if (hop == 0) ports_free = ports_due(src.rank, dst);
        if (exclusive) links_free = links_due(hop_links);
        return true;
      });
      if (never) {
        // Every node has returned: the message stays in the receiver's mailbox, where the
        // unreceived-message check finds it (no time, no trace: it never moved).
        nodes_.nodes[dst]->incoming.enqueue(msg.release());
        return;
      }
      if (hop == 0 && rendezvous) {
        auto it = posted.find(post_key);
        it->second.pop_front();
        if (it->second.empty()) posted.erase(it);
      }
      if (!blocking) {
        if (hop == 0) ports.take(src.rank, dst);
        links.take(hop_links);
      }
      // Due when the latest of these was; never later than now (each was due before it
      // happened, so only rounding can make it so).
      const Picos could = std::max(requested, ports_free);
      start = std::min(now(src), std::max(could, links_free));
      link_wait += std::max<Picos>(0, start - could);
    }
    in_transit.fetch_add(1, std::memory_order_seq_cst);
    struct InTransit {  // ends with the hop, however it ends (an abort throws out of sleeps)
      std::atomic<int>& count;
      ~InTransit() { count.fetch_sub(1, std::memory_order_seq_cst); }
    } in_transit_guard{in_transit};
    if (hop == 0) ev.start = start;
    ev.waited += std::max<Picos>(0, start - requested);
    if (exclusive) {
      end = checked_add(start, m_.links.message(m_.units, hop_links, msg->items));
      sleep_until(src, end);
    } else {
      // The n beta part in slices (at the uncontended rate), each stretched to the rate
      // max(beta, max_l c_l beta_net_l) of the sharers c_l on its links at the slice's start.
      end = checked_add(start, m_.units.startup(msg->items));
      sleep_until(src, end);
      const Picos alone = m_.links.item_time(m_.units, hop_links);
      Picos remaining = checked_mul(alone, msg->items, "transfer time n beta");
      const Picos slice = std::max<Picos>(remaining / 8, 1);
      while (remaining > 0) {
        Picos rate = 0;
        {
          std::lock_guard lock(mutex);
          rate = m_.links.item_time(m_.units, hop_links, [this](LinkId l) {
            return static_cast<std::uint64_t>(std::max(1, links.users(l)));
          });
        }
        const Picos step = std::min(remaining, slice);
        const Picos stretched = static_cast<Picos>(Wide(step) * rate / alone);
        stretch += stretched - step;
        end = checked_add(end, stretched);
        sleep_until(src, end);
        remaining -= step;
      }
    }
    // The tokens are given back at the hop's due end, so that a message that takes them next
    // starts no earlier.
    {
      std::lock_guard lock(mutex);
      links.give_back(hop_links);
      if (hop + 1 == hops) ports.give_back(src.rank, dst);
      given_back(src.rank, dst, hop + 1 == hops, exclusive ? hop_links : std::span<const LinkId>{},
                 end);
    }
    changed();
  }
  ev.end = end;
  ev.contention_delay = link_wait + stretch;
  if (!m_.config.trace) ev.links.clear();
  if (out != nullptr) *out = std::move(ev);
  else src.log.messages.push_back(std::move(ev));
  // The receiver depends on the message from its due end (published before the message).
  depends(dst, end);
  if (out == nullptr) depends(src.rank, end);
  NodeState& target = *nodes_.nodes[dst];
  target.incoming.enqueue(msg.release());
  nodes_.wake(target);
}

void RealNetwork::work() {
#ifdef __linux__
  // As the node threads (executor_threads.cpp): the tightest timer the kernel offers, not
  // its default slack of 50 us on every sleep of a transfer.
  prctl(PR_SET_TIMERSLACK, 1UL, 0UL, 0UL, 0UL);
#endif
  std::unique_lock lock(jobs_mutex);
  for (;;) {
    ++idle;
    jobs_ready.wait(lock, [&] { return stopping || !jobs.empty(); });
    --idle;
    if (jobs.empty()) return;  // stopping
    Job job = jobs.front();
    jobs.pop_front();
    ++busy;
    lock.unlock();
    try {
      transfer(*job.src, job.dst, job.msg, job.asked, &job.req->event);
      // Its node depends on it once it has completed: from its due end (conservative: the
      // node may not wait for it, but it then acts no earlier than now anyway).
      depends(job.src->rank, job.req->event.end);
    } catch (const RunAborted&) {
      // The run is being ended; the node reports nothing for this transfer.
    } catch (const std::exception& e) {
      nodes_.record_error(job.src->rank, e.what());
      nodes_.abort_run();
    }
    job.req->done.store(true, std::memory_order_release);
    nodes_.wake(*job.src);
    unsettled.fetch_sub(1, std::memory_order_seq_cst);
    lock.lock();
    --busy;
    jobs_quiet.notify_all();  // settle counts every transfer that ends
  }
}

void RealNetwork::compute(NodeState& node, Picos duration, std::uint64_t items, Work kind) {
  const Picos start = stop(node);
  // Noise stretches local work past the detours it meets (Model::noise).
  const Picos end = noisy_end(m_.config.model, node.rank, start, duration);
  sleep_until(node, end);
  depends(node.rank, end);
  resume(node);
  node.log.combines.push_back({node.rank, items, start, end, kind});
}

void RealNetwork::post_receive(NodeState& receiver, std::uint32_t comm, int src, Tag tag) {
  if (m_.config.model.protocol != Protocol::rendezvous || src == receiver.rank) return;
  {
    std::lock_guard lock(mutex);
    posted[{receiver.rank, comm, src, tag}].push_back(ready(receiver));
  }
  changed();
}

class RealClock final : public MailboxTransport {
 public:
  explicit RealClock(MachineImpl& m)
      : MailboxTransport(m, NodePlacement{.lo = 0, .hi = m.p, .parallel_waits = true}),
        net_(m, nodes_) {
    nodes_.hooks = &net_;
  }
  ~RealClock() override { nodes_.hooks = nullptr; }

  void send(NodeState& self, const Outgoing& out) override {
    net_.detour(self);
    Message* msg = carry(self, out);
    if (out.dst == self.rank) {
      deliver(msg, out.dst);  // a message to itself: a local copy, free in time
    } else {
      net_.send(self, out.dst, msg);
    }
  }

  // Every call in which self may wait counts its own time around the wait (RealNetwork::stop
  // and resume): what its code does between calls counts in full, the wait by the model.
  Received recv(NodeState& self, const Incoming& in) override {
    net_.stop(self);
    Received got = MailboxTransport::recv(self, in);
    net_.resume(self);
    return got;
  }

  Received sendrecv(NodeState& self, const Outgoing& out, const Incoming& in) override {
    // The send holds its tokens for its duration; the partner's message arrives meanwhile.
    // The receive is posted first, so that under rendezvous the partner's send may start
    // while this node's own send waits for the partner's receive.
    net_.post_receive(self, in.group.id, in.src, in.tag);
    send(self, out);
    net_.stop(self);
    Received got = receive(self, in);
    net_.resume(self);
    return got;
  }

  void block(NodeState& self, FunctionRef<bool()> ready, const WaitDescription& what) override {
    net_.stop(self);
    MailboxTransport::block(self, ready, what);
    net_.resume(self);
  }

  SplitResult split(NodeState& self, CommGroup& g, int rank, std::uint64_t seq, int color,
                    int key) override {
    net_.stop(self);
    SplitResult joined = MailboxTransport::split(self, g, rank, seq, color, key);
    net_.resume(self);
    return joined;
  }

  // A perturbation's pause is the host's delay, not the node's work.
  void pause(NodeState& self, double seconds) override {
    net_.stop(self);
    MailboxTransport::pause(self, seconds);
    net_.resume(self);
  }

  void isend(NodeState& self, std::uint32_t id, const Outgoing& out) override {
    net_.detour(self);
    Message* msg = carry(self, out);
    RequestState& r = self.requests[id];
    if (out.dst == self.rank) {
      deliver(msg, out.dst);
      r.done.store(true, std::memory_order_release);
      return;
    }
    net_.isend(self, out.dst, msg, r);
  }

  void completed(NodeState& self, RequestState& r) override {
    // Self takes in what the request waited for (an irecv's message, an isend's transfer),
    // whether or not it had to wait (block): from its due time on, if that is later.
    net_.stop(self);
    net_.resume(self);
    // An isend's measured transfer (none for a message to itself).
    if (r.send && r.peer_world != self.rank) self.log.messages.push_back(std::move(r.event));
  }

  void charge(NodeState& self, Picos duration, std::uint64_t items, Work kind) override {
    net_.compute(self, duration, items, kind);
  }

 protected:
  void receiving(NodeState& self, const Incoming& in, OpRecord::Kind, std::uint32_t) override {
    net_.post_receive(self, in.group.id, in.src, in.tag);
  }

  bool sent(const RequestState& r) const override {
    return r.done.load(std::memory_order_acquire);
  }

  // The run's statistics and trace from what every node measured.
  void measure(Stats& s, Trace& t) override {
    const int p = machine_.p;
    t.nodes = p;
    s.critical_startups = -1;
    s.node_time.resize(p);
    if (machine_.uses_links) {
      s.link_busy.assign(machine_.topology->link_count(), 0);
      s.link_peak = net_.link_peak();
    }
    for (int r = 0; r < p; ++r) {
      NodeLog& log = nodes_.nodes[r]->log;
      s.node_time[r] = log.finish;
      s.time = std::max(s.time, log.finish);
      for (auto& m : log.messages) {
        s.messages++;
        s.items += m.items;
        s.bytes += m.bytes;
        s.token_wait += m.waited;
        s.contention_delay += m.contention_delay;
        s.max_message_delay = std::max(s.max_message_delay, m.contention_delay);
        for (LinkId l : m.links) s.link_busy[l] += m.end - m.start;
        if (machine_.config.trace) t.messages.push_back(std::move(m));
      }
      for (auto& c : log.combines) {
        if (c.kind == Work::combine) s.combined_items += c.items;
        if (c.kind == Work::rearrange) s.rearranged_items += c.items;
        if (machine_.config.trace) t.combines.push_back(c);
      }
    }
    std::sort(t.messages.begin(), t.messages.end(), [](const auto& a, const auto& b) {
      return std::tie(a.start, a.src, a.dst, a.tag) < std::tie(b.start, b.src, b.dst, b.tag);
    });
    std::sort(t.combines.begin(), t.combines.end(), [](const auto& a, const auto& b) {
      return std::tie(a.start, a.node) < std::tie(b.start, b.node);
    });
  }

 private:
  // A message from self carrying a copy of its bytes.
  Message* carry(NodeState& self, const Outgoing& out) {
    Message* msg = new_message(self, out);
    if (out.bytes > 0 && machine_.config.data == Data::full) {
      msg->payload = make_payload(out.bytes);
      std::memcpy(msg->payload.get(), out.data, out.bytes);
    }
    return msg;
  }

  RealNetwork net_;
};

}  // namespace

std::unique_ptr<Transport> make_real_clock(MachineImpl& m) {
  return std::make_unique<RealClock>(m);
}

}  // namespace vmc::detail
