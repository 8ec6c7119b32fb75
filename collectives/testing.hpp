// A test harness for collective algorithms written against Comm: yours, or vmc's own.
//
// An algorithm is a registry row (registry.hpp, Algorithm): a name and a function
// `void run(const vmc::Call&)` that moves the call's type-erased buffers with the Comm's
// point-to-point calls, and optionally when it applies, its cost formula and what the
// formula claims. The harness runs it through the same public call a user makes
// (Options::custom: it need not be registered) over every p in 1..64, roots, lengths (0, 1,
// 2, p-1, p+1, primes, never only multiples of p), item types and ops (built-in ops and a
// non-commutative matrix product where the row accepts it), in-place forms, topologies,
// port models, both protocols, sub-groups of a split Comm, and the real clock with seeded
// schedule perturbation; it compares every member's buffer, and the canaries on both sides
// of it, with the sequential reference (collectives/reference/: inputs distinct per rank
// and item, exact under every op), checks that no send buffer changed and that no message
// was left unreceived, and, on the virtual clock, the time with the row's cost formula as
// its claim says (or as Settings::cost asks). Each case runs a second time among other
// traffic (Settings::crowded): another collective call's messages in flight on the same
// comm under that call's tags and under user tags, and, on a sub-group, the world's
// messages under the tags the call was given, so that a row which ignores its tag or its
// comm takes a message that is not its own. When a case fails it shrinks it (the smallest
// p, then n, then the simplest op, then the simplest machine) and reports that case with
// the code and the environment variable that replay it.
//
// The default sweep visits each p with a few cases that turn the other dimensions in
// turn (about 8 a p); Settings::dense runs their full product instead (docs/testing.md
// gives both counts). Every check prints one line: the cases run and skipped, and the time.
//
//   void my_allreduce(const vmc::Call& call);                  // your algorithm
//   const vmc::Algorithm mine{.name = "mine", .run = my_allreduce};
//   TEST(Mine, Allreduce) { EXPECT_COLLECTIVE(vmc::Operation::allreduce, mine); }
//
// Operations with built-in semantics: broadcast, reduce, allreduce, scan, exscan,
// allgather, gather, scatter, reduce_scatter (equal blocks), alltoall, barrier. Settings::
// reference replaces the built-in expected results by your own.
//
// Link with the CMake target vmc::testing (GoogleTest and RapidCheck come with it).
#pragma once

#include <gtest/gtest.h>
#include <rapidcheck.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "collectives/registry.hpp"
#include "runtime/machine.hpp"

