// `vmc mpirun`: an MPI program built by vmcc or vmcxx, every rank a node of an emulated
// machine, all of them in this process (mpi/program.hpp loads the program for every rank;
// libvmc_mpi runs their MPI calls on vmc, their stdio and exits per rank).
//
//   vmcc ring.c -o ring
//   vmc mpirun -np 8 --topology ring:8 --alpha 10us --beta 1ns ./ring [ARGS...]
//   vmc mpirun -np 1:16 --topology mesh ./ring          # every p from 1 to 16, a line each
//
// The machine flags are vmc run's (ModelOptions, the clock, EngineOptions: one definition).
// Without --topology the ranks are fully connected (full:P); a network (ring:8) fixes P; a
// family (mesh) takes the shape of each P as vmc sweep --p does. -np takes one count or a list
// as vmc sweep --p does ("1:64", "1,2,5", "4:64:x2"). One P: the program's output, then what
// --stats, --json, --trace and --show ask for, and the exit status of mpirun
// (tools/mpirun_job.hpp).
//
// --data none is a timing-only run (docs/mpi.md, "Timing-only runs"): every call is timed as
// with data, but no payload is copied and no reduction computed, so a receive buffer keeps what
// it held. A program whose control flow depends on received values then runs differently; that
// is the user's choice. Several: a line per P, then every failing P with the command that
// reproduces it; the ranks' output is not shown.
#include <algorithm>
#include <array>
#include <csignal>
#include <cstddef>
#include <cstdio>
#include <iostream>
#include <map>
#include <memory>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>
#include <sys/resource.h>
#include <unistd.h>

#include "mpi/job.hpp"
#include "mpi/output.hpp"
#include "mpi/program.hpp"
#include "runtime/machine.hpp"
#include "runtime/run_errors.hpp"
#include "tools/commands.hpp"
#include "tools/model_options.hpp"
#include "tools/mpirun_job.hpp"
#include "tools/runner.hpp"
#include "tools/show.hpp"

