// Command-line options shared by the subcommands: the machine (topology and model) and the
// collective call (operation, algorithm, count, root, item type, reduction). `run`,
// `explain`, `sweep` and `demo` register them through these helpers, so they share one set
// of names, defaults and checks. Every value is checked when the command line is parsed:
// a bad one is a one-line error that names the flag (exit code 2), never a wrap or a crash.
#pragma once

#include <cstddef>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "runtime/model.hpp"
#include "tools/runner.hpp"
#include "topology/topology.hpp"

namespace vmc::cli {

// A bad command-line value found after parsing (it depends on another flag, e.g. --root
// against --topology). The message names the flag; vmc exits with code 2.
class UsageError : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

// The largest --n, --segment-items and --short-items accepted anywhere (2^40).
inline constexpr std::size_t kMaxCount = std::size_t{1} << 40;
// The most generated data (every node's input and output buffers) `run`, `sweep` and `demo`
// allocate: 2 GiB.
inline constexpr std::size_t kMaxDataBytes = std::size_t{2} << 30;

// The defaults every command shares.
inline constexpr const char* kDefaultTopology = "hypercube:64";
inline constexpr const char* kDefaultOp = "allreduce";
inline constexpr std::size_t kDefaultCount = 1024;
inline constexpr const char* kDefaultType = "float";  // 000 §6 sums single-precision vectors
inline constexpr const char* kDefaultReduction = "sum";

struct ModelOptions {
  std::string topology = kDefaultTopology;
  std::string alpha = "525us";
  std::string beta = "2us";
  std::string gamma = "0.35us";
  std::string port = "exchange";
  std::string routing = "wormhole";
  std::string contention = "exclusive";
  std::string protocol = "eager";
  std::string beta_net;  // empty: equal to --beta
  std::string delta = "0";
  std::string worm = "atomic";
  std::string short_alpha = "0";
  std::size_t short_items = 0;
  // Per-class link rates (002 §3.3.4, Model::link_rates); empty: none.
  std::string beta_dim;    // "K=TIME,...": grid and hypercube dimensions
  std::string beta_level;  // "L=TIME,...": tree levels, both directions
  std::string beta_up;     // "TIME" or "L=TIME,...": tree links towards the root
  std::string beta_down;   // the same, away from the root
  // Stragglers (Model::skew, slow, noise; docs/model.md): empty, none.
  std::vector<std::string> skew;  // --skew, repeatable: "uniform:TIME", "node:K=TIME,..."
  std::uint64_t skew_seed = 0;    // --skew-seed
  std::vector<std::string> slow;  // --slow, repeatable: "node:K=F,..."
  std::string noise;              // --noise "every:TIME,for:TIME[,at:TIME][,seed:N]"

  // Registers --topology, --alpha, --beta, --beta-net, --beta-dim, --beta-level, --beta-up,
  // --beta-down, --gamma, --delta, --port, --routing, --contention, --protocol, --worm,
  // --short-alpha, --short-items, --skew, --skew-seed, --slow and --noise on cmd. With `families`, --topology also takes a family
  // without its size (is_family; the command picks the size).
  void add_to(CLI::App* cmd, bool families = false);
  Model model() const;
  std::shared_ptr<const Topology> parsed_topology() const { return parse_topology(topology); }
};

// One collective call on generated data. `add_to` registers --op, --algorithm (unless
// with_algorithm is false), --n (unless count_flag is false: sweep takes a list), --root,
// --type, --reduction, --segment-items, --strategy, --hybrid and --dopl-steps.
struct CallOptions {
  std::string op = kDefaultOp;
  std::string algorithm = "auto";
  std::size_t n = kDefaultCount;
  int root = 0;
  std::string type = kDefaultType;
  std::string reduction = kDefaultReduction;
  std::size_t segment_items = 0;
  std::string strategy;
  int hybrid = -1;
  std::string dopl_steps = "overlap";

  CLI::Option* type_flag = nullptr;  // --type, once add_to registered it

