// `vmc tune`: automatic selection over a grid, written as tables MPI libraries read.
//
//   vmc tune --op allreduce,bcast --topology full --p 4,8,16 --n 1:65536:x4
//       --alpha 2us --beta 1ns --format ompi -o rules.txt
//
// Formats: ompi (Open MPI coll_tuned dynamic rules), mpich (MPICH's collective selection
// JSON), csv (every point, both libraries' columns). Where the winner has no equivalent in
// the library, the best-ranked algorithm that has one is written and stderr says so.
#include <algorithm>
#include <fstream>
#include <iostream>
#include <memory>
#include <sstream>

#include "tools/commands.hpp"
#include "tools/model_options.hpp"
#include "tools/runner.hpp"
#include "tools/tune.hpp"

namespace vmc::cli {
namespace {

struct TuneOptions {
  ModelOptions machine;
  std::string ops = kDefaultOp;
  std::string nodes;
  std::string lengths;
  std::string type = kDefaultType;
  std::string reduction = kDefaultReduction;
  std::string format = "csv";
  std::string output;
  const CLI::Option* type_flag = nullptr;
};

// "4,8,2" -> 2,4,8 (sorted, no repeats): a table's rows go up in size.
std::vector<std::size_t> increasing(std::vector<std::size_t> v) {
  std::sort(v.begin(), v.end());
  v.erase(std::unique(v.begin(), v.end()), v.end());
  return v;
}

std::vector<Operation> parse_ops(const std::string& text) {
  std::vector<Operation> ops;
  std::stringstream in(text);
  std::string item;
  while (std::getline(in, item, ',')) {
    if (item.empty()) continue;
    // MPI's spelling too, as `vmc mpirun --coll` takes it.
    const Operation op = parse_operation(item == "bcast" ? "broadcast" : item);
    if (std::find(ops.begin(), ops.end(), op) == ops.end()) ops.push_back(op);
  }
  if (ops.empty()) throw UsageError("--op: name at least one operation (see vmc list)");
  return ops;
}

void tune_command(const TuneOptions& o) {
  if (!is_family(o.machine.topology)) {
    throw UsageError("--topology " + o.machine.topology +
                     ": vmc tune sizes the network to every --p; name a family without its "
                     "size (hypercube, ring, array, full, tree, mesh or torus)");
  }
  // Selection chooses on the steady machine (runtime/model.hpp): stragglers would change
  // no winner and no time of the tables.
  for (const auto& [flag, given] : {std::pair<const char*, bool>{"--skew", !o.machine.skew.empty()},
                                    {"--slow", !o.machine.slow.empty()},
                                    {"--noise", !o.machine.noise.empty()}}) {
    if (given) {
      throw UsageError(std::string(flag) + ": vmc tune's selection leaves stragglers out (it "
                       "chooses on the steady machine), so they would change nothing it writes");
    }
  }
  TuneGrid grid;
  try {
    grid.ops = parse_ops(o.ops);
  } catch (const UsageError&) {
    throw;
  } catch (const std::invalid_argument& e) {
    throw UsageError(std::string("--op: ") + e.what());
  }
  grid.family = o.machine.topology;
  grid.ps = increasing(parse_lengths(o.nodes, "node-count list"));
  grid.ns = increasing(parse_lengths(o.lengths));
  grid.model = o.machine.model();
  grid.type = item_type_for(o.type, o.type_flag->count() > 0, o.reduction);
  grid.reduction = o.reduction;
  check_type_and_reduction(grid.type, o.reduction);
  RunSpec probe;
  probe.type = grid.type;
  probe.reduction = o.reduction;
  const std::size_t bytes = item_bytes(probe);
  for (std::size_t n : grid.ns) {
    if (n > kMaxCount) throw UsageError("--n: " + std::to_string(n) + " is too large");
  }
  std::ofstream file;  // opened before the work: a bad -o is one line at once
  if (!o.output.empty()) {
    file.open(o.output);
    if (!file) throw UsageError("--output: cannot write \"" + o.output + "\"");
  }
  const std::vector<TunePoint> points = tune(grid);
  std::ostream& out = o.output.empty() ? std::cout : file;
  const std::string about = "vmc tune for " + grid.family + " networks, " +
                            describe(grid.model) + "; items of " + grid.type + " (" +
                            std::to_string(bytes) + " bytes), n converted to bytes with that size";
  if (o.format == "csv") {
    write_tune_csv(out, points, grid.type);
    return;
  }
  const MpiLibrary library = o.format == "ompi" ? MpiLibrary::open_mpi : MpiLibrary::mpich;
  for (const std::string& line : substitutions(points, library)) {
    std::cerr << "vmc tune: " << line << "\n";
  }
  if (library == MpiLibrary::open_mpi) {
    write_open_mpi_rules(out, points, about);
    return;
  }
  std::vector<std::string> left_out;
  write_mpich_json(out, points, left_out);
  for (const std::string& op : left_out) {
    std::cerr << "vmc tune: " << op << " left out of the MPICH JSON: at some point no "
              << "applicable algorithm has an MPICH equivalent\n";
  }
}

}  // namespace

void add_tune_command(CLI::App& app) {
  auto o = std::make_shared<TuneOptions>();
  o->machine.topology = "full";
  CLI::App* cmd = app.add_subcommand(
      "tune", "selection over a grid of operations, node counts and lengths, written as Open "
              "MPI's or MPICH's selection table or as CSV");
  o->machine.add_to(cmd, /*families=*/true);
  cmd->get_option("--topology")->default_str("full");
  cmd->add_option("--op", o->ops, "operations, a comma list (vmc list names them; bcast too)")
      ->capture_default_str();
  cmd->add_option("--p", o->nodes, "node counts: A:B:xK, A:B:+K, A:B or a comma list")
      ->required()
      ->check(list_check("COUNTS", "node-count list"));
  cmd->add_option("--n", o->lengths,
                  "MPI counts (items): A:B:xK, A:B:+K, A:B or a comma list")
      ->required()
      ->check(list_check("LENGTHS", "length list"));
  o->type_flag = cmd->add_option("--type", o->type,
                                  "item type: int32, int64, float or double (where not given: "
                                  "int64 for --reduction matmul, int32 for band, bor and bxor)")
                     ->capture_default_str()
                     ->check(type_check());
  cmd->add_option("--reduction", o->reduction, "the combining op (sum, ..., matmul)")
      ->capture_default_str()
      ->check(reduction_check());
  cmd->add_option("--format", o->format, "ompi, mpich or csv")
      ->capture_default_str()
      ->check(CLI::IsMember({"ompi", "mpich", "csv"}));
  cmd->add_option("-o,--output", o->output, "write here (default: standard output)");
  cmd->callback([o] { tune_command(*o); });
}

}  // namespace vmc::cli
