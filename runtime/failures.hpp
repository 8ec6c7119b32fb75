// Failures on purpose (MachineConfig::failures and link_failures; docs/model.md, "Failed
// nodes" and "Failed links"): a node that stops at a given virtual time, a link that goes
// down at one, and the text of `--fail`. The report of what they did is errors.hpp's
// FailureReport.
#pragma once

#include <cstdint>
#include <optional>
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

// The link between neighbours `a` and `b` (both directions) goes down at virtual time `at`
// seconds and stays down (docs/model.md, "Failed links"). A message whose sender reaches the
// send at or after `at` and whose route (Topology::route) crosses the link takes another
// route the topology's routing allows that avoids every link down at that time
// (Topology::route_around; FailRoutes::around, the default); only when there is none (or under
// FailRoutes::fixed) is it lost. A message sent before `at` holds its route from its start
// (004 §13's worm holds its channels) and arrives. A lost message still reaches its
// receiver's mailbox as a marker without data, matched as the message would have been, and
// the receive that takes it throws LinkFailedError (errors.hpp). The eager sender is not
// told; a synchronous send's sender is, when its receive matches. Under --routing direct
// (every pair adjacent) only messages between a and b cross the link, and none reroutes.
struct LinkFailure {
  int a = 0;
  int b = 0;
  double at = 0;
  bool operator==(const LinkFailure&) const = default;
};

// What a message does whose route crosses a link that is down when it is sent
// (MachineConfig::fail_routes, --fail-routes): `around`, take another route the topology's
// routing allows that avoids every link down then, lost only when there is none; `fixed`,
// keep its route and be lost.
enum class FailRoutes { around, fixed };
std::string to_string(FailRoutes r);
// "around" or "fixed"; std::invalid_argument otherwise.
FailRoutes parse_fail_routes(std::string_view s);

// Failures drawn from a seed (MachineConfig::random_failures, --fail random:...; docs/model.md,
// "Random failures"). The draw depends on the spec, the machine's size and the nodes given
// failures of their own (left out of it) alone, so a spec fails the same nodes at the same
// virtual times on every run and under both engines. Times are whole nanoseconds. Two forms:
//   count=K,before=T,seed=S  K distinct nodes chosen uniformly, each failing at a time drawn
//                            uniformly from [0, T): "one node failing at a random time in a run
//                            of T" is count=1,before=T;
//   rate=R,seed=S[,before=T] every node fails once at a time drawn from the exponential
//                            distribution of rate R per second of virtual time (a node's mean
//                            time to failure is 1/R s), and with before=T only the draws before
//                            T are kept. A draw past 100 days (vmc's clock) is dropped.
struct RandomFailures {
  int count = 0;        // the count form when above 0
  double rate = 0;      // the rate form when above 0, failures per node per virtual second
  double before = 0;    // seconds; 0: none (the rate form only)
  std::uint64_t seed = 0;
  bool operator==(const RandomFailures&) const = default;
};
// "random:count=1,before=5ms,seed=7": the spec as --fail takes it.
std::string describe(const RandomFailures& r);
// The failures r draws on a machine of `nodes` nodes, leaving out the nodes of `given`, as
// node: failures that replay it, in order of time (then node). Throws std::invalid_argument
// when the count asks for more nodes than are left, or a field is out of range.
std::vector<NodeFailure> draw_failures(const RandomFailures& r, int nodes,
                                       const std::vector<NodeFailure>& given = {});

// What --fail says: node failures and link failures in the order given, and at most one
// random draw (random failures are node failures only).
struct FailureSpec {
  std::vector<NodeFailure> nodes;
  std::vector<LinkFailure> links;
  std::optional<RandomFailures> random;
  bool operator==(const FailureSpec&) const = default;
};
// "node:3@2ms,node:5@0,link:3-7@1ms,random:count=1,before=1ms,seed=4": the failures. Throws
// std::invalid_argument naming the item and the problem (a node or a link given twice, a link
// from a node to itself, a negative time, a time other than 0 without a unit, a random field
// missing or out of range, a kind vmc does not offer). Whether a link's ends are neighbours is
// the machine's to check (Machine).
FailureSpec parse_failures(std::string_view text);
// The node failures back ("node:3@2ms,node:5@0"), each time exact to the picosecond, so that
// --fail given the text replays them.
std::string describe_failures(const std::vector<NodeFailure>& failures);
// The link failures back ("link:0-4@0,link:1-5@1.5ms"), each time exact to the picosecond.
std::string describe_failures(const std::vector<LinkFailure>& failures);
// "link 3-7": a failed link as every message names it.
std::string link_name(const LinkFailure& f);

}  // namespace vmc
