// The local machine on the real clock (MachineConfig::transport local, clock real): the
// emulation. Nodes are threads with mailboxes (MailboxTransport); link-ownership tokens are
// held for real and every modelled delay is a real wait of (modelled time x time_scale); the
// wall clock is what gets measured, and the run's statistics are assembled from what each
// node measured (RealClock::measure).
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
// watchdog): sleeps to a deadline wait on a condition variable that aborting() wakes.
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
// from the modelled quantities, so that it is not confused with the host's noise: the time
// a transfer waited with its ports free but a link held (exclusive), plus the modelled
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
  // the modelled time scaled, and delivers; records the event in the sender's log, or in
  // `out` (an isend's request).
  void transfer(NodeState& src, int dst, Message* msg, MessageEvent* out = nullptr);
  // An isend: the same transfer run by a transfer thread beside the node, which then sets
  // req.event and req.done and wakes the node.
  void isend(NodeState& src, int dst, Message* msg, RequestState& req);
  void compute(NodeState& node, Picos duration, std::uint64_t items, Work kind);
  // Rendezvous: the receiver has posted a receive for (comm, world source, tag).
  void post_receive(NodeState& receiver, std::uint32_t comm, int src, Tag tag);
  // Per link: most messages that held it at once in this run.
  std::vector<int> link_peak();
  Picos now(const NodeState& n) const { return now_real(n, m_.config.time_scale); }

  // NetworkHooks
  void returned(NodeState& n) override;
  bool moving() override;
  void aborting() override;
  void quiesce() override;
  void reset() override;

 private:
  struct Job {
    NodeState* src;
    int dst;
    Message* msg;
    RequestState* req;
  };
  void work();
  // Marks that the network's state changed (tokens freed, a receive posted): the deadlock
  // check sees activity, as for a message delivered. Call after the change, outside the lock.
  void changed();
  template <class Ready>
  void wait_tokens(NodeState* node, std::unique_lock<std::mutex>& lock,
                   const WaitDescription& what, Ready ready);
  WallClock::time_point sleep_model(WallClock::time_point from, Picos model_time);

  MachineImpl& m_;
  LocalNodes& nodes_;
  std::mutex mutex;
  std::condition_variable freed;
  PortOccupancy ports;  // guarded by mutex
  LinkOccupancy links;  // guarded by mutex
  // Rendezvous: receives posted and not yet matched, with the times they were posted.
  std::map<std::tuple<int, std::uint32_t, int, Tag>, std::deque<Picos>> posted;
  // Sleeps to a deadline wait here, so that an aborted run can end them.
  std::mutex sleep_mutex;
  std::condition_variable woken;
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
      links(m.uses_links ? m.topology->link_count() : 0) {}

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

void RealNetwork::quiesce() {
  std::unique_lock lock(jobs_mutex);
  // Bounded: an aborted run ends every wait and sleep of the transfers left.
  jobs_quiet.wait(lock, [&] { return jobs.empty() && busy == 0; });
}

