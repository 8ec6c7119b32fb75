// The transport interface's defaults (transport.hpp).
#include "runtime/transport.hpp"

#include <algorithm>
#include <chrono>
#include <stdexcept>

#include "runtime/machine_impl.hpp"

namespace vmc::detail {

std::string Transport::refuses(const NodeState&, const Outgoing&) const { return {}; }

const char* Transport::unsupported(Call) const { return nullptr; }

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
