// How a rank ends early: the __wrap_ functions that vmcc's link options send a program's
// calls of exit, _exit, _Exit, abort and __assert_fail (what a failed assert() calls) to.
// In a process each of them would end the process, here every rank at once; on a rank they
// end that rank only (mpi/program.hpp's RankExit and RankCrash, thrown up through the
// program's frames), and vmc goes on: the other ranks run on after an exit, and a crash ends
// the job as a rank's failure, with a report naming it. Outside the ranks (a program's
// constructors, threads it starts) they are libc's own. atexit handlers do not run at a
// rank's exit (they are the process's), and stdio buffers are not flushed by it (a rank's
// output goes out line by line, mpi/output.hpp, and its last line when it ends).
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "mpi/program.hpp"
#include "runtime/machine.hpp"

extern "C" int __wrap_fputs(const char* s, std::FILE* f);  // mpi/stdio.cpp

extern "C" {

[[noreturn]] void __wrap_exit(int code) {
  if (vmc::this_node() == nullptr) std::exit(code);
  throw vmc::mpi::RankExit{code};
}

[[noreturn]] void __wrap__exit(int code) {
  if (vmc::this_node() == nullptr) std::_Exit(code);
  throw vmc::mpi::RankExit{code};
}

[[noreturn]] void __wrap__Exit(int code) {
  if (vmc::this_node() == nullptr) std::_Exit(code);
  throw vmc::mpi::RankExit{code};
}

[[noreturn]] void __wrap_abort() {
  if (vmc::this_node() == nullptr) std::abort();
  throw vmc::mpi::RankCrash{"abort() called", SIGABRT};
}

// glibc's words for a failed assertion, on the rank's stderr, and then as abort().
[[noreturn]] void __wrap___assert_fail(const char* assertion, const char* file,
                                       unsigned int line, const char* function) {
  const std::string what = std::string(file) + ":" + std::to_string(line) + ": " +
                           (function != nullptr ? std::string(function) + ": " : "") +
                           "Assertion `" + assertion + "' failed.";
  __wrap_fputs((what + "\n").c_str(), stderr);
  if (vmc::this_node() == nullptr) std::abort();
  throw vmc::mpi::RankCrash{"assertion failed: " + what, SIGABRT};
}

}  // extern "C"