void RealNetwork::isend(NodeState& src, int dst, Message* msg, RequestState& req) {
  std::lock_guard lock(jobs_mutex);
  unsettled.fetch_add(1, std::memory_order_seq_cst);
  jobs.push_back({&src, dst, msg, &req});
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
  { std::lock_guard lock(sleep_mutex); }
  woken.notify_all();
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

// Sleeps until `model_time` (scaled) after `from`: deadlines are absolute, so the time spent
// taking tokens and bookkeeping is not added on top of the modelled duration. Ends early,
// throwing RunAborted, when the run is aborted.
WallClock::time_point RealNetwork::sleep_model(WallClock::time_point from, Picos model_time) {
  if (model_time <= 0) return from;
  // time_scale is at most 1e3 (checked by the machine), so this stays below 1e10 s.
  const auto wall = std::chrono::duration_cast<WallClock::duration>(
      std::chrono::duration<double>(to_seconds(model_time) * m_.config.time_scale));
  const auto deadline = from + wall;
  std::unique_lock lock(sleep_mutex);
  if (woken.wait_until(lock, deadline,
                       [&] { return m_.abort.load(std::memory_order_acquire); })) {
    throw RunAborted{};
  }
  return deadline;
}

void RealNetwork::transfer(NodeState& src, int dst, Message* raw, MessageEvent* out) {
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
  ev.request = now(src);
  ev.links = route;
  const bool rendezvous = model.protocol == Protocol::rendezvous && dst != src.rank;
  const auto post_key = std::tuple{dst, msg->comm, src.rank, msg->tag};
  Picos link_wait = 0;  // time waited with the ports free but a link held
  Picos stretch = 0;    // modelled extra time from sharing links

  for (std::size_t hop = 0; hop < hops; ++hop) {
    std::span<const LinkId> hop_links =
        saf ? std::span<const LinkId>(&route[hop], 1) : std::span<const LinkId>(route);
    Picos requested = now(src);
    {
      std::unique_lock lock(mutex);
      Picos since = requested;
      bool on_link = false;
      bool ports_held = false;
      std::size_t links_held = 0;
      const WaitDescription what{rendezvous ? "send (rendezvous: its receive is not posted)"
                                            : "send (waiting for ports and links)",
                                 -1, dst, msg->tag, msg->comm};
      wait_tokens(out == nullptr ? &src : nullptr, lock, what, [&] {
        const Picos t = now(src);
        if (on_link) link_wait += t - since;
        since = t;
        on_link = false;
        if (hop == 0 && rendezvous) {
          auto it = posted.find(post_key);
          if (it == posted.end()) return false;
          // Waiting for the receive to be posted is neither a port nor a link wait.
          requested = std::max(requested, it->second.front());
        }
        if (blocking) {
          if (!ports_held) {
            if (!ports.free(src.rank, dst)) return false;
            ports.take(src.rank, dst);
            ports_held = true;
          }
          for (; links_held < hop_links.size(); ++links_held) {
            const LinkId l = hop_links[links_held];
            if (!links.free(l)) {
              on_link = true;
              return false;
            }
            links.take(l);
          }
          return true;
        }
        if (hop == 0 && !ports.free(src.rank, dst)) return false;
        if (exclusive && !links.free(hop_links)) {
          on_link = true;
          return false;
        }
        return true;
      });
      if (hop == 0 && rendezvous) {
        auto it = posted.find(post_key);
        it->second.pop_front();
        if (it->second.empty()) posted.erase(it);
      }
      if (!blocking) {
        if (hop == 0) ports.take(src.rank, dst);
        links.take(hop_links);
      }
    }
    in_transit.fetch_add(1, std::memory_order_seq_cst);
    struct InTransit {  // ends with the hop, however it ends (an abort throws out of sleeps)
      std::atomic<int>& count;
      ~InTransit() { count.fetch_sub(1, std::memory_order_seq_cst); }
    } in_transit_guard{in_transit};
    const auto wall_start = WallClock::now();
    Picos started = now(src);
    if (hop == 0) ev.start = started;
    ev.waited += std::max<Picos>(0, started - requested);
    if (exclusive) {
      sleep_model(wall_start, m_.links.message(m_.units, hop_links, msg->items));
    } else {
      // The n beta part in slices (at the uncontended rate), each stretched to the rate
      // max(beta, max_l c_l beta_net_l) of the sharers c_l on its links at the slice's start.
      auto at = sleep_model(wall_start, m_.units.startup(msg->items));
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
        at = sleep_model(at, stretched);
        remaining -= step;
      }
    }
    // The end is read before the tokens are released, so that a message that takes them
    // next never appears to start before this one ended.
    ev.end = now(src);
    {
      std::lock_guard lock(mutex);
      links.give_back(hop_links);
      if (hop + 1 == hops) ports.give_back(src.rank, dst);
    }
    changed();
  }
  ev.contention_delay = link_wait + stretch;
  if (!m_.config.trace) ev.links.clear();
  if (out != nullptr) *out = std::move(ev);
  else src.log.messages.push_back(std::move(ev));
  NodeState& target = *nodes_.nodes[dst];
  target.incoming.enqueue(msg.release());
  nodes_.wake(target);
}

void RealNetwork::work() {
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
      transfer(*job.src, job.dst, job.msg, &job.req->event);
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
    if (busy == 0 && jobs.empty()) jobs_quiet.notify_all();
  }
}

void RealNetwork::compute(NodeState& node, Picos duration, std::uint64_t items, Work kind) {
  const auto wall_start = WallClock::now();
  Picos start = now(node);
  sleep_model(wall_start, duration);
  node.log.combines.push_back({node.rank, items, start, now(node), kind});
}

void RealNetwork::post_receive(NodeState& receiver, std::uint32_t comm, int src, Tag tag) {
  if (m_.config.model.protocol != Protocol::rendezvous || src == receiver.rank) return;
  {
    std::lock_guard lock(mutex);
    posted[{receiver.rank, comm, src, tag}].push_back(now(receiver));
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
    Message* msg = carry(self, out);
    if (out.dst == self.rank) {
      deliver(msg, out.dst);  // a message to itself: a local copy, free in time
    } else {
      net_.transfer(self, out.dst, msg);
    }
  }

  Received sendrecv(NodeState& self, const Outgoing& out, const Incoming& in) override {
    // The send holds its tokens for its duration; the partner's message arrives meanwhile.
    // The receive is posted first, so that under rendezvous the partner's send may start
    // while this node's own send waits for the partner's receive.
    net_.post_receive(self, in.group.id, in.src, in.tag);
    send(self, out);
    return receive(self, in);
  }

  void isend(NodeState& self, std::uint32_t id, const Outgoing& out) override {
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
