// RankPrograms: one MPI program loaded once per rank into this process, each rank with its
// own globals and statics, so that all ranks of `vmc mpirun -np P ./prog` run at once on
// threads (or fibers) of one process. A prototype of the MPI front door's loader.
//
// The program is built as a shared object (-fPIC -shared, `main` exported; vmcc's job). The
// constructor copies the file P times into a fresh temporary directory (mkdtemp under
// $TMPDIR, else /tmp), one distinct name per rank, and dlopen()s each copy with
// RTLD_NOW | RTLD_LOCAL. Why copies: the dynamic loader keeps one link map per file (it
// matches an open request by path and by device and inode, so a second dlopen of the same
// file, of a hard link or of a symbolic link to it returns the first handle). A distinct
// file gets a link map of its own, hence its own data, bss, relocated GOT, its own TLS
// module (a `__thread` variable is per rank and per thread), and its constructors run once
// per copy. RTLD_LOCAL keeps a copy's symbols out of the global scope, so that no copy binds
// to another's; RTLD_NOW makes a symbol the program needs and nobody defines an error here,
// not a crash in the middle of a run.
//
// Not privatized: everything outside the program's own object. The shared libraries it uses
// (libc's stdio buffers, errno aside, environ, the current directory, rand()'s state,
// atexit, signal handlers, libm, ...) are loaded once and shared by all ranks; exit() ends
// every rank. Unresolved symbols of a copy bind to the global scope first: the executable
// (its exported symbols: link it with ENABLE_EXPORTS / -rdynamic) and the libraries it
// links; this is how the MPI functions will reach the program. The same rule means that a
// symbol the program defines and the executable or libc also exports binds to theirs, shared
// by every rank, unless the program is linked with -Wl,-Bsymbolic (which vmcc should pass;
// tests/mpi_front shows both). A `__thread` variable follows the thread: a rank that moves
// between threads (a migrating fiber) sees another thread's copy. A program compiled with
// the initial-exec TLS model takes static TLS per copy, of which glibc has little.
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
// TLS loads 13 times, then "cannot allocate memory in static TLS block".
#pragma once

#include <string>
#include <vector>

namespace vmc::mpi {

class RankPrograms {
 public:
  // The program's entry point as the copies export it.
  using Main = int (*)(int, char**);

  // Copies `so_path` once per rank and loads every copy; runs every copy's constructors.
  // Throws std::runtime_error naming the file, the rank and the loader's words when the file
  // cannot be read or copied, is not a shared object (an executable built without -shared,
  // a text file), needs a symbol nobody defines, or has no `main`; nothing is left behind.
  RankPrograms(const std::string& so_path, int ranks);
  // dlclose()s every copy (their destructors run) and removes the directory.
  ~RankPrograms();
  RankPrograms(const RankPrograms&) = delete;
  RankPrograms& operator=(const RankPrograms&) = delete;

  int ranks() const { return static_cast<int>(handles_.size()); }
  // Calls rank `rank`'s main(argc, argv) on the calling thread; ranks run side by side.
  int run(int rank, int argc, char** argv) const;
  // The address of `name` in rank `rank`'s copy (its own symbols and its libraries'), or
  // nullptr: for other entry points, and for tests to read a rank's globals.
  void* symbol(int rank, const char* name) const;
  // The temporary directory that holds the copies (gone after destruction).
  const std::string& directory() const { return directory_; }

 private:
  void release() noexcept;
  void check_rank(int rank) const;

  std::string so_path_;
  std::string directory_;
  std::vector<std::string> copies_;
  std::vector<void*> handles_;
  std::vector<Main> mains_;
};

}  // namespace vmc::mpi
