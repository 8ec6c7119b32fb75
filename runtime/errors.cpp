// The texts of the errors a run ends with (errors.hpp, run_errors.hpp).
#include <algorithm>
#include <atomic>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <sstream>
#include <tuple>

#include "runtime/comm.hpp"
#include "runtime/errors.hpp"
#include "runtime/run_errors.hpp"
#include "runtime/tags.hpp"

namespace vmc {

std::string BlockedWait::describe() const {
  std::ostringstream s;
  s << "node " << node << ": " << operation;
  if (operation == detail::kRunningNode) {
    s << " (in none of vmc's waits)";
    if (!context.empty()) s << ", in " << context;
    return s.str();
  }
  if (operation == detail::kQueuedNode) {
    s << " (its fibers worker runs another node)";
    if (!context.empty()) s << ", in " << context;
    return s.str();
  }
  if (peer >= 0) {
    s << " from rank " << peer;
    if (peer_world != peer) s << " (node " << peer_world << ")";
  } else if (peer_world >= 0) {
    s << " to node " << peer_world;  // a send waiting for its ports and links (real clock)
  }
  if (detail::wait_names_a_tag(operation)) s << " " << tag_text(tag);
  s << " on comm " << comm;
  if (other) s << " (" << other_message() << ")";
  if (!context.empty()) s << ", in " << context;
  return s.str();
}

bool detail::wait_names_a_tag(std::string_view operation) {
  for (std::string_view none : {"split", "create_group", "collective", "now", "the failure check",
                                "the failure's report", kStoppingNode}) {
    if (operation == none) return false;
  }
  return true;
}

std::string BlockedWait::other_message() const {
  if (!other) return "";
  return "a message from node " + std::to_string(other_world) + " waits under " +
         tag_text(other_tag) + ", " + counted(other_bytes, "byte");
}

std::string tag_text(long long tag) {
  if (tag == kAnyTag) return "any tag";
  if (tag >= detail::kCollectiveTagBase) {
    return "tag " + std::to_string(detail::tag_in_call(tag)) + " of collective call " +
           std::to_string(detail::call_of(tag));
  }
  return "tag " + std::to_string(tag);
}

std::string counted(unsigned long long count, const std::string& noun) {
  return std::to_string(count) + " " + noun + (count == 1 ? "" : "s");
}

std::string seconds_text(double seconds) {
  char text[32];
  std::snprintf(text, sizeof text, "%g s", seconds);
  return text;
}

std::string number_ranges(const std::vector<int>& numbers, int max_pieces) {
  std::string text;
  int pieces = 0;
  for (std::size_t i = 0; i < numbers.size();) {
    if (max_pieces > 0 && pieces == max_pieces) {
      return text + " and " + std::to_string(numbers.size() - i) + " more";
    }
    std::size_t j = i;
    while (j + 1 < numbers.size() && numbers[j + 1] == numbers[j] + 1) ++j;
    if (!text.empty()) text += ", ";
    text += std::to_string(numbers[i]);
    if (j >= i + 2) {
      text += "-" + std::to_string(numbers[j]);
      i = j + 1;
    } else {
      i = i + 1;
    }
    ++pieces;
  }
  return text;
}

std::string nodes_text(const std::vector<int>& nodes) {
  std::string text = nodes.size() == 1 ? "node " : "nodes ";
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    if (i == 16) return text + " and " + std::to_string(nodes.size() - 16) + " more";
    text += (i == 0 ? "" : ", ") + std::to_string(nodes[i]);
  }
  return text;
}

namespace {

void report_and_end(const RunError& error) {
  std::fprintf(stderr, "vmc: %s\n", error.what());
  std::fflush(nullptr);
  std::_Exit(interrupt_requested() != 0 ? 128 + interrupt_requested() : 1);
}

std::atomic<StuckHandler> the_stuck_handler{nullptr};

}  // namespace

void set_stuck_handler(StuckHandler handler) { the_stuck_handler.store(handler); }

namespace {
std::atomic<int> the_interrupt{0};
static_assert(std::atomic<int>::is_always_lock_free);  // read and written in signal handlers
}  // namespace

namespace detail {
std::atomic<int> watched_runs{0};
}  // namespace detail

void request_interrupt(int signal) noexcept { the_interrupt.store(signal); }
int interrupt_requested() noexcept { return the_interrupt.load(std::memory_order_relaxed); }
void clear_interrupt() noexcept { the_interrupt.store(0); }
int runs_watched() noexcept { return detail::watched_runs.load(); }

