// Runs one collective on generated data on a machine: the engine behind `vmc run`, `vmc
// sweep` and `vmc demo`. Items are integers derived from (rank, index), distinct for every
// (rank, item) and exact under every combination of the run's op in every type
// (collectives/reference/check_values.hpp); --check compares every node's result, bit for
// bit, with the sequential reference (collectives/reference/reference.hpp).
#pragma once

#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "collectives/registry.hpp"
#include "runtime/machine.hpp"

namespace vmc::cli {

struct RunSpec {
  Operation op = Operation::allreduce;
  std::string algorithm = "auto";
  // MPI's count: the vector length for broadcast, reduce, allreduce, scan and exscan; the
  // items each node contributes for gather, allgather and their v-variants; the items of
  // each destination's block for scatter, reduce_scatter, alltoall and their v-variants
  // (the v-variants run with n items for every rank).
  std::size_t n = 1024;
  int root = 0;
  std::string type = "int32";      // int32, int64, float or double
  std::string reduction = "sum";   // sum ... bxor, or matmul (non-commutative 3x3 product)
  std::size_t segment_items = 0;
  std::vector<int> strategy;       // the hybrid's S
  int hybrid = -1;                 // 004's hybrids: the family member (-1: none)
  DoplSteps dopl_steps = DoplSteps::overlap;  // mesh_dopl: its steps synchronized or not
  bool check = false;
  // false on a timing-only machine (Data::none): no data is generated, buffers are nowhere
  // memory, and neither check nor the data limit (kMaxDataBytes) applies.
  bool data = true;
  // A run in which nodes failed (MachineConfig::failures) and others ended on their errors
  // returns what it did (RunError::result) instead of throwing: vmc show draws it.
  bool keep_failed_run = false;
};

struct RunOutcome {
  std::string algorithm;           // the one chosen, when auto
  std::string detail;              // what it chose inside, e.g. the hybrid's S
  Picos predicted = 0;             // its cost formula
  Claim claim = Claim::estimate;   // what the formula claims of the run's time here
  RunResult result;
  std::optional<bool> correct;     // set with check: of the nodes that did not stop
};

// Throws std::invalid_argument for a bad spec; RunError if the run fails. `chosen`, if
// given, is set to the algorithm the run runs before it starts (a failed run's caller can
// name it).
RunOutcome run_collective(Machine& m, const RunSpec& spec, std::string* chosen = nullptr);

// Bytes of one item of spec.type (matmul runs on 3x3 int64 matrices: 72 bytes), and
// whether spec.reduction is commutative. Throw std::invalid_argument for unknown names.
std::size_t item_bytes(const RunSpec& spec);
bool commutative(const RunSpec& spec);
// The bytes of generated data run_collective allocates on p nodes (inputs and results),
// saturating at SIZE_MAX.
std::size_t data_bytes(const RunSpec& spec, int p);
// The query the dispatcher builds for this run: what applicability and selection see.
CostQuery run_query(const Topology& topology, const Model& model, const RunSpec& spec);

// A run's statistics as `vmc run` and `vmc mpirun --stats` print them, one line each after
// the run's time: messages and bytes, the startups on the critical path (virtual clock), the
// time messages waited for ports and links, contention (summed, the largest for one message,
// and what it added to the run's time), and the busiest link.
void print_stats(std::FILE* out, const Stats& s, const Topology& topology);
// What the failures given (--fail) did: a `failures` line for every node that stopped and
// every call that failed (FailureReport::text), then every node given a failure that made
// no call at or after its time and so did not stop; and the same as JSON (`drawn`, a random
// draw's line or empty, `stopped`, `failed_calls`, `did_not_stop`). `given`: the machine's
// failures (Machine::failures: those given and those a random draw gave).
// The nodes given a failure (--fail) that made no call at or after its time, so never
// stopped: calls are where a node stops (docs/model.md, "Failed nodes"), and one blocked in a
// receive from before its time to the run's end makes none.
std::vector<NodeFailure> not_stopped(const std::vector<NodeFailure>& given,
                                     const FailureReport& report);
void print_failures(std::FILE* out, const std::vector<NodeFailure>& given,
                    const FailureReport& report);
nlohmann::json failures_json(const std::vector<NodeFailure>& given, const FailureReport& report);
// What a run cost the host (`vmc run --stats`, `vmc mpirun --stats`): its wall time and how
// much the process's peak resident memory grew, from start() to stop(). The growth is a
// measurement, not a count: memory a run reuses (freed by an earlier phase) does not show.
struct HostCost {
  void start();
  void stop();
  double wall_s = 0;
  std::int64_t peak_growth_bytes = 0;
  double started = 0;  // steady clock, seconds
  std::int64_t peak_before = 0;
};
// One line: simulated messages per second of wall time, and bytes of host memory per
// message (peak resident growth over messages).
void print_host_cost(std::FILE* out, const HostCost& cost, std::uint64_t messages);

// The same as the fields of a JSON object (`--json`): messages, bytes, startups, token_wait_s,
// contention_delay_s, contention_critical_delay_s, max_message_delay_s, max_link_sharers and
// links (per directed link that carried a message: from, to, busy_s, most_messages).
nlohmann::json stats_json(const Stats& s, const Topology& topology);

}  // namespace vmc::cli
