// Real time: the emulation. Link-ownership tokens are held for real and every modelled delay
// is a real wait of (modelled time x time_scale); the wall clock is what gets measured.
//
// The resource rules are those of the simulator (simulator.cpp): ports by the port model,
// links by the routing, taken all at once (wormhole) or hop by hop (store_and_forward).
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
// Under the rendezvous protocol a receiver posts each receive (real_post_receive) before it
// waits for the message, and a transfer takes its tokens only once its receive is posted.
//
// Every real wait ends early when the run is aborted (a node threw, a deadlock, the
// watchdog): sleeps to a deadline wait on a condition variable that real_abort wakes.
//
// An isend's transfer runs on a transfer thread (a pool that grows to the most transfers
// ever in flight at once and is kept for the machine's life), with the same rules; the
// node goes on and completes the request later. While such a transfer may still progress,
// nodes waiting for it are not deadlocked (real_transfers_moving): while it is queued,
// running or moving data, and while it waits for tokens but has not looked at the network
// since its latest change (a receive posted, tokens freed: the change woke it, and a thread
// the host has not run yet for a while must not be taken for a deadlock).
//
// Contention delay (Stats::contention_delay), measured here as on the virtual clock but
// from the modelled quantities, so that it is not confused with the host's noise: the time
// a transfer waited with its ports free but a link held (exclusive), plus the modelled
// stretch of its n beta part by sharing (shared). The critical-path delay is not measured.
#include <condition_variable>
#include <deque>
#include <map>
#include <set>
#include <thread>
#include <tuple>

#include "runtime/detail.hpp"