StuckHandler stuck_handler() {
  StuckHandler h = the_stuck_handler.load();
  return h != nullptr ? h : &report_and_end;
}

namespace detail {

std::string threw_report(int node, const std::string& what, std::size_t throwers) {
  std::string text = "node " + std::to_string(node) + " threw: " + what;
  if (throwers > 1) {
    text += " (and " + std::to_string(throwers - 1) + " other node";
    text += throwers > 2 ? "s threw too)" : " threw too)";
  }
  return text;
}

RunError deadlock_error(std::vector<BlockedWait> waits) {
  std::string text = "deadlock: every unfinished node is blocked and nothing in flight can "
                     "release it:";
  for (const auto& w : waits) text += "\n  " + w.describe();
  text += absent_members_text(waits);
  return RunError(RunError::Kind::deadlock, text, -1, std::move(waits));
}

std::vector<CallWithAbsentMembers> calls_with_absent_members(const std::vector<BlockedWait>& waits) {
  std::map<std::pair<unsigned, std::uint64_t>, CallWithAbsentMembers> calls;  // (comm, call)
  for (const BlockedWait& w : waits) {
    if (w.not_begun.empty()) continue;
    CallWithAbsentMembers& c = calls[{w.comm, call_of(w.tag)}];
    if (c.first == nullptr) c.first = &w;
    c.waits.push_back(&w);
    c.waiting.push_back(w.node);
  }
  std::vector<CallWithAbsentMembers> list;
  for (auto& [key, c] : calls) list.push_back(std::move(c));
  return list;
}

std::string absent_members_text(const std::vector<BlockedWait>& waits) {
  std::string text;
  for (const CallWithAbsentMembers& c : calls_with_absent_members(waits)) {
    const BlockedWait& w = *c.first;
    text += "\n  " + nodes_text(c.waiting) + (c.waiting.size() == 1 ? " waits" : " wait") +
            " inside collective call " + std::to_string(call_of(w.tag)) + " on comm " +
            std::to_string(w.comm) + ", which " + nodes_text(w.not_begun) +
            (w.not_begun.size() == 1 ? " has" : " have") + " not begun";
  }
  return text;
}

RunError unreceived_error(std::vector<Unreceived> left) {
  // By node, then sender, comm and tag; messages alike in all four keep their order.
  std::stable_sort(left.begin(), left.end(), [](const Unreceived& a, const Unreceived& b) {
    return std::tie(a.node, a.src, a.comm, a.tag) < std::tie(b.node, b.src, b.comm, b.tag);
  });
  std::string text = "messages left unreceived: every node returned, but no receive took " +
                     std::string(left.size() == 1 ? "this message" : "these messages") +
                     " (a program must receive every message it sends):";
  std::size_t shown = 0;
  for (const Unreceived& u : left) {
    if (shown++ == 8) {
      text += "\n  ... and " + counted(left.size() - 8, "more message");
      break;
    }
    const std::string tag =
        u.call_known || u.tag < detail::kCollectiveTagBase
            ? tag_text(u.tag)
            : "tag " + std::to_string(detail::tag_in_call(u.tag)) + " of a collective call";
    text += "\n  node " + std::to_string(u.node) + ": from node " + std::to_string(u.src) +
            ", " + tag + " on comm " + std::to_string(u.comm) + ", " + counted(u.bytes, "byte");
  }
  const int node = left.empty() ? -1 : left.front().node;
  return RunError(RunError::Kind::unreceived, text, node, {});
}

std::string signal_text(int signal) {
  if (signal == SIGINT) return "SIGINT";
  return signal == SIGTERM ? "SIGTERM" : "signal " + std::to_string(signal);
}

namespace {

// "WHY: the run was ended; its unfinished nodes:" and a line each.
RunError ended_run(RunError::Kind kind, const std::string& why, std::vector<BlockedWait> nodes) {
  std::string text = why + ": the run was ended";
  if (!nodes.empty()) text += "; its unfinished nodes:";
  for (const auto& w : nodes) text += "\n  " + w.describe();
  return RunError(kind, text, -1, std::move(nodes));
}

}  // namespace

RunError interrupted_error(int signal, std::vector<BlockedWait> nodes) {
  return ended_run(RunError::Kind::interrupted, "interrupted (" + signal_text(signal) + ")",
                   std::move(nodes));
}

RunError watchdog_error(double seconds, std::vector<BlockedWait> nodes,
                        const std::string& where) {
  return ended_run(RunError::Kind::watchdog, "no progress for " + seconds_text(seconds) + where,
                   std::move(nodes));
}

}  // namespace detail
}  // namespace vmc
