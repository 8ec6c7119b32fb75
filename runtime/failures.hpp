// Failures on purpose (MachineConfig::failures; docs/model.md, "Failed nodes"): a node that
// stops at a given virtual time, and the text of `--fail`. The report of what they did is
// errors.hpp's FailureReport.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace vmc {

// Node `node` stops at its first runtime call (a send, a receive, a wait, a test, a charge of
// work, a split, ...) made at or after virtual time `at` seconds: its function ends there, and
// the calls of other nodes that need it fail with NodeFailedError.
struct NodeFailure {
  int node = 0;
  double at = 0;
  bool operator==(const NodeFailure&) const = default;
};

// "node:3@2ms,node:5@0": the failures, in the order given. Throws std::invalid_argument
// naming the item and the problem (a node given twice, a negative time, a kind vmc does not
// offer: "link:" is refused as not supported).
std::vector<NodeFailure> parse_failures(std::string_view text);
// The same text back ("node:3@2ms,node:5@0"), for the one-line description of a run.
std::string describe_failures(const std::vector<NodeFailure>& failures);

}  // namespace vmc