namespace vmc::detail {

struct RealNetwork {
  std::mutex mutex;
  std::condition_variable freed;
  std::vector<int> port_partner, port_count;
  std::vector<char> out_busy, in_busy;
  std::vector<int> link_users;
  std::vector<int> link_peak;
  // Rendezvous: receives posted and not yet matched, with the times they were posted.
  std::map<std::tuple<int, std::uint32_t, int, Tag>, std::deque<Picos>> posted;
  // Sleeps to a deadline wait here, so that an aborted run can end them.
  std::mutex sleep_mutex;
  std::condition_variable woken;
  // Transfer threads for isends.
  struct Job {
    MachineImpl* machine;
    NodeState* src;
    int dst;
    Message* msg;
    RequestState* req;
  };
  std::mutex jobs_mutex;
  std::condition_variable jobs_ready, jobs_quiet;
  std::deque<Job> jobs;           // guarded by jobs_mutex
  std::vector<std::thread> workers;
  int idle = 0;                   // workers waiting for a job (jobs_mutex)
  int busy = 0;                   // jobs taken and not finished (jobs_mutex)
  bool stopping = false;          // jobs_mutex
  std::atomic<int> moving{0};     // transfers holding their tokens through their time
  // isend transfers not parked in wait_tokens (queued, running, moving, completing), and the
  // activity stamps at which the parked ones last looked (looks_mutex; taken inside mutex).
  std::atomic<int> unsettled{0};
  std::mutex looks_mutex;
  std::multiset<std::uint64_t> looks;
  const std::atomic<std::uint64_t>* activity = nullptr;  // the machine's
  void work();
};

RealNetwork* make_real_network(const MachineImpl& m) {
  auto* net = new RealNetwork;
  net->activity = &m.activity;
  net->port_partner.assign(m.p, -1);
  net->port_count.assign(m.p, 0);
  net->out_busy.assign(m.p, 0);
  net->in_busy.assign(m.p, 0);
  if (m.uses_links) {
    net->link_users.assign(m.topology->link_count(), 0);
    net->link_peak.assign(m.topology->link_count(), 0);
  }
  return net;
}

void destroy_real_network(RealNetwork* net) {
  {
    std::lock_guard lock(net->jobs_mutex);
    net->stopping = true;
  }
  net->jobs_ready.notify_all();
  for (auto& t : net->workers) t.join();
  delete net;
}

bool real_transfers_moving(RealNetwork* net) {
  if (net->moving.load(std::memory_order_seq_cst) > 0) return true;
  if (net->unsettled.load(std::memory_order_seq_cst) > 0) return true;
  const std::uint64_t now = net->activity->load(std::memory_order_seq_cst);
  std::lock_guard lock(net->looks_mutex);
  return !net->looks.empty() && *net->looks.begin() != now;
}

void real_quiesce(RealNetwork* net) {
  std::unique_lock lock(net->jobs_mutex);
  // Bounded: an aborted run ends every wait and sleep of the transfers left.
  net->jobs_quiet.wait(lock, [&] { return net->jobs.empty() && net->busy == 0; });
}

void real_isend(MachineImpl& m, NodeState& src, int dst, Message* msg, RequestState& req) {
  RealNetwork& net = *m.real;
  std::lock_guard lock(net.jobs_mutex);
  net.unsettled.fetch_add(1, std::memory_order_seq_cst);
  net.jobs.push_back({&m, &src, dst, msg, &req});
  if (net.idle > 0) {
    net.jobs_ready.notify_one();
    return;
  }
  try {
    net.workers.emplace_back([&net] { net.work(); });
  } catch (const std::system_error& e) {
    net.jobs.pop_back();
    net.unsettled.fetch_sub(1, std::memory_order_seq_cst);
    delete msg;
    throw UsageError("node " + std::to_string(src.rank) + ": isend: the system refused a "
                     "transfer thread (" + std::string(e.what()) + "): too many isends in "
                     "flight at once on the real clock");
  }
}

void real_abort(RealNetwork* net) {
  { std::lock_guard lock(net->sleep_mutex); }
  net->woken.notify_all();
  { std::lock_guard lock(net->mutex); }
  net->freed.notify_all();
}

std::vector<int> real_link_peak(RealNetwork* net) {
  std::lock_guard lock(net->mutex);
  return net->link_peak;
}

void real_reset(RealNetwork* net) {
  std::lock_guard lock(net->mutex);
  std::fill(net->link_peak.begin(), net->link_peak.end(), 0);
  std::fill(net->link_users.begin(), net->link_users.end(), 0);
  std::fill(net->port_count.begin(), net->port_count.end(), 0);
  std::fill(net->port_partner.begin(), net->port_partner.end(), -1);
  std::fill(net->out_busy.begin(), net->out_busy.end(), 0);
  std::fill(net->in_busy.begin(), net->in_busy.end(), 0);
  net->posted.clear();
}


namespace {

bool ports_free(const RealNetwork& n, Port port, int src, int dst) {
  switch (port) {
    case Port::all: return true;
    case Port::duplex: return !n.out_busy[src] && !n.in_busy[dst];
    case Port::half: return n.port_count[src] == 0 && n.port_count[dst] == 0;
    case Port::exchange:
      return (n.port_count[src] == 0 || n.port_partner[src] == dst) &&
             (n.port_count[dst] == 0 || n.port_partner[dst] == src);
  }
  return true;
}

void take_ports(RealNetwork& n, Port port, int src, int dst, int delta) {
  switch (port) {
    case Port::all: break;
    case Port::duplex:
      n.out_busy[src] = delta > 0;
      n.in_busy[dst] = delta > 0;
      break;
    case Port::half:
    case Port::exchange:
      for (auto [a, b] : {std::pair{src, dst}, std::pair{dst, src}}) {
        n.port_count[a] += delta;
        n.port_partner[a] = n.port_count[a] > 0 ? b : -1;
      }
      break;
  }
}

// Marks that the network's state changed (tokens freed, a receive posted): the deadlock
// check sees activity, as for a message delivered. Call after the change, outside the lock.
void changed(MachineImpl& m) {
  m.activity.fetch_add(1, std::memory_order_seq_cst);
  m.real->freed.notify_all();
}

// Waits until `ready` holds under the network mutex; throws RunAborted if the run ends.
// real_abort wakes it; the 50 ms bound only guards against a lost wake-up. While it waits
// the node counts as blocked for the deadlock check (NodeState::block_until): tokens are
// held only by nodes sleeping through a transfer, which are not blocked, so every nodes
// blocked means sends waiting for receives that are never posted (rendezvous).
// `node`: the node whose thread waits, or null on a transfer thread (its node is not
// blocked by it: it went on after its isend).
template <class Ready>
void wait_tokens(MachineImpl& m, NodeState* node, std::unique_lock<std::mutex>& lock,
                 const WaitDescription& what, Ready ready) {
  if (ready()) return;
  if (node != nullptr) {
    std::lock_guard guard(node->wait_mutex);
    node->waiting = what;
  }
  RealNetwork& net = *m.real;
  for (;;) {
    if (m.abort.load(std::memory_order_acquire)) throw RunAborted{};
    const std::uint64_t stamp = m.activity.load(std::memory_order_seq_cst);
    if (ready()) break;
    if (node != nullptr) {
      node->blocked_stamp.store(stamp + 1, std::memory_order_seq_cst);
    } else {  // a transfer thread: parked, having looked at `stamp` (see real_transfers_moving)
      std::lock_guard looks(net.looks_mutex);
      net.looks.insert(stamp);
      net.unsettled.fetch_sub(1, std::memory_order_seq_cst);
    }
    net.freed.wait_for(lock, std::chrono::milliseconds(50));
    if (node != nullptr) {
      node->blocked_stamp.store(0, std::memory_order_seq_cst);
    } else {
      std::lock_guard looks(net.looks_mutex);
      net.unsettled.fetch_add(1, std::memory_order_seq_cst);
      net.looks.erase(net.looks.find(stamp));
    }
  }
}

using WallClock = std::chrono::steady_clock;

// Sleeps until `model_time` (scaled) after `from`: deadlines are absolute, so the time spent
// taking tokens and bookkeeping is not added on top of the modelled duration. Ends early,
// throwing RunAborted, when the run is aborted.
WallClock::time_point sleep_model(MachineImpl& m, WallClock::time_point from,
                                  Picos model_time) {
  if (model_time <= 0) return from;
  // time_scale is at most 1e3 (checked by the machine), so this stays below 1e10 s.
  const auto wall = std::chrono::duration_cast<WallClock::duration>(
      std::chrono::duration<double>(to_seconds(model_time) * m.config.time_scale));
  const auto deadline = from + wall;
  RealNetwork& net = *m.real;
  std::unique_lock lock(net.sleep_mutex);
  if (net.woken.wait_until(lock, deadline,
                           [&] { return m.abort.load(std::memory_order_acquire); })) {
    throw RunAborted{};
  }
  return deadline;
}

}  // namespace

void real_transfer(MachineImpl& m, NodeState& src, int dst, Message* raw, MessageEvent* out) {
  std::unique_ptr<Message> msg(raw);
  RealNetwork& net = *m.real;
  const Model& model = m.config.model;
  const bool exclusive = model.contention == Contention::exclusive;
  // 004 §13: a blocked worm keeps its ports and the links it has taken (see Worm).
  const bool blocking = exclusive && model.worm == Worm::blocking &&
                        model.routing == Routing::wormhole;
  std::vector<LinkId> route;
  if (m.uses_links) m.topology->route(src.rank, dst, route);
  const bool saf = model.routing == Routing::store_and_forward && !route.empty();
  const std::size_t hops = saf ? route.size() : 1;

  MessageEvent ev;
  ev.src = src.rank;
  ev.dst = dst;
  ev.tag = msg->tag;
  ev.comm = msg->comm;
  ev.items = msg->items;
  ev.bytes = msg->bytes;
  ev.request = src.now_real();
  ev.links = route;
  const bool rendezvous = model.protocol == Protocol::rendezvous && dst != src.rank;
  const auto post_key = std::tuple{dst, msg->comm, src.rank, msg->tag};
  Picos link_wait = 0;  // time waited with the ports free but a link held
  Picos stretch = 0;    // modelled extra time from sharing links

  for (std::size_t hop = 0; hop < hops; ++hop) {
    std::span<const LinkId> links =
        saf ? std::span<const LinkId>(&route[hop], 1) : std::span<const LinkId>(route);
    Picos requested = src.now_real();
    {
      std::unique_lock lock(net.mutex);
      Picos since = requested;
      bool on_link = false;
      bool ports_held = false;
      std::size_t links_held = 0;
      const WaitDescription what{rendezvous ? "send (rendezvous: its receive is not posted)"
                                            : "send (waiting for ports and links)",
                                 -1, dst, msg->tag, msg->comm};
      wait_tokens(m, out == nullptr ? &src : nullptr, lock, what, [&] {
        const Picos now = src.now_real();
        if (on_link) link_wait += now - since;
        since = now;
        on_link = false;
        if (hop == 0 && rendezvous) {
          auto it = net.posted.find(post_key);
          if (it == net.posted.end()) return false;
          // Waiting for the receive to be posted is neither a port nor a link wait.
          requested = std::max(requested, it->second.front());
        }
        if (blocking) {
          if (!ports_held) {
            if (!ports_free(net, model.port, src.rank, dst)) return false;
            take_ports(net, model.port, src.rank, dst, +1);
            ports_held = true;
          }
          for (; links_held < links.size(); ++links_held) {
            const LinkId l = links[links_held];
            if (net.link_users[l] > 0) {
              on_link = true;
              return false;
            }
            net.link_users[l] = 1;
            net.link_peak[l] = std::max(net.link_peak[l], 1);
          }
          return true;
        }
        if (hop == 0 && !ports_free(net, model.port, src.rank, dst)) return false;
        if (exclusive) {
          for (LinkId l : links) {
            if (net.link_users[l] > 0) {
              on_link = true;
              return false;
            }
          }
        }
        return true;
      });
      if (hop == 0 && rendezvous) {
        auto it = net.posted.find(post_key);
        it->second.pop_front();
        if (it->second.empty()) net.posted.erase(it);
      }
      if (!blocking) {
        if (hop == 0) take_ports(net, model.port, src.rank, dst, +1);
        for (LinkId l : links) {
          ++net.link_users[l];
          net.link_peak[l] = std::max(net.link_peak[l], net.link_users[l]);
        }
      }
    }
    net.moving.fetch_add(1, std::memory_order_seq_cst);
    struct Moving {  // ends with the hop, however it ends (an abort throws out of sleeps)
      MachineImpl& m;
      ~Moving() { m.real->moving.fetch_sub(1, std::memory_order_seq_cst); }
    } moving{m};
    const auto wall_start = WallClock::now();
    Picos started = src.now_real();
    if (hop == 0) ev.start = started;
    ev.waited += std::max<Picos>(0, started - requested);
    if (exclusive) {
      sleep_model(m, wall_start, m.links.message(m.units, links, msg->items));
    } else {
      // The n beta part in slices (at the uncontended rate), each stretched to the rate
      // max(beta, max_l c_l beta_net_l) of the sharers c_l on its links at the slice's start.
      auto at = sleep_model(m, wall_start, m.units.startup(msg->items));
      const Picos alone = m.links.item_time(m.units, links);
      Picos remaining = checked_mul(alone, msg->items, "transfer time n beta");
      const Picos slice = std::max<Picos>(remaining / 8, 1);
      while (remaining > 0) {
        Picos rate = 0;
        {
          std::lock_guard lock(net.mutex);
          rate = m.links.item_time(m.units, links, [&net](LinkId l) {
            return static_cast<std::uint64_t>(std::max(1, net.link_users[l]));
          });
        }
        const Picos step = std::min(remaining, slice);
        const Picos stretched = static_cast<Picos>(Wide(step) * rate / alone);
        stretch += stretched - step;
        at = sleep_model(m, at, stretched);
        remaining -= step;
      }
    }
    // The end is read before the tokens are released, so that a message that takes them
    // next never appears to start before this one ended.
    ev.end = src.now_real();
    {
      std::lock_guard lock(net.mutex);
      for (LinkId l : links) --net.link_users[l];
      if (hop + 1 == hops) take_ports(net, model.port, src.rank, dst, -1);
    }
    changed(m);
  }
  ev.contention_delay = link_wait + stretch;
  if (!m.config.trace) ev.links.clear();
  if (out != nullptr) *out = std::move(ev);
  else src.log.messages.push_back(std::move(ev));
  NodeState& target = *m.nodes[dst];
  target.incoming.enqueue(msg.release());
  m.wake(target);
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
      real_transfer(*job.machine, *job.src, job.dst, job.msg, &job.req->event);
    } catch (const RunAborted&) {
      // The run is being ended; the node reports nothing for this transfer.
    } catch (const std::exception& e) {
      job.machine->record_error(job.src->rank, e.what());
      job.machine->abort_run();
    }
    job.req->done.store(true, std::memory_order_release);
    job.machine->wake(*job.src);
    unsettled.fetch_sub(1, std::memory_order_seq_cst);
    lock.lock();
    --busy;
    if (busy == 0 && jobs.empty()) jobs_quiet.notify_all();
  }
}

void real_compute(MachineImpl& m, NodeState& node, Picos duration, std::uint64_t items,
                  Work kind) {
  const auto wall_start = WallClock::now();
  Picos start = node.now_real();
  sleep_model(m, wall_start, duration);
  node.log.combines.push_back({node.rank, items, start, node.now_real(), kind});
}

void real_post_receive(MachineImpl& m, NodeState& receiver, std::uint32_t comm, int src,
                       Tag tag) {
  if (m.config.model.protocol != Protocol::rendezvous || src == receiver.rank) return;
  RealNetwork& net = *m.real;
  {
    std::lock_guard lock(net.mutex);
    net.posted[{receiver.rank, comm, src, tag}].push_back(receiver.now_real());
  }
  changed(m);
}

}  // namespace vmc::detail
