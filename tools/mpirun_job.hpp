// What `vmc mpirun` makes of a job, as pure functions (tools/cmd_mpirun.cpp runs the job):
// the exit status and the report from what each rank did and how the run ended, a deadlock
// in MPI's terms, --coll's algorithms, and a command line quoted for a shell.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "mpi/job.hpp"
#include "runtime/errors.hpp"
#include "runtime/failures.hpp"

namespace vmc::cli {

// How one rank's main ended, as its node saw it.
struct RankEnd {
  bool returned = false;  // main returned, or the rank called exit()
  int status = 0;         // then: its exit status (the value modulo 256, as a process's)
  std::string failure;    // what the rank threw: an MPI error, an exception, a crash
  int signal = 0;         // a crash (abort(), a failed assert): the signal a process dies of
};

// A job's ranks and how its run ended.
struct JobFacts {
  std::vector<RankEnd> ranks;
  std::optional<RunError> error;  // the run's failure, when it did not complete
  mpi::JobOutcome outcome;        // what the MPI layer saw (MPI_Abort, MPI_Finalize)
  FailureReport failures;         // ranks that failed on purpose (--fail) and what they did
  // Ranks given a failure (--fail) that made no MPI call at or after its time, so never
  // failed: named, so that a failure that did not fire is not taken for one that did.
  std::vector<NodeFailure> did_not_fail;
};

// What mpirun says of a job and the status it exits with.
struct JobVerdict {
  // 0 when every rank returned 0 (and called MPI_Finalize if it called MPI_Init); otherwise,
  // the first that applies: MPI_Abort's code (modulo 256; 1 for a code that is 0 there); 128
  // plus the signal for a rank that crashed; 1 for a rank that failed otherwise, a deadlock
  // or a run without progress; the exit status of the lowest rank that exited non-zero; 1
  // for ranks that did not call MPI_Finalize.
  int exit_status = 0;
  // Lines for stderr, each naming the ranks it is about ("rank 2 exited with status 3");
  // empty when the job succeeded.
  std::vector<std::string> report;
  // The first line, or "ok": for a table of several jobs. A first line that introduces a
  // list ("deadlock: ... complete:") takes the list's first entry, or the line that names
  // the ranks that never called a collective the others are in (the cause), and says how
  // many more.
  std::string summary() const {
    if (report.empty()) return "ok";
    std::string line = report.front();
    if (line.back() != ':' || report.size() < 2) return line;
    std::string next = report[1];
    for (const std::string& l : report) {
      if (l.find(" not called") != std::string::npos && l.rfind("  ", 0) == 0) next = l;
    }
    next.erase(0, next.find_first_not_of(' '));
    line += " " + next;
    if (report.size() > 2) line += " (and " + std::to_string(report.size() - 2) + " more lines)";
    return line;
  }
};
JobVerdict judge_job(const JobFacts& facts);

// One blocked rank of a deadlock in MPI's terms: "rank 0: MPI_Recv(source 1, tag 5,
// MPI_COMM_WORLD), waiting for rank 1", from the call the MPI layer declared (its
// CallContext) and the runtime's wait; without a declared call, the runtime's wait. A rank
// in no wait (the watchdog's report): "rank 2: running its own code (in no MPI call)".
std::string blocked_rank_line(const BlockedWait& wait);
// A RunError of kind stuck (ranks that did not return after the job was ended) as vmc mpirun
// reports it: the failure that ended the job, then the ranks that did not return.
std::vector<std::string> stuck_report(const RunError& error);
// The note vmc mpirun prints when no rank has made progress for `stalled` seconds, before the
// watchdog ends the job (MachineConfig::on_stall): which ranks run their own code, and when
// the job ends.
std::string stall_note(const std::vector<BlockedWait>& waits, double stalled, double watchdog);

// "1, 3, 5": ranks (or any numbers) in a list.
std::string number_list(const std::vector<int>& numbers);
// The same with every run of three or more consecutive numbers as A-B ("0-58, 60"): the
// runtime's (errors.hpp).
using vmc::number_ranges;

// --coll "allreduce=ring,bcast=binomial": the algorithm per operation, keyed by vmc's
// operation name ("broadcast"). MPI's names are accepted too, with or without "MPI_" and in
// any case ("MPI_Bcast", "bcast"; "reduce_scatter_block" is vmc's reduce_scatter). Throws
// UsageError (the option's check names --coll) listing the valid operations or algorithms
// for an unknown operation or algorithm, a repeated operation, or an item that is not
// OP=ALGORITHM.
std::map<std::string, std::string> parse_coll(const std::string& text);

// `text` as one word for a POSIX shell (in single quotes where it needs them).
std::string shell_quote(const std::string& text);

}  // namespace vmc::cli
