// The texts of a failed run's RunError, shared by every transport (errors.cpp). Internal.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "runtime/errors.hpp"

namespace vmc::detail {

// "node 3 threw: <what>", and how many other nodes threw.
std::string threw_report(int node, const std::string& what, std::size_t throwers);
// Every unfinished node blocked, with what each waits for.
RunError deadlock_error(std::vector<BlockedWait> waits);
// A node the watchdog found outside any wait (BlockedWait::operation).
inline constexpr char kRunningNode[] = "running";
// No progress for `seconds`, with what every unfinished node was doing (blocked_waits with
// the running nodes too), on `where` ("" on one process).
RunError watchdog_error(double seconds, std::vector<BlockedWait> nodes,
                        const std::string& where = "");

}  // namespace vmc::detail
