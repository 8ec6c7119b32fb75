// RankPrograms: one MPI program loaded into this process for every rank of `vmc mpirun -np P
// ./prog`, so that all ranks run at once on threads (or fibers) of one process, each with its
// own globals and statics (Privatize::copies, the default) or all sharing one loaded copy
// (Privatize::none, for thread-safe programs).
//
// The program is built as a shared object (-fPIC -shared, `main` exported; vmcc's job). With
// copies, the constructor copies the file P times into a fresh temporary directory (mkdtemp
// under copies_parent(): $TMPDIR when set, else /dev/shm when it has room, else /tmp), one
// distinct name per rank, and dlopen()s each copy with
// RTLD_NOW | RTLD_LOCAL. Why copies: the dynamic loader keeps one link map per file (it
// matches an open request by path and by device and inode, so a second dlopen of the same
// file, of a hard link or of a symbolic link to it returns the first handle). A distinct
// file gets a link map of its own, hence its own data, bss, relocated GOT, its own TLS
// module (a `__thread` variable is per rank and per thread), and its constructors run once
// per copy. RTLD_LOCAL keeps a copy's symbols out of the global scope, so that no copy binds
// to another's; RTLD_NOW makes a symbol the program needs and nobody defines an error here,
// not a crash in the middle of a run. With none, one copy is loaded the same way and every
// rank calls its main: the program's globals are shared by all ranks, and its `__thread`
// variables are per thread (under fibers, shared by the ranks of one worker).
//
// Not privatized: everything outside the program's own object. The shared libraries it uses
// (libc's state: environ, the current directory, rand()'s state, atexit, signal handlers,
// libm, ...) are loaded once and shared by all ranks. errno is per rank (per thread, and
// saved at every fiber switch). vmcc links a program so that exit(), abort() and a failed
// assert() end the calling rank only, and its C stdio output goes through per-rank line
// buffers (mpi/output.hpp). Unresolved symbols of a copy bind to the global scope first: the
// executable (its exported symbols: link it with ENABLE_EXPORTS / -rdynamic) and the
// libraries it links; this is how the MPI functions reach the program. The same rule means
// that a symbol the program defines and the executable or libc also exports binds to theirs,
// shared by every rank, unless the program is linked with -Wl,-Bsymbolic (which vmcc passes;
// tests/mpi_front shows both). A `__thread` variable follows the thread: a rank that moves
// between threads (a migrating fiber) would see another thread's copy; vmc's fibers do not
// move. A program compiled with the initial-exec TLS model takes static TLS per copy, of
// which glibc has little.
//
// Where the copies go matters at hundreds of ranks: on a disk's file system (ext4) each new
// file costs the kernel's inode allocation, which searches past recently deleted inodes (a
// run's copies are deleted at its end, so the next run pays more): `vmc mpirun -np 1024` of a
// program that only calls MPI_Init and MPI_Finalize took 0.59-0.86 s with its copies in /tmp
// on ext4 and 0.14-0.16 s in /dev/shm (tmpfs, a memory file system), three runs each.
//
// Cost, measured on the 2-core development machine (/tmp on disk, ext4; glibc 2.36) by
// build/tests/mpi_front/measure_load (copy + dlopen + dlsym, per rank, 64 and 256 ranks):
// the test program (16 KB file) 70-75 us a rank to load, 25 us to unload, +17 KB RSS a rank;
// a 1 MB program (a 1 MB initialized array) 310-330 us to load, 170-190 us to unload, +125 KB
// RSS a rank loaded and +1040 KB once its main has written to every page. Nothing is shared
// between copies (distinct files): P ranks cost P times the program's text and data. Load,
// unload and removal together grow to about 1 ms a rank at 1024 to 4096 ranks (not looked
// into: the loader's search of the loaded objects at each dlopen, or the disk). Limits:
// each copy takes 5 memory mappings, so vm.max_map_count (65530 here) stops the loader at
// about 13,000 copies ("failed to map segment"); an initial-exec TLS program of 128 bytes of
// TLS loads 13 times, then "cannot allocate memory in static TLS block". A switch between
// ranks costs nothing extra: each rank runs in its own copy, nothing is remapped.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace vmc::mpi {

