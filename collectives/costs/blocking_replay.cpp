// The replay of blocking send/receive programs (blocking_replay.hpp).
#include "collectives/costs/blocking_replay.hpp"

#include <algorithm>
#include <functional>
#include <iterator>
#include <queue>
#include <set>
#include <stdexcept>
#include <tuple>
#include <unordered_map>
#include <utility>

namespace vmc::internal {

namespace {

struct Message {
  int from = -1, to = -1;
  Picos duration = 0;
  Picos requested = -1, end = -1;
  bool ended = false;
};

}  // namespace

BlockingReplay::Result BlockingReplay::run(bool all_port) const {
  const int p = static_cast<int>(programs_.size());
  // Message ids: the k-th send from a to b is the k-th receive at b from a.
  std::vector<Message> msgs;
  std::vector<std::vector<int>> op_msg(p);
  std::unordered_map<long long, std::vector<int>> sent;
  for (int v = 0; v < p; ++v) {
    for (const Op& op : programs_[v]) {
      if (!op.send) continue;
      sent[static_cast<long long>(v) * p + op.peer].push_back(static_cast<int>(msgs.size()));
      msgs.push_back({v, op.peer, op.duration});
    }
  }
  std::unordered_map<long long, std::size_t> taken;
  std::vector<std::size_t> next_send(p, 0);
  for (int v = 0; v < p; ++v) {
    for (const Op& op : programs_[v]) {
      if (op.peer < 0) {  // local work
        op_msg[v].push_back(-1);
        continue;
      }
      if (op.send) {
        const auto& list = sent[static_cast<long long>(v) * p + op.peer];
        op_msg[v].push_back(list[taken[static_cast<long long>(v) * p + op.peer]++]);
        continue;
      }
      const long long key = static_cast<long long>(op.peer) * p + v;
      const auto it = sent.find(key);
      const std::size_t k = taken[-1 - key]++;
      if (it == sent.end() || k >= it->second.size()) {
        throw std::logic_error("blocking replay: a receive without its send");
      }
      op_msg[v].push_back(it->second[k]);
    }
  }

  Result result;
  std::vector<std::size_t> pc(p, 0);
  std::vector<int> blocked(p, -1);  // the message a node waits for
  std::vector<bool> in_busy(p, false);
  std::vector<std::vector<int>> waiting(p);  // requests per receiver
  std::set<int> runnable, ports;             // nodes to step; receivers with requests
  for (int v = 0; v < p; ++v) runnable.insert(v);
  using End = std::pair<Picos, int>;
  std::priority_queue<End, std::vector<End>, std::greater<End>> ends;
  std::priority_queue<End, std::vector<End>, std::greater<End>> wakes;  // ends of work
  std::vector<bool> working(p, false);
  int finished = 0;
  Picos now = 0;
  while (true) {
    while (!ends.empty() && ends.top().first == now) {  // message ends
      Message& m = msgs[ends.top().second];
      const int id = ends.top().second;
      ends.pop();
      m.ended = true;
      if (!all_port) in_busy[m.to] = false;
      if (blocked[m.from] == id) blocked[m.from] = -1, runnable.insert(m.from);
      if (blocked[m.to] == id) blocked[m.to] = -1, runnable.insert(m.to);
    }
    while (!wakes.empty() && wakes.top().first == now) {  // ends of work
      working[wakes.top().second] = false;
      runnable.insert(wakes.top().second);
      wakes.pop();
    }
    for (int v : runnable) {  // node steps, by rank
      while (pc[v] < programs_[v].size()) {
        const int id = op_msg[v][pc[v]];
        const Op& op = programs_[v][pc[v]];
        if (op.peer < 0) {
          ++pc[v];
          if (op.duration == 0) continue;
          working[v] = true;
          wakes.push({now + op.duration, v});
          break;
        }
        if (op.send) {
          msgs[id].requested = now;
          waiting[msgs[id].to].push_back(id);
          ports.insert(msgs[id].to);
          blocked[v] = id;
          ++pc[v];
          break;
        }
        if (!msgs[id].ended) {
          blocked[v] = id;
          break;
        }
        ++pc[v];
      }
      if (pc[v] == programs_[v].size() && blocked[v] < 0 && !working[v]) {
        ++finished;
        result.time = std::max(result.time, now);
      }
    }
    runnable.clear();
    for (int r : ports) {  // grants
      std::vector<int>& w = waiting[r];
      while (!w.empty() && !in_busy[r]) {
        const auto key = [&](int id) {
          const Message& m = msgs[id];
          return std::make_tuple(blocked[r] != id, m.requested, m.from, id);
        };
        const auto best = std::min_element(
            w.begin(), w.end(), [&](int a, int b) { return key(a) < key(b); });
        const int id = *best;
        w.erase(best);
        if (msgs[id].requested < now) result.waited = true;
        msgs[id].end = now + msgs[id].duration;
        ends.push({msgs[id].end, id});
        if (!all_port) in_busy[r] = true;
      }
    }
    for (auto it = ports.begin(); it != ports.end();) {
      it = waiting[*it].empty() ? ports.erase(it) : std::next(it);
    }
    if (ends.empty() && wakes.empty()) break;
    if (ends.empty()) now = wakes.top().first;
    else if (wakes.empty()) now = ends.top().first;
    else now = std::min(ends.top().first, wakes.top().first);
  }
  if (finished != p) throw std::logic_error("blocking replay: the programs cannot end");
  return result;
}

}  // namespace vmc::internal
