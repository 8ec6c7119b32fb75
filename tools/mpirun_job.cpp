#include "tools/mpirun_job.hpp"

#include <algorithm>
#include <cctype>
#include <csignal>
#include <cstring>
#include <map>
#include <regex>
#include <sstream>

#include "collectives/registry.hpp"
#include "runtime/run_errors.hpp"
#include "runtime/tags.hpp"
#include "tools/model_options.hpp"

namespace vmc::cli {
namespace {

std::string ranks_word(const std::vector<int>& ranks) {
  return (ranks.size() == 1 ? "rank " : "ranks ") + number_ranges(ranks);
}

// A failure's text without the "rank R: " it may start with (the MPI layer's errors do).
std::string without_rank(const std::string& text, int rank) {
  const std::string prefix = "rank " + std::to_string(rank) + ": ";
  return text.rfind(prefix, 0) == 0 ? text.substr(prefix.size()) : text;
}

std::string signal_name(int signal) {
  if (signal == SIGABRT) return "SIGABRT";
  const char* name = sigabbrev_np(signal);
  return name != nullptr ? std::string("SIG") + name : "signal " + std::to_string(signal);
}

void report_failures(const JobFacts& f, JobVerdict& v, int& status) {
  const RunError& e = *f.error;
  std::vector<int> failed;
  for (int r = 0; r < static_cast<int>(f.ranks.size()); ++r) {
    // MPI_Abort's rank is named by its own line; an error that aborted through its handler
    // is a failure like any.
    const bool called_abort = r == f.outcome.abort_rank && !f.outcome.abort_by_handler;
    if (!f.ranks[r].failure.empty() && !called_abort) failed.push_back(r);
  }
  // A failure another rank threw in this one's name (the report of collective calls that
  // differ blames a rank that went on past the call): the run's text, "node R threw: rank R:
  // MPI_Bcast: ...".
  std::string named;
  const int n = e.node();
  if (n >= 0 && n < static_cast<int>(f.ranks.size()) && f.ranks[n].failure.empty()) {
    const std::string threw = "node " + std::to_string(n) + " threw: ";
    const std::string text = e.what();
    if (text.rfind(threw + "rank " + std::to_string(n) + ": ", 0) == 0) {
      named = text.substr(threw.size());
      failed.push_back(n);
    }
  }
  // The rank the run names first: it failed first.
  std::stable_partition(failed.begin(), failed.end(), [&](int r) { return r == e.node(); });
  for (int r : failed) {
    const RankEnd& end = f.ranks[r];
    const std::string& failure = end.failure.empty() ? named : end.failure;
    std::string line = "rank " + std::to_string(r) + " failed: " + without_rank(failure, r);
    if (end.signal != 0) line += " (a process would have died of " + signal_name(end.signal) + ")";
    v.report.push_back(line);
    if (status == 0) status = end.signal != 0 ? 128 + end.signal : 1;
  }
  if (failed.empty() && f.outcome.abort_rank < 0) {
    v.report.push_back(e.what());  // a failure outside every rank's main
    if (status == 0) status = 1;
  }
}

// A line of the runtime's about the job's nodes in MPI's words: its nodes as the ranks of
// MPI_COMM_WORLD they are ("node 3" is rank 3 of it), its comm 0 as MPI_COMM_WORLD and another
// as "communicator N" (the runtime's number for it).
std::string in_rank_words(std::string line) {
  static const std::regex node("\\bnode\\b"), nodes("\\bnodes\\b"),
      world("\\bon comm 0\\b"), comm("\\bon comm (\\d+)");
  line = std::regex_replace(line, node, "rank");
  line = std::regex_replace(line, nodes, "ranks");
  line = std::regex_replace(line, world, "on MPI_COMM_WORLD");
  static const std::regex poll_limit("\\bthe poll limit\\b");
  line = std::regex_replace(line, poll_limit, "--poll-limit");
  return std::regex_replace(line, comm, "on communicator $1");
}

// Ranks waiting inside a collective call that some members of its communicator have not
// called: the cause, where each waiting rank's line names only its algorithm's partner.
void report_absent_members(const RunError& e, std::vector<std::string>& report) {
  for (const detail::CallWithAbsentMembers& c : detail::calls_with_absent_members(e.blocked())) {
    const BlockedWait& w = *c.first;
    const std::string comm =
        w.comm == 0 ? std::string("MPI_COMM_WORLD") : "communicator " + std::to_string(w.comm);
    // The waiting ranks' calls, as the MPI layer declared them: one, or (ranks whose calls
    // differ) each with its ranks.
    std::map<std::string, std::vector<int>> by_call;
    for (const BlockedWait* x : c.waits) by_call[x->context].push_back(x->node);
    std::string call;
    if (by_call.size() == 1 && !w.context.empty()) {
      call = w.context;
    } else {
      std::string calls;
      for (const auto& [context, ranks] : by_call) {
        if (context.empty()) continue;
        calls += (calls.empty() ? "" : "; ") + context + " on " + ranks_word(ranks);
      }
      // vmc's number for the call only where the MPI layer named none (it counts calls of
      // its own too, so the number is not the program's).
      call = calls.empty()
                 ? "collective call " + std::to_string(detail::call_of(w.tag)) + " on " + comm
                 : "one collective on " + comm + " (their calls differ: " + calls + ")";
    }
    report.push_back("  " + ranks_word(c.waiting) + (c.waiting.size() == 1 ? " is" : " are") +
                     " in " + call + ", which " + ranks_word(w.not_begun) +
                     (w.not_begun.size() == 1 ? " has" : " have") + " not called");
  }
}

// A deadlock in MPI's words: the runtime's first lines, then each blocked rank's call.
void report_deadlock(const RunError& e, const std::vector<int>& returned,
                     std::vector<std::string>& report) {
  const std::string what = e.what();
  if (e.blocked().empty()) {
    report.push_back(what);  // found by the virtual clock's pass, in its words
  } else if (const auto calls = what.find("\nthe nodes were in:"); calls != std::string::npos) {
    // Found by the virtual clock's pass, which lists the calls after its own words: its words,
    // then what each rank was in.
    std::istringstream lines(what.substr(0, calls));
    for (std::string line; std::getline(lines, line);) report.push_back(in_rank_words(line));
    // A send under rendezvous returns to its program at once; only its time waits for the
    // receive (docs/mpi.md, "Buffering"): the programs may have gone on past the sends above.
    report.push_back(what.find("under the rendezvous protocol") != std::string::npos
                         ? "the ranks were in (a program goes on past a send under rendezvous "
                           "at once; the model's send waits):"
                         : "the ranks were in:");
    for (const BlockedWait& w : e.blocked()) report.push_back("  " + blocked_rank_line(w));
    report_absent_members(e, report);
  } else {
    report.push_back("deadlock: every rank still running is blocked in a call that nothing "
                     "in flight can complete:");
    for (const BlockedWait& w : e.blocked()) report.push_back("  " + blocked_rank_line(w));
    report_absent_members(e, report);
  }
  if (!returned.empty()) {
    report.push_back("  " + ranks_word(returned) + (returned.size() == 1 ? " has" : " have") +
                     " returned from main");
  }
}

void report_deadlock(const JobFacts& f, JobVerdict& v) {
  std::vector<int> returned;
  for (int r = 0; r < static_cast<int>(f.ranks.size()); ++r) {
    if (f.ranks[r].returned) returned.push_back(r);
  }
  report_deadlock(*f.error, returned, v.report);
}

// The watchdog's report in MPI's words: its first line, then what each unfinished rank was in.
void report_watchdog(const RunError& e, std::vector<std::string>& report) {
  const std::string what = e.what();
  std::string head = what.substr(0, what.find('\n'));
  const std::string nodes = "the run was ended; its unfinished nodes:";
  if (const auto at = head.find(nodes); at != std::string::npos) {
    head.replace(at, nodes.size(), "the job was ended; its unfinished ranks:");
  }
  report.push_back(head);
  for (const BlockedWait& w : e.blocked()) report.push_back("  " + blocked_rank_line(w));
}

// Messages no receive took by the end of the job (MPI calls such a program erroneous: a
// rank that skips a collective its peers completed leaves theirs behind), in MPI's words:
// the runtime's lines with its nodes as the ranks they are.
void report_unreceived(const JobFacts& f, JobVerdict& v) {
  std::istringstream lines(f.error->what());
  std::string line;
  std::getline(lines, line);
  v.report.push_back("messages left unreceived: every rank returned, but no receive took " +
                     std::string(line.find("this message") != std::string::npos ? "this message"
                                                                                : "these messages") +
                     " (MPI calls a program that leaves messages unreceived erroneous):");
  while (std::getline(lines, line)) v.report.push_back(in_rank_words(line));
}

// Ranks that exited non-zero, grouped by status; the status of the lowest.
void report_exits(const JobFacts& f, JobVerdict& v, int& status) {
  std::map<int, std::vector<int>> by_status;
  for (int r = 0; r < static_cast<int>(f.ranks.size()); ++r) {
    const RankEnd& end = f.ranks[r];
    if (end.returned && end.status != 0) {
      if (by_status.empty() && status == 0) status = end.status;
      by_status[end.status].push_back(r);
    }
  }
  for (const auto& [code, ranks] : by_status) {
    v.report.push_back(ranks_word(ranks) + " exited with status " + std::to_string(code));
  }
}

}  // namespace

std::string number_list(const std::vector<int>& numbers) {
  std::string text;
  for (int n : numbers) text += (text.empty() ? "" : ", ") + std::to_string(n);
  return text;
}

// Ranks that failed on purpose (--fail), and the calls that needed them, in MPI's words.
void report_failed_ranks(const JobFacts& f, JobVerdict& v) {
  const FailureReport& r = f.failures;
  if (!r.stopped.empty() && !r.drawn.empty()) v.report.push_back(r.drawn);
  for (std::size_t k = 0; k < r.links.size(); ++k) {
    const FailureReport::Link& l = r.links[k];
    v.report.push_back(r.link_name(static_cast<int>(k)) + " down at " +
                       format_duration(to_seconds(l.at_ps)) + " (--fail) " +
                       r.link_outcome(static_cast<int>(k)));
  }
  for (const FailureReport::Lost& x : r.lost) {
    v.report.push_back("message lost: rank " + std::to_string(x.sender) + " to rank " +
                       std::to_string(x.receiver) + " " + tag_text(x.tag) + ", sent at " +
                       format_duration(to_seconds(x.sent_ps)) + ", on " + r.link_name(x.link));
  }
  for (const FailureReport::Stopped& s : r.stopped) {
    const std::string at = format_duration(to_seconds(s.at_ps));
    if (s.cause_link >= 0) {
      v.report.push_back("rank " + std::to_string(s.node) + " stopped at " + at +
                         ": it ended on MPI_ERR_OTHER of a receive whose message was lost on " +
                         r.link_name(s.cause_link));
      continue;
    }
    v.report.push_back(s.cause < 0 ? "rank " + std::to_string(s.node) + " failed at " + at +
                                         " (--fail)"
                                   : "rank " + std::to_string(s.node) + " stopped at " + at +
                                         ": it ended on MPI_ERR_PROC_FAILED of a call that "
                                         "needed failed rank " + std::to_string(s.cause));
  }
  for (const NodeFailure& n : f.did_not_fail) {
    v.report.push_back("rank " + std::to_string(n.node) + " did not fail: it made no MPI call " +
                       "at or after " + format_duration(n.at) + ", its failure's time (--fail)");
  }
  for (const FailureReport::Affected& a : r.affected) {
    const std::string at = format_duration(to_seconds(a.at_ps));
    if (a.link >= 0) {
      v.report.push_back("rank " + std::to_string(a.node) + ": " + a.call + ": MPI_ERR_OTHER at " +
                         at + " (the message was lost on "  + r.link_name(a.link) + ")");
      continue;
    }
    v.report.push_back("rank " + std::to_string(a.node) + ": " + a.call + ": MPI_ERR_PROC_FAILED at " +
                       at + " (rank " + std::to_string(a.failed) + " had failed)");
  }
}

JobVerdict judge_job(const JobFacts& f) {
  JobVerdict v;
  int status = 0;
  const mpi::JobOutcome& o = f.outcome;
  report_failed_ranks(f, v);
  std::vector<bool> failed(f.ranks.size(), false);
  for (const FailureReport::Stopped& s : f.failures.stopped) {
    if (s.node < static_cast<int>(failed.size())) failed[s.node] = true;
  }
  if (o.abort_rank >= 0) {
    v.report.push_back("rank " + std::to_string(o.abort_rank) +
                       (o.abort_by_handler ? "'s error handler MPI_ERRORS_ABORT aborted the job"
                                           : " called MPI_Abort") +
                       " with code " + std::to_string(o.abort_code) + ": the job was ended");
    status = (o.abort_code & 255) != 0 ? (o.abort_code & 255) : 1;
  }
  if (f.error) {
    switch (f.error->kind()) {
      case RunError::Kind::node_threw: report_failures(f, v, status); break;
      case RunError::Kind::deadlock: report_deadlock(f, v); break;
      case RunError::Kind::watchdog: report_watchdog(*f.error, v.report); break;
      case RunError::Kind::interrupted:
        report_watchdog(*f.error, v.report);
        status = 128 + (interrupt_requested() != 0 ? interrupt_requested() : SIGINT);
        break;
      case RunError::Kind::stuck: v.report = stuck_report(*f.error); break;
      case RunError::Kind::unreceived: report_unreceived(f, v); break;
      case RunError::Kind::node_failed: break;  // the failures' report below says it all
    }
    if (status == 0) status = 1;
  } else {
    report_exits(f, v, status);
    std::vector<int> unfinalized;
    for (int r : o.unfinalized) {
      if (r < static_cast<int>(f.ranks.size()) && f.ranks[r].status == 0 && !failed[r]) {
        unfinalized.push_back(r);
      }
    }
    if (!unfinalized.empty()) {
      v.report.push_back(ranks_word(unfinalized) + " returned from main without calling " +
                         "MPI_Finalize");
      if (status == 0) status = 1;
    }
  }
  v.exit_status = status;
  return v;
}

std::string blocked_rank_line(const BlockedWait& w) {
  std::string line = "rank " + std::to_string(w.node) + ": ";
  if (w.operation == detail::kRunningNode) {  // the watchdog's report: in no wait
    return line + (w.context.empty() ? "running its own code (in no MPI call)"
                                     : "running, in " + w.context);
  }
  if (w.operation == detail::kQueuedNode) {  // behind a rank on its fibers worker
    return line + "waiting for its fibers worker, which runs another rank" +
           (w.context.empty() ? std::string() : ", in " + w.context);
  }
  if (!w.context.empty()) {
    line += w.context;
    // Inside a collective call the partner is its algorithm's, not necessarily the cause
    // (report_absent_members names the ranks that never came).
    const bool in_collective = w.tag >= detail::kCollectiveTagBase;
    if (w.peer >= 0) {
      line += (in_collective ? ", its algorithm waiting for rank " : ", waiting for rank ") +
              std::to_string(w.peer_world);
    } else if (w.peer_world >= 0) {
      line += ", waiting to send to rank " + std::to_string(w.peer_world);
    }
    if (w.other) line += " (" + w.other_message() + ")";
    return line;
  }
  line += "blocked in " + w.operation;
  if (w.peer >= 0) {
    line += " from rank " + std::to_string(w.peer_world);
  } else if (w.peer_world >= 0) {
    line += " to rank " + std::to_string(w.peer_world);
  }
  if (detail::wait_names_a_tag(w.operation)) line += ", " + tag_text(w.tag);
  line += w.comm == 0 ? std::string(", MPI_COMM_WORLD") : ", communicator " + std::to_string(w.comm);
  if (w.other) line += " (" + w.other_message() + ")";
  return line;
}

std::string stall_note(const std::vector<BlockedWait>& waits, double stalled, double watchdog) {
  std::vector<int> running;
  for (const BlockedWait& w : waits) {
    if (w.operation == detail::kRunningNode) running.push_back(w.node);
  }
  std::string text = "no progress for " + seconds_text(stalled);
  if (!running.empty()) {
    const bool one = running.size() == 1;
    text += ": " + ranks_word(running) + (one ? " is" : " are") + " running " +
            (one ? "its" : "their") + " own code (in no MPI call)";
    if (running.size() < waits.size()) text += ", the others wait in MPI calls";
  }
  return text + "; the job is ended after " + seconds_text(watchdog) +
         " without progress (--watchdog SECONDS)";
}

std::vector<std::string> stuck_report(const RunError& e) {
  const RunError::Stuck& s = e.stuck();
  std::vector<std::string> report;
  if (s.cause == nullptr) {
    report.push_back("the job was ended");
  } else if (s.cause->kind() == RunError::Kind::watchdog ||
             s.cause->kind() == RunError::Kind::interrupted) {
    report_watchdog(*s.cause, report);
  } else if (s.cause->kind() == RunError::Kind::deadlock) {
    report_deadlock(*s.cause, {}, report);
  } else if (s.cause->kind() == RunError::Kind::node_threw && s.cause->node() >= 0) {
    // "node R threw: rank R: MPI_Send: ..." as the rank's failure
    const int r = s.cause->node();
    std::string text = s.cause->what();
    const std::string threw = "node " + std::to_string(r) + " threw: ";
    if (text.rfind(threw, 0) == 0) text = text.substr(threw.size());
    report.push_back("rank " + std::to_string(r) + " failed: " + without_rank(text, r));
  } else {
    std::istringstream lines(s.cause->what());
    for (std::string line; std::getline(lines, line);) report.push_back(line);
  }
  const std::string grace = seconds_text(s.grace_seconds);
  if (s.own_code.empty()) {
    report.push_back(ranks_word(s.behind) + " did not return within " + grace +
                     " of the job's end, in an MPI call: the process ends");
    return report;
  }
  // The ranks that waited behind them on their fiber workers are left out: the watchdog's
  // report above says where they were, and nothing is to be done about them.
  report.push_back(ranks_word(s.own_code) + " did not return within " + grace +
                   " of the job's end: in the program's own code (a loop that makes no MPI "
                   "call), which vmc cannot interrupt: the process ends");
  return report;
}

std::map<std::string, std::string> parse_coll(const std::string& text) {
  // MPI's names where they differ from vmc's.
  const std::map<std::string, std::string> mpi_names = {{"bcast", "broadcast"},
                                                        {"reduce_scatter_block", "reduce_scatter"}};
  auto operations = [&] {
    std::string names;
    for (Operation op : all_operations()) names += (names.empty() ? "" : ", ") + to_string(op);
    std::string aliases;
    for (const auto& [mpi_name, vmc_name] : mpi_names) aliases += (aliases.empty() ? "" : ", ") + mpi_name;
    return names + ", or MPI's " + aliases;
  };
  std::map<std::string, std::string> chosen;
  std::stringstream in(text);
  std::string item;
  while (std::getline(in, item, ',')) {
    const std::size_t eq = item.find('=');
    if (eq == std::string::npos || eq == 0 || eq + 1 == item.size()) {
      throw UsageError("\"" + item + "\" is not OPERATION=ALGORITHM (e.g. "
                       "allreduce=ring,bcast=binomial)");
    }
    std::string name = item.substr(0, eq);
    const std::string algorithm = item.substr(eq + 1);
    std::transform(name.begin(), name.end(), name.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    if (name.rfind("mpi_", 0) == 0) name = name.substr(4);
    if (const auto alias = mpi_names.find(name); alias != mpi_names.end()) name = alias->second;
    Operation op{};
    try {
      op = parse_operation(name);
    } catch (const std::exception&) {
      throw UsageError("no collective operation \"" + item.substr(0, eq) +
                       "\" (expected " + operations() + ")");
    }
    const std::string key = to_string(op);
    if (algorithm != "auto" && find_algorithm(op, algorithm) == nullptr) {
      std::string names;
      for (const Algorithm& row : algorithms(op)) names += ", " + row.name;
      throw UsageError(item + ": " + key + " has no algorithm \"" + algorithm +
                       "\" (expected auto" + names + ")");
    }
    if (!chosen.emplace(key, algorithm).second) {
      throw UsageError(key + " is named twice");
    }
  }
  if (chosen.empty()) {
    throw UsageError("name an OPERATION=ALGORITHM (e.g. allreduce=ring,bcast=binomial)");
  }
  return chosen;
}

std::string shell_quote(const std::string& text) {
  const bool plain = !text.empty() && std::all_of(text.begin(), text.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || std::strchr("_@%+=:,./-", c) != nullptr;
  });
  if (plain) return text;
  std::string quoted = "'";
  for (char c : text) quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return quoted + "'";
}

}  // namespace vmc::cli
