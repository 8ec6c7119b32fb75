// The transport interface's defaults (transport.hpp).
#include "runtime/transport.hpp"

#include <algorithm>
#include <chrono>
#include <stdexcept>

#include "runtime/machine_impl.hpp"

namespace vmc::detail {

std::string Transport::refuses(const NodeState&, const Outgoing&) const { return {}; }

const char* Transport::unsupported(Call call) const {
  // What only the virtual clock answers so far: it decides them in model time.
  switch (call) {
    case Call::wildcard:
      return "receives from any source or of any tag are offered on the virtual clock only "
             "(its simulation decides which message comes first): name the source and tag, or "
             "run on the virtual clock";
    case Call::probe:
      return "probes are offered on the virtual clock only (its simulation decides which "
             "messages have arrived): run on the virtual clock";
    case Call::cancel:
      return "cancel is offered on the virtual clock only (its simulation decides whether a "
             "message matched the receive first): run on the virtual clock";
    default:
      return nullptr;
  }
}

std::string Transport::failed_problem(int failed, Needed) const {
  return "node " + std::to_string(failed) + " has failed";
}

void Transport::completed(NodeState&, RequestState&) {}

void Transport::waits(NodeState&, std::span<const std::uint32_t>) {}

std::size_t Transport::wait_any(NodeState& self, std::span<const std::uint32_t> ids,
                                const WaitDescription& what) {
  // The first to complete (the lowest index if several have).
  std::size_t chosen = 0;
  auto first_ready = [&] {
    for (std::size_t k = 0; k < ids.size(); ++k) {
      if (arrived(self, self.requests[ids[k]])) {
        chosen = k;
        return true;
      }
    }
    return false;
  };
  if (!first_ready()) block(self, first_ready, what);
  return chosen;
}

bool Transport::test(NodeState& self, std::uint32_t id, const WaitDescription&) {
  return arrived(self, self.requests[id]);
}

std::vector<std::int64_t> Transport::test_list(NodeState& self, std::span<const std::uint32_t> ids,
                                               bool, const WaitDescription&) {
  std::vector<std::int64_t> keys(ids.size(), -1);
  for (std::size_t k = 0; k < ids.size(); ++k) {
    if (arrived(self, self.requests[ids[k]])) keys[k] = 0;
  }
  return keys;
}

Found Transport::probe(NodeState&, const Incoming&, bool, const WaitDescription&) {
  throw std::logic_error("vmc: this transport does not probe");
}

bool Transport::match(NodeState&, std::uint32_t, const Incoming&, bool, const WaitDescription&) {
  throw std::logic_error("vmc: this transport does not probe");
}

bool Transport::cancel(NodeState&, std::uint32_t, const WaitDescription&) {
  throw std::logic_error("vmc: this transport does not cancel receives");
}

SplitResult Transport::create_group(NodeState&, CommGroup&, std::span<const int>, int,
                                    std::uint64_t, std::int64_t) {
  throw std::logic_error("vmc: this transport does not make groups from a list of members");
}

Picos Transport::now(NodeState& self, const WaitDescription&) {
  const double wall =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - self.run_start).count();
  return to_picos(std::max(0.0, wall / self.machine->config.time_scale));
}

}  // namespace vmc::detail