namespace vmc::harness {

// The items of the non-commutative test op "matmul": 3x3 matrices of unsigned 32-bit
// integers under the (wrapping) matrix product, associative and not commutative, so a result
// combined out of rank order is caught.
struct Mat3 {
  std::array<std::uint32_t, 9> m{};
  bool operator==(const Mat3&) const = default;
};
inline Mat3 operator*(const Mat3& a, const Mat3& b) {
  Mat3 c;
  for (int i = 0; i < 3; ++i) {
    for (int j = 0; j < 3; ++j) {
      std::uint32_t s = 0;
      for (int k = 0; k < 3; ++k) s += a.m[i * 3 + k] * b.m[k * 3 + j];
      c.m[i * 3 + j] = s;
    }
  }
  return c;
}

// One run: the machine and the call, everything that is needed to replay it. Its text form
// (to_string, parse_case) is what a report prints.
struct Case {
  // The machine: p nodes of a topology family (full, hypercube, ring, array, mesh, torus,
  // tree; mesh and torus take the most nearly square 2-D shape of p), its model.
  int p = 1;
  std::string topology = "full";
  Port port = Port::exchange;
  Routing routing = Routing::wormhole;
  Protocol protocol = Protocol::eager;
  Clock clock = Clock::virtual_time;  // real: the model's costs are 0, so no real waits
  std::uint64_t perturb = 0;          // real clock: schedule perturbation seed (0: none)
  double alpha = 5e-6, beta = 7e-9, gamma = 3e-9;  // virtual clock only
  // Virtual clock: every node starts at a draw in [0, skew] seconds (Model::skew), so that
  // messages arrive in other orders: in the run among other traffic (Settings::crowded), or
  // in the only run when there is none; a skewed run's time is not checked.
  double skew = 0;
  // The comm: "world", or a sub-group of a split: "reversed" (every node, ranks reversed),
  // "even" (the even nodes), "halves" (two halves side by side), "drop1" (all but the last).
  std::string group = "world";
  // The call: MPI's count (as `vmc run --n`), the root (in a smaller sub-group, its last
  // rank when the root is out of it), the items and the op, the in-place form, the data.
  std::size_t n = 0;
  int root = 0;
  std::string type = "int64";  // int32, int64, float, double, mat3 (3x3 uint32 matrices)
  std::string op = "sum";      // sum prod min max land lor lxor band bor bxor; mat3: matmul
  bool in_place = false;
  std::uint64_t seed = 1;
};
std::string to_string(const Case& c);  // "p=6 n=7 root=5 type=int64 op=sum ..."
// The inverse of to_string; fields left out keep their defaults. Throws
// std::invalid_argument naming a bad field.
Case parse_case(std::string_view text);
// The machine of a case.
MachineConfig machine_config(const Case& c);
// The topology spec of a case ("mesh:3x2" for mesh and p = 6).
std::string topology_spec(const Case& c);

// What the run's virtual time is compared with: the row's cost formula, as its claim says
// (`claim`: exact, lower bound, or nothing for an estimate or no claim), or as given here.
enum class CostCheck { none, claim, exact, lower_bound, upper_bound };

// A user's reference: each member's expected buffer after the call, from every member's
// input (the bytes of its send buffer: what the built-in semantics feed the call), the
// number of members and the op; nullopt where the buffer must keep what it had.
using Bytes = std::vector<unsigned char>;
using Reference = std::function<std::vector<std::optional<Bytes>>(
    const Case& c, int members, const std::vector<Bytes>& inputs, const Op& op)>;

struct Settings {
  int min_p = 1, max_p = 64;  // every p in [min_p, max_p]
  // Lengths for every p (empty: 0, 1, 2, p-1, p+1, the first prime above 2p, 997).
  std::vector<std::size_t> lengths;
  // Machines visited in turn: topology families and port models.
  std::vector<std::string> topologies = {"full", "hypercube", "ring", "mesh"};
  std::vector<Port> ports = {Port::exchange, Port::all, Port::duplex, Port::half};
  bool rendezvous = true;   // some cases under the rendezvous protocol
  std::vector<std::string> types = {"int64", "int32", "double", "float"};
  std::vector<std::string> ops = {"sum", "max", "prod", "bxor", "min", "band", "lor"};
  bool non_commutative = true;  // matmul on mat3, where the row accepts non-commutative ops
  bool in_place = true;
  bool sub_groups = true;
  bool perturbation = true;      // some cases on the real clock with perturbed schedules
  std::uint64_t perturb_seed = 0;  // 0: VMC_PERTURB_SEED or 1
  CostCheck cost = CostCheck::claim;
  Reference reference;           // empty: the operation's built-in semantics
  double watchdog_seconds = 30;  // a hung case is reported, not waited for
  // Run only this case (also: the environment variable VMC_HARNESS_CASE, its text).
  std::optional<Case> only;
  // How the replay line names the algorithm (EXPECT_COLLECTIVE: the expression it was
  // given); empty: the row's name.
  std::string replay_name;
  // The full product: for every p, every root (rooted operations) x every length x every
  // item type (its op turned through `ops`) x every port model, topologies in turn; the
  // non-commutative, sub-group and perturbed cases as in the quick sweep. For CI: many
  // times the quick sweep's cases (docs/testing.md).
  bool dense = false;
  // Each case also runs among other traffic (see above); false: only the plain run.
  bool crowded = true;
  // Print the summary line of every check (cases, skipped, time) to standard output.
  bool print = true;
};

// The quick default, or the dense product (Settings::dense) for max_p nodes at most.
Settings dense(int max_p = 64);

struct Report {
  bool passed = true;
  int cases = 0;    // run by the sweep (not counting the shrinking)
  int skipped = 0;  // cases the row says it does not apply to
  double seconds = 0;  // wall time of the sweep and the shrinking
  std::optional<Case> failing;  // the smallest failing case
  std::string failure;          // what went wrong in it
  std::string summary;  // "allgather mine: 522 cases run, 0 skipped (...), 1.93 s"
  std::string message;  // the summary and, on a failure, the case and how to replay it
};

// Whether the harness knows op's semantics.
bool supported(Operation op);
// The cases the sweep runs for `a` as `op`, in order (p first), applicable or not.
std::vector<Case> cases(Operation op, const Algorithm& a, const Settings& s = {});
// Runs one case: "" when it passes, else what went wrong (naming the rank and the item).
// "does not apply" cases return "". Throws std::invalid_argument for an unsupported op.
std::string run_case(Operation op, const Algorithm& a, const Case& c, const Settings& s = {});
// Whether the row applies to the case (its `applicable`, for every group size).
bool applies(Operation op, const Algorithm& a, const Case& c);
// The sweep, stopped at the first failure, which is then shrunk.
Report check(Operation op, const Algorithm& a, const Settings& s = {});

// One failed node (docs/testing.md, "Tolerating one failed node"): whether `a` keeps a claim
// that it tolerates the failure of any one member. The case runs once without failures, for
// its virtual time T, then once under each of `draws` seeded single failures:
// MachineConfig::random_failures = random:count=1,before=T,seed=k for k = 1..draws, a node
// drawn uniformly stopping at a time drawn uniformly from the run. The claim holds under a
// draw when the run ends without error: every node that did not fail returns from its call
// (catching NodeFailedError where it needs the failed member) and none waits for ever. The
// buffers are not compared: what a tolerant algorithm delivers when a member fails is its own
// contract. The virtual clock under eager sends only, as failures are (else
// std::invalid_argument).
struct ToleranceReport {
  bool passed = true;
  int draws = 0;  // the seeded single failures run
  int acted = 0;  // of them, those that stopped their node (one drawn after the node's last
                  // call does nothing)
  std::vector<std::uint64_t> broken;  // the seeds under which the run failed
  // A summary line; then, when it failed, a line per broken seed: the draw, as --fail node:
  // replays it, and what went wrong.
  std::string message;
};
ToleranceReport check_one_failure(Operation op, const Algorithm& a, const Case& c,
                                  int draws = 16);

// GoogleTest: the report as an assertion result (its message when it fails).
::testing::AssertionResult passes(Operation op, const Algorithm& a, const Settings& s = {});
// EXPECT_COLLECTIVE's: `arguments` is the macro's text after the operation, whose first
// argument names the algorithm in the replay line.
::testing::AssertionResult passes_named(const char* arguments, Operation op, const Algorithm& a,
                                        const Settings& s = {});

// RapidCheck generators: machines (the machine fields of a Case, p in 1..max_p) and whole
// cases the row applies to, for properties such as
//   RC_GTEST_PROP(Mine, AnyMachine, ()) {
//     RC_ASSERT(run_case(op, mine, *gen::cases(op, mine)) == "");
//   }
namespace gen {
rc::Gen<Case> machines(int max_p = 64);
rc::Gen<Case> cases(Operation op, const Algorithm& a, int max_p = 64);
}  // namespace gen

}  // namespace vmc::harness

// EXPECT_COLLECTIVE(operation, algorithm[, settings]): the sweep passes; on failure the
// message names the smallest failing case and how to replay it.
#define EXPECT_COLLECTIVE(operation, ...) \
  EXPECT_TRUE(::vmc::harness::passes_named(#__VA_ARGS__, operation, __VA_ARGS__))
#define ASSERT_COLLECTIVE(operation, ...) \
  ASSERT_TRUE(::vmc::harness::passes_named(#__VA_ARGS__, operation, __VA_ARGS__))