// How a rank's program ends before its main returns. Thrown from the calls that vmcc's link
// options redirect (mpi/exit.cpp) on a rank's own thread or fiber, up through the program's
// frames (vmcc compiles with -fexceptions). Neither derives from std::exception, so that a
// program's `catch (const std::exception&)` does not stop them (a `catch (...)` that does not
// rethrow would).
//
// exit(code), _exit(code), _Exit(code): the rank ends as if main had returned `code`;
// RankPrograms::run returns it. The other ranks go on.
struct RankExit {
  int code = 0;
};
// abort() or a failed assert(): the rank fails (as a process would on SIGABRT). `what` says
// which, with the rank: "rank 2: assertion failed: x.c:12: main: Assertion `x' failed".
struct RankCrash {
  std::string what;
  int signal = 0;  // the signal a process would have died of (SIGABRT)
};

// Whether every rank gets a private copy of the program's data (copies) or all share one
// (none: thread-safe programs).
enum class Privatize { copies, none };
std::string to_string(Privatize p);
Privatize parse_privatize(const std::string& text);  // throws std::invalid_argument

// For vmc mpirun --shared-malloc: throws std::runtime_error naming the program when it calls
// libc's malloc itself, linked by a vmcc from before malloc was sent to vmc's
// (mpi/shared_malloc.cpp), so that the option would share nothing. A program that is not a
// file is left for RankPrograms to refuse.
void check_wraps_malloc(const std::string& so_path);

// The directory under which RankPrograms makes its directory of copies: `tmpdir` ($TMPDIR)
// when it is set and not empty (the user's choice); else `shm` when it is a writable
// directory with at least `bytes` available (a memory file system: a file made there costs
// the kernel a few microseconds, against up to 100 us on a disk's); else /tmp.
std::string copies_parent(const char* tmpdir, const std::string& shm, std::uintmax_t bytes);

class RankPrograms {
 public:
  // The program's entry point as the copies export it.
  using Main = int (*)(int, char**);

  // Copies `so_path` once per rank (once in all with Privatize::none) and loads every copy;
  // runs every copy's constructors. Throws std::runtime_error naming the file, the rank and
  // the loader's words when the file cannot be read or copied, is not a shared object (an
  // executable built without -shared, a text file), needs a symbol nobody defines, or has no
  // `main`; nothing is left behind.
  RankPrograms(const std::string& so_path, int ranks, Privatize privatize = Privatize::copies);
  // dlclose()s every copy (their destructors run) and removes the directory.
  ~RankPrograms();
  RankPrograms(const RankPrograms&) = delete;
  RankPrograms& operator=(const RankPrograms&) = delete;

  int ranks() const { return ranks_; }
  Privatize privatize() const { return privatize_; }
  // Calls rank `rank`'s main(argc, argv) on the calling thread; ranks run side by side.
  // Returns what main returned, or the code the rank gave exit() (RankExit). A RankCrash and
  // anything else main throws go on up.
  int run(int rank, int argc, char** argv) const;
  // The address of `name` in rank `rank`'s copy (its own symbols and its libraries'), or
  // nullptr: for other entry points, and for tests to read a rank's globals.
  void* symbol(int rank, const char* name) const;
  // The temporary directory that holds the copies (gone after destruction).
  const std::string& directory() const { return directory_; }

 private:
  void release() noexcept;
  void check_rank(int rank) const;
  // The copy rank `rank` runs.
  std::size_t copy_of(int rank) const {
    return privatize_ == Privatize::none ? 0 : static_cast<std::size_t>(rank);
  }

  std::string so_path_;
  int ranks_ = 0;
  Privatize privatize_ = Privatize::copies;
  std::string directory_;
  std::vector<std::string> copies_;
  std::vector<void*> handles_;
  std::vector<Main> mains_;
};

}  // namespace vmc::mpi
