// The ranks' standard output and error (libvmc_mpi, mpi/stdio.cpp): the host's side.
//
// The ranks of `vmc mpirun` are threads or fibers of one process and share libc's stdout and
// stderr. vmcc links a program with -Wl,--wrap= for the C stdio calls that write (printf,
// puts, putchar, fputs, fputc, putc, fprintf, vprintf, vfprintf, fwrite, perror, their
// _FORTIFY_SOURCE forms __printf_chk, __fprintf_chk, __vprintf_chk, __vfprintf_chk, and the
// out-of-line *_unlocked forms); the program's calls then reach mpi/stdio.cpp, which appends
// what a rank writes to stdout or stderr to that rank's own buffer and writes out whole lines
// only, each line in one piece: two ranks' lines never mix within a line. During a job,
// std::cout, std::cerr and std::clog write through the same buffers (their stream buffers are
// replaced by ones that find the calling rank), so a C++ program built by vmcxx is covered
// too. Writes to other FILEs, and writes from threads that are not a rank (a program's
// constructors, threads it starts), go straight to libc.
#pragma once

namespace vmc::mpi {

enum class OutputMode {
  lines,   // each rank's whole lines, as they complete
  tagged,  // the same, each line prefixed "[1,R]<stdout>:" or "[1,R]<stderr>:" (Open MPI's
           // --tag-output)
  discard  // nothing written (vmc mpirun over several p)
};

// Before a run of `ranks` ranks: empty buffers, the mode in force, std::cout, std::cerr and
// std::clog redirected to the ranks' buffers. Not during a run. `ordered`: the run's
// MachineConfig::on_output calls write_marked_output, so every rank's lines are written in
// virtual-time order (the pass's), the same on every run, instead of as they complete.
void begin_output(int ranks, OutputMode mode, bool ordered = false);
// The run's pass reached the point where rank `rank` wrote its next `pieces` pieces of
// whole lines (MachineConfig::on_output): writes them.
void write_marked_output(int rank, std::size_t pieces);
// What the pass has not handed on yet, every rank's in rank order, for an end without way
// back (a crash, a rank that does not return): nothing if a thread holds the lines' lock.
void write_unhanded_output();
// Writes what rank `rank` has left without a final newline, as a line of its own; called
// when the rank's main has ended, on its own thread or after the run.
void flush_rank_output(int rank);
// After the run: the lines the pass did not hand on (a run that ended early), every rank's in
// rank order, then every rank's last partial line written, libc's stdout and stderr flushed,
// the C++ streams given back their own buffers.
void end_output();

}  // namespace vmc::mpi