namespace vmc::cli {
namespace {

struct MpirunOptions {
  ModelOptions machine;
  std::string np;
  std::string clock = "virtual";
  double time_scale = 1.0;
  EngineOptions engine;
  std::string fail;  // --fail: ranks that fail on purpose
  std::string fail_routes = "around";  // --fail-routes
  bool stats = false;
  bool json = false;
  bool tag_output = false;
  std::string trace;
  std::string show;
  std::string coll;
  std::string privatize = "copies";
  std::string shared_malloc;  // --shared-malloc BYTES ("": not given)
  std::uint64_t poll_limit = MachineConfig{}.poll_limit;
  bool open_mpi_flags = false;  // --oversubscribe, --allow-run-as-root: taken, no effect
  std::string output_order = "virtual";
  const CLI::Option* topology_flag = nullptr;
  const CLI::Option* np_flag = nullptr;
};

// "4096", "4K" or "4KiB", "1M" or "1MiB", "1G" or "1GiB": bytes, 1 or more (binary multiples).
std::size_t parse_bytes(const std::string& text) {
  std::size_t used = 0;
  unsigned long long count = 0;
  try {
    count = std::stoull(text, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  const std::string unit = text.substr(used);
  const std::map<std::string, unsigned long long> units = {
      {"", 1}, {"B", 1}, {"K", 1ull << 10}, {"KiB", 1ull << 10}, {"M", 1ull << 20},
      {"MiB", 1ull << 20}, {"G", 1ull << 30}, {"GiB", 1ull << 30}};
  const auto it = units.find(unit);
  if (used == 0 || text[0] == '-' || it == units.end()) {
    throw UsageError("\"" + text + "\" is not a size in bytes (e.g. 4096, 4K, 64KiB, 1M)");
  }
  if (count == 0 || count > (1ull << 40) / it->second) {
    throw UsageError("\"" + text + "\": a size from 1 byte to 1 TiB");
  }
  return static_cast<std::size_t>(count * it->second);
}

// The machine of every job: one per P.
std::vector<std::shared_ptr<const Topology>> job_networks(const MpirunOptions& o) {
  const bool np_given = o.np_flag->count() > 0;
  std::vector<std::size_t> counts;
  if (np_given) counts = parse_lengths(o.np, "-np list");
  const bool topology_given = o.topology_flag->count() > 0;
  if (topology_given && !is_family(o.machine.topology)) {
    auto network = o.machine.parsed_topology();
    const std::size_t nodes = static_cast<std::size_t>(network->nodes());
    if (np_given && (counts.size() != 1 || counts.front() != nodes)) {
      throw UsageError("mpirun: -np " + o.np + " disagrees with --topology " + network->spec() +
                       " of " + std::to_string(nodes) + " nodes (a family without its size, "
                       "e.g. --topology " + network->family() + ", takes any -np)");
    }
    return {network};
  }
  if (!np_given) {
    throw UsageError("mpirun: give -np P (or --topology with a network's size, e.g. ring:8)");
  }
  const std::string family = topology_given ? o.machine.topology : "full";
  std::vector<std::shared_ptr<const Topology>> networks;
  for (std::size_t p : counts) networks.push_back(family_network("-np", family, p));
  return networks;
}

// What the job runs with besides its machine.
struct JobSetup {
  MachineConfig config;  // all but the topology
  std::string program;
  std::vector<std::string> args;  // argv, the program first
  mpi::JobOptions job;
  mpi::Privatize privatize = mpi::Privatize::copies;
  bool ordered_output = true;  // --output-order virtual (on the virtual clock)
};

struct JobRun {
  JobVerdict verdict;
  std::optional<RunResult> result;
  std::vector<std::string> notes;  // the MPI layer's (mpi::JobOutcome::notes)
  // Under --fail, what the failures did as `vmc run --json` gives it (failures_json): every
  // stop, failed call, link and lost message with its fields; null without --fail.
  nlohmann::json failures;
};

// The ranks' output for the life of a job (mpi/output.hpp), given back on every path.
class OutputScope {
 public:
  OutputScope(int ranks, mpi::OutputMode mode, bool ordered) {
    mpi::begin_output(ranks, mode, ordered);
  }
  ~OutputScope() { end(); }
  void end() {
    if (!ended_) mpi::end_output();
    ended_ = true;
  }

 private:
  bool ended_ = false;
};

// The job running now, for the two ends that leave no way back (end_stuck_job, CrashReport):
// under --json, its object as such an end leaves it, and, over several p, the command that
// reproduces it. A signal handler cannot build text, so the crash's object is made before the
// run, in three pieces around its exit status and its report line.
struct JobInFlight {
  bool json = false;
  nlohmann::json object;
  std::string command;
  std::string crash_head, crash_middle, crash_tail;  // HEAD exit MIDDLE "line" TAIL
  std::string crash_note;  // over several p: the line after the crash's, naming the command
  // Over several p without --json, the table's row of this p around its exit status and its
  // result, and the table's end as it stands if this p is the last one run (run_each).
  std::string row_head, row_middle, table_end;
};
JobInFlight job_in_flight;

void prepare_crash_json(JobInFlight& job) {
  nlohmann::json crash = job.object;
  crash["exit"] = 0;
  crash["report"] = nlohmann::json::array({"\x01"});
  if (!job.command.empty()) crash["command"] = job.command;
  const std::string text = crash.dump();
  const std::string exit_field = "\"exit\":0", report_field = "[\"\\u0001\"]";
  const std::size_t e = text.find(exit_field), r = text.find(report_field);
  job.crash_head = text.substr(0, e + exit_field.size() - 1);
  job.crash_middle = text.substr(e + exit_field.size(), r + 1 - (e + exit_field.size()));
  job.crash_tail = text.substr(r + report_field.size() - 1) + "\n";
}

// While alive, a crash of the process (a rank's program dereferencing a bad pointer, dividing
// by zero) first says which rank crashed, since every rank is in this one process and dies
// with it; then the signal does what it would (the process dies of it). Only what is safe in
// a signal handler: write(2) and the calling thread's node.
class CrashReport {
 public:
  CrashReport() {
    struct sigaction a {};
    a.sa_sigaction = &CrashReport::report;
    sigemptyset(&a.sa_mask);
    // The second time, the signal's own default; on the thread's own stack for handlers (a
    // rank that overflowed its stack left none).
    a.sa_flags = SA_RESETHAND | SA_SIGINFO | SA_ONSTACK;
    for (std::size_t i = 0; i < kSignals.size(); ++i) sigaction(kSignals[i], &a, &old_[i]);
  }
  ~CrashReport() {
    for (std::size_t i = 0; i < kSignals.size(); ++i) sigaction(kSignals[i], &old_[i], nullptr);
  }
  CrashReport(const CrashReport&) = delete;
  CrashReport& operator=(const CrashReport&) = delete;

 private:
  static constexpr std::array<int, 4> kSignals{SIGSEGV, SIGBUS, SIGFPE, SIGILL};
  static void report(int signal, siginfo_t* info, void*) {
    char text[256];
    std::size_t n = 0;
    auto put = [&](const char* s) {
      while (*s != '\0' && n < sizeof text) text[n++] = *s++;
    };
    put("vmc mpirun: ");
    if (const Node* node = this_node(); node != nullptr) {
      char digits[12];
      int k = 0;
      for (unsigned r = static_cast<unsigned>(node->rank()); k == 0 || r > 0; r /= 10) {
        digits[k++] = static_cast<char>('0' + r % 10);
      }
      put("rank ");
      while (k > 0 && n < sizeof text) text[n++] = digits[--k];
      put(" crashed (");
    } else {
      put("crashed outside every rank (");
    }
    put(signal == SIGSEGV ? "SIGSEGV" : signal == SIGBUS ? "SIGBUS"
        : signal == SIGFPE ? "SIGFPE" : "SIGILL");
    if ((signal == SIGSEGV || signal == SIGBUS) && info != nullptr) {
      // The address the program touched: 0x0 and nearby is a null pointer's.
      put(" at address 0x");
      const auto address = reinterpret_cast<std::uintptr_t>(info->si_addr);
      int shift = 60;
      while (shift > 0 && ((address >> shift) & 0xf) == 0) shift -= 4;
      for (; shift >= 0 && n < sizeof text; shift -= 4) {
        text[n++] = "0123456789abcdef"[(address >> shift) & 0xf];
      }
      if (below_node_stack(info->si_addr)) put(", below the rank's stack: a stack overflow");
    }
    put("): the ranks share vmc's process, so the whole run ends");
    const std::size_t line = n;
    put("\n");
    mpi::write_unhanded_output();  // the ranks' lines before the crash, the pass behind them
    [[maybe_unused]] ssize_t w = ::write(2, text, n);
    const std::string& note = job_in_flight.crash_note;
    if (!note.empty()) w = ::write(2, note.data(), note.size());
    const char status[4] = {static_cast<char>('0' + (128 + signal) / 100),
                            static_cast<char>('0' + (128 + signal) / 10 % 10),
                            static_cast<char>('0' + (128 + signal) % 10), '"'};
    if (const std::string& head = job_in_flight.row_head; !head.empty()) {
      const std::string& middle = job_in_flight.row_middle;
      const std::string& end = job_in_flight.table_end;
      constexpr std::size_t kPrefix = sizeof "vmc mpirun: " - 1;
      w = ::write(1, head.data(), head.size());
      w = ::write(1, " ", 1);  // the exit column is 4 wide
      w = ::write(1, status, 3);
      w = ::write(1, middle.data(), middle.size());
      w = ::write(1, text + kPrefix, line + 1 - kPrefix);  // with its newline
      w = ::write(1, end.data(), end.size());
    }
    if (job_in_flight.json) {  // the report line without its prefix, in the job's object
      constexpr std::size_t kPrefix = sizeof "vmc mpirun: " - 1;
      const std::string& head = job_in_flight.crash_head;
      const std::string& middle = job_in_flight.crash_middle;
      const std::string& tail = job_in_flight.crash_tail;
      w = ::write(1, head.data(), head.size());
      w = ::write(1, status, 3);
      w = ::write(1, middle.data(), middle.size());
      w = ::write(1, status + 3, 1);
      w = ::write(1, text + kPrefix, line - kPrefix);
      w = ::write(1, status + 3, 1);
      w = ::write(1, tail.data(), tail.size());
    }
    std::signal(signal, SIG_DFL);
    std::raise(signal);
  }
  std::array<struct sigaction, kSignals.size()> old_{};
};

// The stack each rank's main runs on: what a process of this host gets (the soft limit of
// RLIMIT_STACK, 8 MiB where it is unlimited), from 256 KiB to 64 MiB. Programs keep large
// arrays on the stack (MPICH's tests do), which the fibers engine's default of 256 KiB would
// overflow; a stack is only address space until a rank touches it.
std::size_t rank_stack_bytes() {
  constexpr std::size_t kUnlimited = std::size_t{8} << 20;
  rlimit limit{};
  std::size_t bytes = kUnlimited;
  if (getrlimit(RLIMIT_STACK, &limit) == 0 && limit.rlim_cur != RLIM_INFINITY) {
    bytes = static_cast<std::size_t>(limit.rlim_cur);
  }
  return std::clamp(bytes, std::size_t{256} << 10, std::size_t{64} << 20);
}

// Runs the program on `network`, one rank per node.
JobRun run_job(const JobSetup& setup, std::shared_ptr<const Topology> network,
               mpi::OutputMode output) {
  MachineConfig config = setup.config;
  config.topology = std::move(network);
  if (config.stack_bytes == 0) config.stack_bytes = rank_stack_bytes();
  // A rank that loops in its own code holds the job until the watchdog ends it (300 s by
  // default): halfway there, at most 30 s in, say so and how to change it.
  config.stall_note_seconds = std::min(30.0, config.watchdog_seconds / 2);
  config.on_stall = [stalled = config.stall_note_seconds,
                     watchdog = config.watchdog_seconds](const std::vector<BlockedWait>& waits) {
    std::fprintf(stderr, "vmc mpirun: %s\n", stall_note(waits, stalled, watchdog).c_str());
    std::fflush(stderr);
  };
  // On the virtual clock the ranks' lines come out in virtual-time order, the same on every
  // run (docs/mpi.md, "The ranks' output").
  const bool ordered = setup.ordered_output && output != mpi::OutputMode::discard &&
                       config.clock == Clock::virtual_time;
  if (ordered) {
    config.on_output = [](int node, std::size_t pieces) { mpi::write_marked_output(node, pieces); };
  }
  check_link_rates(*config.topology, config.model);
  const int p = config.topology->nodes();
  const mpi::RankPrograms programs(setup.program, p, setup.privatize);
  // Every rank its own argv, writable, as a process would have.
  std::vector<std::vector<std::string>> args(p, setup.args);
  std::vector<std::vector<char*>> argv(p);
  for (int r = 0; r < p; ++r) {
    for (std::string& a : args[r]) argv[r].push_back(a.data());
    argv[r].push_back(nullptr);
  }
  JobFacts facts;
  facts.ranks.resize(p);
  mpi::JobOptions job = setup.job;
  job.ranks = p;
  mpi::begin_job(job);
  OutputScope scope(p, output, ordered);
  Machine m(config);
  JobRun run;
  const CrashReport crash_report;
  try {
    run.result = m.run([&](Node& node) {
      const int r = node.rank();
      RankEnd& end = facts.ranks[r];
      struct LastLine {  // the rank's last partial line, however it ends
        int rank;
        ~LastLine() { mpi::flush_rank_output(rank); }
      } last_line{r};
      try {
        end.status = programs.run(r, static_cast<int>(args[r].size()), argv[r].data()) & 255;
        end.returned = true;
      } catch (const mpi::RankCrash& crash) {
        end.failure = crash.what;
        end.signal = crash.signal;
        throw std::runtime_error("rank " + std::to_string(r) + ": " + crash.what);
      } catch (const CallsDifferError& e) {
        // The ranks' calls of a collective differ: the failure of the rank the report blames,
        // which may be another than this one (it went on past the call); the run reports it.
        if (e.node() == r) end.failure = e.what();
        throw;
      } catch (const std::exception& e) {
        end.failure = e.what();
        throw;
      }
    });
  } catch (const RunError& e) {
    facts.error = e;
    facts.failures = e.failures();
  }
  if (run.result) facts.failures = run.result->failures();
  facts.did_not_fail = not_stopped(m.failures(), facts.failures);
  if (!m.failures().empty() || !config.link_failures.empty()) {
    run.failures = failures_json(m.failures(), facts.failures);
  }
  scope.end();
  facts.outcome = mpi::end_job();
  run.notes = facts.outcome.notes;
  run.verdict = judge_job(facts);
  // Ranks that ended badly by themselves (an exit status, MPI_Abort) in a timing-only job: a
  // program that checks what it received does so (docs/mpi.md, "Timing-only runs").
  if (config.data == Data::none && run.verdict.exit_status != 0 && !facts.error) {
    run.verdict.report.push_back(
        "(a timing-only job, --data none: no payload reaches a receive buffer, so a program "
        "that checks what it received fails; --data full runs it with its data)");
  }
  return run;
}

// The command that runs the job of `network` alone: vmc as it was called, the flags given,
// the machine by its full name, the program and its arguments.
std::string reproducing_command(const CLI::App& cmd, const Topology& network,
                                const JobSetup& setup) {
  std::string vmc = cmd.get_parent() != nullptr ? cmd.get_parent()->get_name() : "";
  if (vmc.empty()) vmc = "vmc";
  std::string line = shell_quote(vmc) + " mpirun -np " + std::to_string(network.nodes()) +
                     " --topology " + network.spec();
  for (const CLI::Option* option : cmd.get_options()) {
    const std::string name = option->get_name();
    if (option->count() == 0 || name == "--np" || name == "--topology") continue;
    if (option->get_expected_min() == 0) {
      line += " " + name;
      continue;
    }
    for (const std::string& value : option->results()) line += " " + name + " " + shell_quote(value);
  }
  for (const std::string& a : setup.args) line += " " + shell_quote(a);
  return line;
}

nlohmann::json job_json(const JobSetup& setup, const Topology& network, const JobRun& run) {
  nlohmann::json j = run.result ? stats_json(run.result->stats(), network) : nlohmann::json::object();
  j.update({{"program", setup.program},
            {"p", network.nodes()},
            {"topology", network.spec()},
            {"clock", to_string(setup.config.clock)},
            {"model", describe(setup.config.model)},
            {"exit", run.verdict.exit_status},
            {"report", run.verdict.report},
            {"time_s", run.result ? nlohmann::json(run.result->time()) : nlohmann::json()}});
  if (!run.notes.empty()) j["notes"] = run.notes;
  if (!run.failures.is_null()) j["failures"] = run.failures;
  return j;
}

void print_report(std::FILE* out, const JobVerdict& verdict) {
  for (const std::string& line : verdict.report) std::fprintf(out, "vmc mpirun: %s\n", line.c_str());
}


// A rank that does not return after its job was ended (it loops in its own code) cannot be
// stopped: the report, as the other reports, the job's --json object, and vmc mpirun ends with
// status 1, or 128 + the signal of an interrupt (docs/mpi.md, "Exit status and reports"); the
// rest of -np's p are not run.
void end_stuck_job(const RunError& e) {
  mpi::write_unhanded_output();
  // Interrupted (SIGINT, SIGTERM): the status says so, whatever kept the process.
  const int status = interrupt_requested() != 0 ? 128 + interrupt_requested() : 1;
  JobVerdict verdict;
  verdict.report = stuck_report(e);
  if (!job_in_flight.command.empty()) {
    verdict.report.push_back(job_in_flight.crash_note.substr(sizeof "vmc mpirun: " - 1));
    verdict.report.back().pop_back();  // its newline
  }
  print_report(stderr, verdict);
  if (!job_in_flight.row_head.empty()) {
    std::printf("%s%4d%s%s\n%s", job_in_flight.row_head.c_str(), status,
                job_in_flight.row_middle.c_str(), verdict.summary().c_str(),
                job_in_flight.table_end.c_str());
  }
  if (job_in_flight.json) {
    job_in_flight.object["exit"] = status;
    job_in_flight.object["report"] = verdict.report;
    if (!job_in_flight.command.empty()) job_in_flight.object["command"] = job_in_flight.command;
    std::cout << job_in_flight.object.dump() << std::endl;
  }
  std::fflush(nullptr);
  std::_Exit(status);
}

// Runs the job of `network` with end_stuck_job ready for it.
// `table`: over several p without --json, the row and the table's end that an end without
// way back prints (JobInFlight).
struct TableInFlight {
  std::string row_head, row_middle, table_end;
  bool others_left = false;  // p after this one, which such an end leaves not run
};
JobRun run_watched_job(const MpirunOptions& o, const JobSetup& setup,
                       const std::shared_ptr<const Topology>& network, mpi::OutputMode output,
                       std::string command, TableInFlight table = {}) {
  job_in_flight = {o.json, job_json(setup, *network, JobRun{}), std::move(command), "", "", "", ""};
  if (!o.json) {
    job_in_flight.row_head = std::move(table.row_head);
    job_in_flight.row_middle = std::move(table.row_middle);
    job_in_flight.table_end = std::move(table.table_end);
  }
  if (o.json) prepare_crash_json(job_in_flight);
  if (!job_in_flight.command.empty()) {
    job_in_flight.crash_note = std::string("vmc mpirun: ") +
                               (table.others_left ? "the other p were not run; " : "") +
                               "this one alone: " + job_in_flight.command + "\n";
  }
  set_stuck_handler(&end_stuck_job);
  JobRun run = run_job(setup, network, output);
  set_stuck_handler(nullptr);
  return run;
}

// One P: the program's output as it runs, then the rest.
void run_one(const MpirunOptions& o, const JobSetup& setup,
             const std::shared_ptr<const Topology>& network) {
  HostCost cost;
  cost.start();
  const JobRun run = run_watched_job(
      o, setup, network, o.tag_output ? mpi::OutputMode::tagged : mpi::OutputMode::lines, "");
  cost.stop();
  if (run.result) {
    if (!o.trace.empty()) run.result->trace().write_chrome_json(o.trace, network.get());
    if (!o.show.empty()) {
      write_file(o.show, show_program_page(setup.program, *network, setup.config.model,
                                           *run.result));
      // On stderr: stdout is the program's (or --json's).
      std::fprintf(stderr,
                   "vmc mpirun: wrote %s: open it in a web browser (it needs no network), e.g. "
                   "xdg-open %s\n",
                   o.show.c_str(), o.show.c_str());
    }
  } else if (!o.trace.empty() || !o.show.empty()) {
    std::fprintf(stderr, "vmc mpirun: %s not written: the run did not complete\n",
                 !o.trace.empty() ? o.trace.c_str() : o.show.c_str());
  }
  if (o.stats && run.result) {
    std::fprintf(stderr, "vmc mpirun: %s on %s, %s clock\ntime       %s\n",
                 counted(static_cast<unsigned long long>(network->nodes()), "rank").c_str(),
                 network->spec().c_str(),
                 to_string(setup.config.clock).c_str(), format_duration(run.result->time()).c_str());
    print_stats(stderr, run.result->stats(), *network);
    print_host_cost(stderr, cost, run.result->stats().messages);
    for (const std::string& note : run.notes) std::fprintf(stderr, "vmc mpirun: %s\n", note.c_str());
  }
  print_report(stderr, run.verdict);
  if (o.json) std::cout << job_json(setup, *network, run).dump() << std::endl;
  if (run.verdict.exit_status != 0) throw ExitStatus(run.verdict.exit_status);
}

// Some of -np's p, shortly: runs of consecutive p as "4-64", and over ten pieces the count
// and the ends ("300 p from 4 to 1000").
std::string p_list(const std::vector<int>& ps) {
  std::vector<std::string> pieces;
  for (std::size_t i = 0; i < ps.size();) {
    std::size_t j = i;
    while (j + 1 < ps.size() && ps[j + 1] == ps[j] + 1) ++j;
    pieces.push_back(j > i ? std::to_string(ps[i]) + "-" + std::to_string(ps[j])
                           : std::to_string(ps[i]));
    i = j + 1;
  }
  if (pieces.size() > 10) {
    return std::to_string(ps.size()) + " p from " + std::to_string(ps.front()) + " to " +
           std::to_string(ps.back());
  }
  std::string text;
  for (const std::string& piece : pieces) text += (text.empty() ? "" : ", ") + piece;
  return text;
}

// The several-p table's end: the failing p, each with the command that reproduces it, and the
// p not run (after a job that ended the process, or was interrupted: `why`).
std::string table_end(const std::vector<std::pair<int, std::string>>& failures, std::size_t count,
                      const std::vector<int>& not_run,
                      const std::string& why = "ended the process") {
  std::vector<int> ps;
  for (const auto& [p, command] : failures) ps.push_back(p);
  std::string text = "failed at " + std::to_string(failures.size()) + " of " +
                     std::to_string(count) + " p: " + number_list(ps);
  if (!not_run.empty()) {
    text += "; not run: " + p_list(not_run) + " (p = " + std::to_string(ps.back()) + " " + why +
            ")";
  }
  text += "\n";
  for (const auto& [p, command] : failures) text += "  p = " + std::to_string(p) + ": " + command + "\n";
  return text;
}

// What an end without way back of networks[i]'s job prints of the table: its row, the exit
// status and the result left to fill, and the table's end with it failed and the rest not run.
TableInFlight table_in_flight(const CLI::App& cmd, const JobSetup& setup,
                              const std::vector<std::shared_ptr<const Topology>>& networks,
                              std::size_t i, std::vector<std::pair<int, std::string>> failures) {
  const Topology& network = *networks[i];
  char head[16], middle[128];
  std::snprintf(head, sizeof head, "%6d  ", network.nodes());
  std::snprintf(middle, sizeof middle, "  %-14s %10s  %-16s ", "-", "-", network.spec().c_str());
  failures.emplace_back(network.nodes(), reproducing_command(cmd, network, setup));
  std::vector<int> not_run;
  for (std::size_t k = i + 1; k < networks.size(); ++k) not_run.push_back(networks[k]->nodes());
  return {head, middle, table_end(failures, networks.size(), not_run), !not_run.empty()};
}

// Several P: a line each, then every failing P with the command that reproduces it.
void run_each(const MpirunOptions& o, const CLI::App& cmd, const JobSetup& setup,
              const std::vector<std::shared_ptr<const Topology>>& networks) {
  if (!o.trace.empty() || !o.show.empty()) {
    throw UsageError(std::string(!o.trace.empty() ? "--trace" : "--show") +
                     " writes one run: give -np one count");
  }
  if (!o.json) {
    std::printf("%6s  %4s  %-14s %10s  %-16s %s\n", "p", "exit", "time", "messages", "machine",
                "result");
    std::fflush(stdout);  // a crash writes its row past stdio (CrashReport)
  }
  std::vector<std::pair<int, std::string>> failures;  // p, the command
  for (std::size_t i = 0; i < networks.size(); ++i) {
    const auto& network = networks[i];
    const int p = network->nodes();
    const JobRun run =
        run_watched_job(o, setup, network, mpi::OutputMode::discard,
                        reproducing_command(cmd, *network, setup),
                        table_in_flight(cmd, setup, networks, i, failures));
    const bool failed = run.verdict.exit_status != 0;
    const std::string command = failed ? reproducing_command(cmd, *network, setup) : "";
    if (failed) failures.emplace_back(p, command);
    if (o.json) {
      nlohmann::json j = job_json(setup, *network, run);
      if (failed) j["command"] = command;
      std::cout << j.dump() << std::endl;
      continue;
    }
    const std::string time = run.result ? format_duration(run.result->time()) : "-";
    const std::string messages =
        run.result ? std::to_string(run.result->stats().messages) : std::string("-");
    std::printf("%6d  %4d  %-14s %10s  %-16s %s\n", p, run.verdict.exit_status, time.c_str(),
                messages.c_str(), network->spec().c_str(), run.verdict.summary().c_str());
    if (o.stats && run.result) print_stats(stdout, run.result->stats(), *network);
    std::fflush(stdout);
    if (const int signal = interrupt_requested(); signal != 0) {
      // Interrupted (SIGINT, SIGTERM): the rest of the p are not run.
      std::vector<int> not_run;
      for (std::size_t k = i + 1; k < networks.size(); ++k) not_run.push_back(networks[k]->nodes());
      if (!failed) failures.emplace_back(p, reproducing_command(cmd, *network, setup));
      std::FILE* out = o.json ? stderr : stdout;
      std::fputs(table_end(failures, networks.size(), not_run,
                           "was interrupted by " + detail::signal_text(signal))
                     .c_str(),
                 out);
      std::fflush(out);
      throw ExitStatus(128 + signal);
    }
  }
  if (failures.empty()) {  // under --json the summary goes to stderr, as a failure's does
    std::fprintf(o.json ? stderr : stdout, "every p passed (%zu runs)\n", networks.size());
    return;
  }
  std::FILE* out = o.json ? stderr : stdout;
  std::fputs(table_end(failures, networks.size(), {}).c_str(), out);
  std::fflush(out);
  throw ExitStatus(1);
}

void mpirun_command(const MpirunOptions& o, const CLI::App& cmd,
                    const std::vector<std::string>& rest) {
  if (rest.empty()) throw UsageError("mpirun: give the program to run (built by vmcc or vmcxx)");
  // Everything from the program on is the program's; an option before it that vmc mpirun
  // does not have would otherwise be read as the program.
  if (rest.front().size() > 1 && rest.front()[0] == '-') {
    throw UsageError("mpirun: unknown option " + rest.front() +
                     " (the program comes after vmc mpirun's options; see vmc mpirun --help)");
  }
  const std::vector<std::shared_ptr<const Topology>> networks = job_networks(o);
  JobSetup setup;
  setup.program = rest.front();
  setup.args = rest;
  setup.config.model = o.machine.model();
  setup.config.clock = parse_clock(o.clock);
  setup.config.time_scale = o.time_scale;
  setup.config.trace = !o.trace.empty() || !o.show.empty();
  setup.config.allow_self_messages = true;  // MPI programs send to themselves
  setup.config.poll_limit = o.poll_limit;
  setup.ordered_output = o.output_order == "virtual";
  o.engine.apply(setup.config);
  set_failures(o.fail, o.fail_routes, setup.config);
  if (!o.show.empty() && setup.config.clock != Clock::virtual_time) {
    throw UsageError("--show replays the virtual clock's trace: leave out --clock real");
  }
  if (!o.coll.empty()) setup.job.algorithms = parse_coll(o.coll);
  if (!o.shared_malloc.empty()) {
    if (setup.config.data != Data::none) {
      throw UsageError("--shared-malloc gives every rank's large buffers one memory: timing only "
                       "(add --data none)");
    }
    mpi::check_wraps_malloc(setup.program);
    setup.job.shared_malloc = parse_bytes(o.shared_malloc);
  }
  setup.privatize = mpi::parse_privatize(o.privatize);
  if (networks.size() == 1) return run_one(o, setup, networks.front());
  // A failure must name a rank of every job of the sweep: said once, before any job runs.
  int smallest = networks.front()->nodes();
  for (const auto& network : networks) smallest = std::min(smallest, network->nodes());
  int highest = -1;
  for (const NodeFailure& f : setup.config.failures) highest = std::max(highest, f.node);
  for (const LinkFailure& l : setup.config.link_failures) highest = std::max({highest, l.a, l.b});
  if (highest >= smallest) {
    throw UsageError("--fail: rank " + std::to_string(highest) + " is not a rank of the sweep's " +
                     "smallest job, -np " + std::to_string(smallest) + ": start -np at " +
                     std::to_string(highest + 1) + " or above");
  }
  run_each(o, cmd, setup, networks);
}

}  // namespace

void add_mpirun_command(CLI::App& app) {
  auto o = std::make_shared<MpirunOptions>();
  CLI::App* cmd = app.add_subcommand(
      "mpirun", "run an MPI program built by vmcc, every rank a node (-np P PROGRAM [ARGS])");
  o->np_flag = cmd->add_option("-n,--np", o->np,
                               "ranks (also -np, as mpirun's): a count, or counts as vmc sweep --p takes "
                               "them (1:64 every p from 1 to 64, 1,2,5, 4:64:x2): a run each")
                   ->check(CLI::Validator(
                       [](std::string& text) -> std::string {
                         try {
                           for (std::size_t p : parse_lengths(text, "-np list")) {
                             if (p == 0) return "a job has 1 rank or more (got " + text + ")";
                           }
                         } catch (const std::exception& e) {
                           return e.what();
                         }
                         return {};
                       },
                       "P"));
  o->machine.add_to(cmd, /*families=*/true);
  add_clock_options(cmd, o->clock, o->time_scale);
  o->engine.add_to(cmd);
  add_fail_option(cmd, o->fail, o->fail_routes);
  cmd->get_option("--data")->description(
      "full, or none: timing only: every call timed as with data, but no payload copied and "
      "no reduction computed (receive buffers keep what they held; a program whose control "
      "flow depends on received values runs differently)");
  cmd->add_option("--shared-malloc", o->shared_malloc,
                  "with --data none: the program's malloc and calloc of at least BYTES return "
                  "blocks that all share one memory, every rank's (their contents undefined), so "
                  "that a job of large buffers fits in little memory and cache, as SMPI's shared "
                  "mallocs (docs/mpi.md); BYTES may end in K, M or G (KiB, MiB, GiB); --stats "
                  "says how many blocks were shared")
      ->type_name("BYTES")
      ->check(CLI::Validator(
          [](std::string& text) -> std::string {
            try {
              parse_bytes(text);
            } catch (const std::exception& e) {
              return e.what();
            }
            return {};
          },
          ""));
  cmd->add_option("--poll-limit", o->poll_limit,
                  "virtual clock: polls in a row (a failed MPI_Test or MPI_Iprobe, an MPI_Wtime "
                  "with nothing in between) while nothing else can happen that make the job a "
                  "deadlock, since what they wait for never comes")
      ->capture_default_str()
      ->type_name("N")
      ->check(int_check(1, std::int64_t{1} << 62));
  cmd->add_flag("--stats", o->stats,
                "print the run's virtual time and statistics as vmc run does (on stderr; over "
                "several p, under each p's line of the table)");
  cmd->add_flag("--json", o->json,
                "print the run as one JSON object after the program's output (one a line per p)");
  cmd->add_option("--output-order", o->output_order,
                  "virtual: the ranks' lines in virtual-time order, the same on every run (the "
                  "virtual clock; a line waits until every rank has reached its time); host: as "
                  "they are written, as mpirun does (the real clock always)")
      ->capture_default_str()
      ->check(CLI::IsMember({"virtual", "host"}));
  cmd->add_flag("--tag-output", o->tag_output,
                "prefix every line a rank writes with [1,RANK]<stdout>: or [1,RANK]<stderr>:");
  cmd->add_option("--trace", o->trace, "write the run's Chrome trace JSON file")
      ->check(non_empty_check());
  cmd->add_option("--show", o->show, "write vmc show's web page of the run")
      ->check(non_empty_check());
  cmd->add_option("--coll", o->coll,
                  "the algorithm of each collective, e.g. allreduce=ring,bcast=binomial (vmc "
                  "list); the others auto")
      ->check(parses([](const std::string& text) { parse_coll(text); }, "OP=ALGORITHM,..."));
  cmd->add_option("--privatize", o->privatize,
                  "copies: every rank its own copy of the program's globals; none: one copy "
                  "shared by every rank (thread-safe programs)")
      ->capture_default_str()
      ->check(CLI::IsMember({"copies", "none"}));
  // Open MPI's flags that command lines carry over and that mean nothing here (every rank is
  // a node of one process, on any number of cores): taken, and without effect.
  cmd->add_flag("--oversubscribe,--allow-run-as-root", o->open_mpi_flags,
                "accepted for Open MPI's command lines; no effect (every rank is a node of vmc's "
                "one process, on any number of cores)");
  o->topology_flag = cmd->get_option("--topology");
  // PROGRAM and everything after it are the program's: no flag of vmc is read there.
  cmd->prefix_command();
  cmd->callback([o, cmd] { mpirun_command(*o, *cmd, cmd->remaining()); });
}

void mpirun_spell_np(const CLI::App& app, int argc, char** argv) {
  static char long_np[] = "--np";
  if (argc < 2 || std::string(argv[1]) != "mpirun") return;
  const std::vector<const CLI::App*> found =
      app.get_subcommands([](const CLI::App* sub) { return sub->get_name() == "mpirun"; });
  if (found.empty()) return;
  const CLI::App* cmd = found.front();
  // Up to PROGRAM: a flag takes the next word as its value unless it is written FLAG=VALUE or
  // takes none (--stats, --help).
  for (int i = 2; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "-np") {
      argv[i] = long_np;
      ++i;
      continue;
    }
    if (a.size() < 2 || a[0] != '-') return;  // PROGRAM
    if (a.find('=') != std::string::npos || a == "-h" || a == "--help") continue;
    const CLI::Option* option = cmd->get_option_no_throw(a);
    // An option vmc mpirun does not have is refused by name (mpirun_command); the words after
    // it are read on as flags, so that its -np is not read as "-n p".
    if (option != nullptr && option->get_expected_min() > 0) ++i;  // its value
  }
}

}  // namespace vmc::cli
