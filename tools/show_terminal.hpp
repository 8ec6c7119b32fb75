// A run told step by step in the terminal, for a class without a browser: at every moment a
// message starts or begins to wait, the network's ASCII drawing (topology/draw.hpp) with the
// links in use marked, the messages moving, and the messages waiting with what they wait for
// (and, under --fail, the nodes stopped and the links down).
#pragma once

#include <string>

#include "runtime/errors.hpp"
#include "runtime/trace.hpp"
#include "topology/topology.hpp"

namespace vmc::cli {

// At most max_steps steps are printed; the rest are counted. With `failures` (a run under
// --fail), each step also names the nodes stopped and the links down by then.
std::string terminal_steps(const Topology& t, const Trace& trace, int max_steps = 40,
                           const FailureReport* failures = nullptr);

}  // namespace vmc::cli
