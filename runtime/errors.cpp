// The texts of the errors a run ends with (errors.hpp, run_errors.hpp).
#include <sstream>

#include "runtime/errors.hpp"
#include "runtime/run_errors.hpp"

namespace vmc {

std::string BlockedWait::describe() const {
  std::ostringstream s;
  s << "node " << node << ": " << operation;
  if (operation == detail::kRunningNode) {
    s << " (in none of vmc's waits)";
    if (!context.empty()) s << ", in " << context;
    return s.str();
  }
  if (peer >= 0) {
    s << " from rank " << peer;
    if (peer_world != peer) s << " (node " << peer_world << ")";
  } else if (peer_world >= 0) {
    s << " to node " << peer_world;  // a send waiting for its ports and links (real clock)
  }
  if (operation != std::string("split") && operation != std::string("collective")) {
    if (tag == -1) {
      s << " any tag";  // kAnyTag
    } else {
      s << " tag " << tag;
    }
  }
  s << " on comm " << comm;
  if (!context.empty()) s << ", in " << context;
  return s.str();
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
  return RunError(RunError::Kind::deadlock, text, -1, std::move(waits));
}

RunError watchdog_error(double seconds, std::vector<BlockedWait> nodes,
                        const std::string& where) {
  std::string text = "no progress for " + std::to_string(seconds) + " s" + where +
                     ": the run was ended";
  if (!nodes.empty()) text += "; its unfinished nodes:";
  for (const auto& w : nodes) text += "\n  " + w.describe();
  return RunError(RunError::Kind::watchdog, text, -1, std::move(nodes));
}

}  // namespace detail
}  // namespace vmc
