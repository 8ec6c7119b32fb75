// vmc: the command-line front end of the emulated multicomputer.
//
// Exit codes: 0 success; 1 a run failed (a node threw, a deadlock, a wrong result);
// 2 a bad command line (an unknown flag, a malformed or out-of-range value), reported on one
// line of standard error that names the flag; vmc mpirun: the job's status as mpirun's
// (tools/mpirun_job.hpp). A failed run's report keeps its lines (one per failure, per stopped
// node, per blocked node): a machine of a hundred nodes would make one line of thousands of
// characters.
#include <time.h>

#include <atomic>
#include <csignal>
#include <exception>
#include <iostream>
#include <new>
#include <string>
#include <utility>
#include <vector>

#include "runtime/errors.hpp"
#include "tools/algorithm_libraries.hpp"
#include "tools/commands.hpp"
#include "tools/model_options.hpp"

#ifndef VMC_VERSION
#define VMC_VERSION "unknown"
#endif

namespace {

// Without the trailing newlines and spaces a report may end with.
std::string trimmed(std::string text) {
  while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.pop_back();
  return text;
}

// One line: CLI11's and the library's messages may hold newlines.
std::string one_line(std::string text) {
  text = trimmed(std::move(text));
  for (char& c : text) {
    if (c == '\n') c = ' ';
  }
  return text;
}

// What a command was given and does not take, in the order typed: "unknown option --data
// none", "unknown options --a 1, --b", then any other words: "unexpected arguments: a b".
std::string unexpected(const std::vector<std::string>& extras) {
  std::string options, others;
  int unknown = 0;
  for (std::size_t i = 0; i < extras.size(); ++i) {
    const std::string& a = extras[i];
    if (a.size() > 1 && a[0] == '-') {
      std::string one = a;
      if (i + 1 < extras.size() && extras[i + 1].rfind('-', 0) != 0) {
        one += " " + extras[++i];
      }
      options += (options.empty() ? "" : ", ") + one;
      ++unknown;
    } else {
      others += (others.empty() ? "" : " ") + a;
    }
  }
  if (options.empty()) return "unexpected arguments: " + others;
  return (unknown > 1 ? "unknown options " : "unknown option ") + options +
         (others.empty() ? "" : "; unexpected arguments: " + others);
}

// SIGINT (Ctrl-C) and SIGTERM (a CI job's timeout): a run in progress is ended with what
// each node was doing, as the watchdog ends one (RunError kind interrupted; exit status 128 +
// the signal). With no run to end, or at a signal more than half a second after the first,
// the signal's own default. Within that half second a signal is the same one again:
// timeout(1) sends its signal to the process and then to its process group, which reaches
// the process twice.
std::atomic<long long> first_interrupt_ns{0};

void on_interrupt(int signal) {
  timespec t{};
  clock_gettime(CLOCK_MONOTONIC, &t);
  const long long now = static_cast<long long>(t.tv_sec) * 1'000'000'000 + t.tv_nsec;
  const long long first = first_interrupt_ns.load();
  if (first != 0 && now - first < 500'000'000) return;
  if (first != 0 || vmc::runs_watched() == 0) {
    std::signal(signal, SIG_DFL);
    std::raise(signal);
    return;
  }
  first_interrupt_ns.store(now);
  vmc::request_interrupt(signal);
}

void report_interrupts() {
  for (int signal : {SIGINT, SIGTERM}) {
    struct sigaction now {};
    if (sigaction(signal, nullptr, &now) != 0 || now.sa_handler == SIG_IGN) continue;  // kept
    struct sigaction a {};
    a.sa_handler = &on_interrupt;
    sigemptyset(&a.sa_mask);
    sigaction(signal, &a, nullptr);
  }
}

}  // namespace

int main(int argc, char** argv) {
  report_interrupts();
  CLI::App app{"vmc: a shared-memory emulated multicomputer and its collective algorithms"};
  app.set_version_flag("--version", std::string("vmc ") + VMC_VERSION);
  app.require_subcommand(1);
  vmc::cli::add_commands(app);
  vmc::cli::add_load_options(app);  // every command: --load FILE and VMC_LOAD
  // CLI11 reads an unknown command as a stray argument and asks for a subcommand; say what
  // was wrong instead.
  if (argc > 1 && argv[1][0] != '-') {
    bool known = false;
    std::string names;
    for (const CLI::App* sub : app.get_subcommands({})) {
      known = known || sub->get_name() == argv[1];
      names += (names.empty() ? "" : ", ") + sub->get_name();
    }
    if (!known) {
      std::cerr << "vmc: unknown command \"" << argv[1] << "\" (expected " << names << ")\n";
      return 2;
    }
  }
  vmc::cli::mpirun_spell_np(app, argc, argv);
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const vmc::cli::ExitStatus& e) {  // the command said what went wrong
    return e.status();
  } catch (const CLI::ParseError& e) {
    // Point at the help of the command whose flags were wrong: the top level lists none.
    const std::vector<CLI::App*> commands = app.get_subcommands();
    const std::string help =
        commands.empty() ? "vmc --help" : "vmc " + commands.front()->get_name() + " --help";
    if (dynamic_cast<const CLI::ExtrasError*>(&e) != nullptr && !commands.empty()) {
      // CLI11 names what it did not expect last first ("none --data"): name it as typed,
      // an option the command does not have first.
      std::cerr << "vmc " << commands.front()->get_name() << ": "
                << unexpected(commands.front()->remaining()) << " (see " << help << ")\n";
      return 2;
    }
    std::cerr << "vmc: " << one_line(e.what()) << " (see " << help << ")\n";
    return 2;
  } catch (const std::invalid_argument& e) {  // bad input, vmc::cli::UsageError included
    std::cerr << "vmc: " << one_line(e.what()) << "\n";
    return 2;
  } catch (const std::out_of_range& e) {
    std::cerr << "vmc: " << one_line(e.what()) << "\n";
    return 2;
  } catch (const std::bad_alloc&) {
    std::cerr << "vmc: out of memory\n";
    return 1;
  } catch (const vmc::RunError& e) {  // a failed run: its report, line by line
    std::cerr << "vmc: " << trimmed(e.what()) << "\n";
    if (e.kind() == vmc::RunError::Kind::interrupted) return 128 + vmc::interrupt_requested();
    return 1;
  } catch (const std::exception& e) {
    std::cerr << "vmc: " << trimmed(e.what()) << "\n";
    return 1;
  }
  return 0;
}
