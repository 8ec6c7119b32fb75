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
// No progress for `seconds`.
RunError watchdog_error(double seconds);

}  // namespace vmc::detail