  void add_to(CLI::App* cmd, bool with_algorithm = true, bool count_flag = true);
  // --type; where it was not given, the type --reduction needs: int64 for matmul's matrices,
  // int32 for the bitwise reductions (band, bor, bxor), float for the others.
  std::string item_type() const;
  // The run this describes, checked against the machine: --root is a node, --algorithm
  // exists and applies, and the generated data fits in kMaxDataBytes (data: false for a
  // timing-only machine, which generates none).
  RunSpec spec(const Topology& topology, const Model& model, bool data = true) const;
};

// The item type of a call: TYPE where --type was given; otherwise the type REDUCTION needs
// (int64 for matmul's matrices, int32 for band, bor and bxor), and TYPE (the default) for the
// others.
std::string item_type_for(const std::string& type, bool type_given, const std::string& reduction);

// --clock virtual|real and --time-scale (real clock: wall seconds per modelled second,
// 0.001 to 1000).
void add_clock_options(CLI::App* cmd, std::string& clock, double& time_scale);

// How the machine runs its nodes (MachineConfig::engine, data, workers): --engine
// auto|threads|fibers, --data full|none (none: timing only, no data moved; --check is then
// refused), --workers N (fibers: worker threads, 0 one per core).
// --fail node:K@TIME,...,link:A-B@TIME,random:...: nodes and links that fail on purpose
// (MachineConfig::failures, random_failures and link_failures), checked as parse_failures
// reads it, and --fail-routes around|fixed (MachineConfig::fail_routes); set_failures puts
// them in a config.
void add_fail_option(CLI::App* cmd, std::string& fail, std::string& fail_routes);
void set_failures(const std::string& fail, const std::string& fail_routes,
                  MachineConfig& config);

struct EngineOptions {
  std::string engine = "auto";
  std::string data = "full";
  int workers = 0;
  double watchdog = 300.0;  // seconds (MachineConfig::watchdog_seconds)
  void add_to(CLI::App* cmd);
  void apply(MachineConfig& config) const;
};

// A network family without its size ("hypercube", "ring", "array", "full", "tree", "mesh",
// "torus": what `vmc sweep --p` and `vmc mpirun -np A:B` take), and its network of p nodes:
// mesh and torus take the squarest 2-D shape a x b = p (a <= b), the others p nodes. Throws
// UsageError naming `flag` when there is none.
bool is_family(const std::string& spec);
std::shared_ptr<const Topology> family_network(const std::string& flag, const std::string& family,
                                               std::size_t p);

// The flag that sets a per-class link rate: --beta-dim, --beta-level, --beta-up, --beta-down.
std::string link_rate_flag(const LinkRate& r);
// Throws UsageError naming the flag when a per-class link rate of `model` cannot apply on
// `topology` (a dimension, level or direction it does not have; routing direct), and when
// --skew, --slow or --noise name a node it does not have or hold a bad value.
void check_link_rates(const Topology& topology, const Model& model);

// Throws UsageError naming the flag when spec cannot run on this machine: a link rate that
// cannot apply (check_link_rates), --root out of range, an --algorithm that does not exist or does not apply, data beyond kMaxDataBytes
// (when spec.data).
void check_spec(const RunSpec& spec, const Topology& topology, const Model& model);

// --dopl-steps: "overlap" or "synchronized" (Options::dopl_steps); std::invalid_argument
// naming the two otherwise.
DoplSteps parse_dopl_steps(const std::string& text);
// Throws UsageError when --reduction cannot combine items of --type (matmul on anything but
// int32 or int64, a bitwise op on float or double): part of check_spec.
void check_type_and_reduction(const std::string& type, const std::string& reduction);
// --dopl-steps synchronized on an operation without a mesh_dopl row: a UsageError naming it.
void check_dopl_steps(Operation op, DoplSteps steps);

// CLI11 checks for flag values: a count 0..max (digits only, no sign, not empty), a
// duration with a unit (or exactly 0), a finite number in [lo, hi], an integer in [lo, hi],
// a non-empty value.
CLI::Validator count_check(std::size_t max = kMaxCount);
CLI::Validator duration_check();
CLI::Validator positive_check(double lo, double hi);
CLI::Validator int_check(long long lo, long long hi);
CLI::Validator non_empty_check();
// A network vmc accepts (parse_topology), its error message as the refusal.
CLI::Validator network_check();
// An item type vmc has (int32, int64, float, double), and a reduction (sum, ..., matmul).
CLI::Validator type_check();
CLI::Validator reduction_check();
// A check that runs parse(text) and refuses the value with the message of what it throws.
template <class Parse>
CLI::Validator parses(Parse parse, const std::string& description) {
  return CLI::Validator(
      [parse](std::string& text) -> std::string {
        try {
          parse(text);
        } catch (const std::exception& e) {
          return e.what();
        }
        return {};
      },
      description);
}

// The items of a comma list, empty ones kept ("a,,b": a, "", b; "": one empty item), for
// the parser to refuse.
std::vector<std::string> comma_items(const std::string& text);

// Refuses "5" (no unit) with a message asking for one; "0" needs none. Returns the seconds.
double parse_duration_with_unit(const std::string& flag, const std::string& text);

// The requirement text of a registry row as the command line says it (--strategy, not the
// C++ field).
std::string requirements_for_cli(const std::string& text);

}  // namespace vmc::cli
