// The MPI front door's loader (mpi/program.hpp): every rank gets its own copy of a program's
// globals, statics, thread-locals and constructor effects, while all ranks run at once; the
// program reaches the loading executable's exported functions; what is not a loadable
// program is refused with the file, the rank and the reason; nothing is left in $TMPDIR;
// the copies are unloaded when the object goes.
#include "mpi/program.hpp"

#include <dlfcn.h>
#include <gtest/gtest.h>
#include <stdlib.h>

#include <array>
#include <atomic>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <latch>
#include <memory>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

namespace fs = std::filesystem;
using vmc::mpi::copies_parent;
using vmc::mpi::RankPrograms;

// What the programs call: defined here, exported by the executable (ENABLE_EXPORTS).
namespace {
std::array<std::atomic<int>, 64> g_hello_calls{};
}  // namespace
extern "C" int vmc_hello(int rank) {
  g_hello_calls[rank % 64].fetch_add(1);
  return 2 * rank + 1;
}
// The same name as a variable of the program: without -Bsymbolic the program's references
// bind to this one.
extern "C" {
int vmc_shadowed = 0;
}

namespace {

// Rank `rank`'s copy of the program's int `name`.
int& global(const RankPrograms& p, int rank, const char* name) {
  void* address = p.symbol(rank, name);
  if (address == nullptr) throw std::runtime_error(std::string("no symbol ") + name);
  return *static_cast<int*>(address);
}

// Runs rank `rank`'s main with argv {"rank_program", "<rank>"}.
int run(const RankPrograms& p, int rank) {
  std::string name = "rank_program";
  std::string arg = std::to_string(rank);
  char* argv[] = {name.data(), arg.data(), nullptr};
  return p.run(rank, 2, argv);
}

// A fresh $TMPDIR for one test, removed with what it holds; the old value comes back.
class ScratchTmpdir {
 public:
  ScratchTmpdir() {
    if (const char* old = getenv("TMPDIR")) old_ = std::make_unique<std::string>(old);
    std::string pattern = (fs::temp_directory_path() / "vmc-mpi-test-XXXXXX").string();
    if (mkdtemp(pattern.data()) == nullptr) throw std::runtime_error("mkdtemp");
    path_ = pattern;
    setenv("TMPDIR", path_.c_str(), 1);
  }
  ~ScratchTmpdir() {
    if (old_) {
      setenv("TMPDIR", old_->c_str(), 1);
    } else {
      unsetenv("TMPDIR");
    }
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  const fs::path& path() const { return path_; }
  bool empty() const { return fs::is_empty(path_); }

 private:
  fs::path path_;
  std::unique_ptr<std::string> old_;
};

// Loading `file` on `ranks` ranks fails with a message that holds every one of `words`, and
// leaves nothing in $TMPDIR.
void expect_refused(const std::string& file, int ranks, const std::vector<std::string>& words) {
  ScratchTmpdir tmp;
  try {
    RankPrograms programs(file, ranks);
    ADD_FAILURE() << file << " was loaded";
  } catch (const std::runtime_error& e) {
    const std::string message = e.what();
    for (const std::string& w : words) {
      EXPECT_NE(message.find(w), std::string::npos) << "\"" << w << "\" not in: " << message;
    }
  }
  EXPECT_TRUE(tmp.empty()) << "a refused load left files in " << tmp.path();
}

TEST(RankPrograms, EveryRankHasItsOwnGlobalsWhileAllRunAtOnce) {
  constexpr int kRanks = 8;
  RankPrograms programs(RANK_PROGRAM, kRanks);
  ASSERT_EQ(programs.ranks(), kRanks);
  for (auto& c : g_hello_calls) c = 0;
  std::array<int, kRanks> results{};
  std::latch start(kRanks);
  std::vector<std::thread> threads;
  for (int r = 0; r < kRanks; ++r) {
    threads.emplace_back([&, r] {
      start.arrive_and_wait();  // every main runs at the same time as the others
      results[r] = run(programs, r);
    });
  }
  for (std::thread& t : threads) t.join();
  for (int r = 0; r < kRanks; ++r) {
    EXPECT_EQ(results[r], 1000 + r) << "rank " << r << ": its static local counts 1 call";
    EXPECT_EQ(global(programs, r, "calls_total"), 1) << r;
    EXPECT_EQ(global(programs, r, "tls_seen"), 1) << r;
    EXPECT_EQ(global(programs, r, "vmc_shadowed"), 1) << r;
    int* per_rank = static_cast<int*>(programs.symbol(r, "per_rank"));
    ASSERT_NE(per_rank, nullptr);
    for (int i = 0; i < 64; ++i) EXPECT_EQ(per_rank[i], i == r ? r + 1 : 0) << r << " " << i;
  }
  // A second call on rank 3 (from another thread): its counters only.
  EXPECT_EQ(run(programs, 3), 2003);
  for (int r = 0; r < kRanks; ++r) {
    EXPECT_EQ(global(programs, r, "calls_total"), r == 3 ? 2 : 1) << r;
    EXPECT_EQ(static_cast<int*>(programs.symbol(r, "per_rank"))[r], r == 3 ? 2 * (r + 1) : r + 1);
  }
  EXPECT_EQ(vmc_shadowed, 0) << "with -Bsymbolic the program's own variable, not the executable's";
}

TEST(RankPrograms, TheProgramCallsAFunctionTheExecutableExports) {
  RankPrograms programs(RANK_PROGRAM, 4);
  for (auto& c : g_hello_calls) c = 0;
  for (int r = 0; r < 4; ++r) run(programs, r);
  for (int r = 0; r < 4; ++r) {
    EXPECT_EQ(g_hello_calls[r], 1) << r;
    EXPECT_EQ(global(programs, r, "hello_result"), 2 * r + 1) << r;
  }
}

TEST(RankPrograms, ConstructorsRunOncePerCopy) {
  RankPrograms programs(RANK_PROGRAM, 5);
  for (int r = 0; r < 5; ++r) {
    EXPECT_EQ(global(programs, r, "constructor_runs"), 1) << r;
    EXPECT_EQ(global(programs, r, "initialized"), 107) << r << ": data, then the constructor";
  }
}

TEST(RankPrograms, ThreadLocalsArePerCopyAndPerThread) {
  RankPrograms programs(RANK_PROGRAM, 2);
  run(programs, 0);
  run(programs, 0);
  EXPECT_EQ(global(programs, 0, "tls_seen"), 2);
  run(programs, 1);
  EXPECT_EQ(global(programs, 1, "tls_seen"), 1) << "rank 1's copy has a TLS block of its own";
  // The same rank on another thread sees that thread's instance: a rank that moves between
  // threads does not take its thread-locals along.
  std::thread([&] { run(programs, 0); }).join();
  EXPECT_EQ(global(programs, 0, "tls_seen"), 1);
  EXPECT_EQ(global(programs, 0, "calls_total"), 3);
}

TEST(RankPrograms, ASecondLoadOfTheSameFileStartsFresh) {
  RankPrograms first(RANK_PROGRAM, 2);
  run(first, 0);
  run(first, 0);
  RankPrograms second(RANK_PROGRAM, 2);
  EXPECT_NE(first.directory(), second.directory());
  EXPECT_EQ(global(second, 0, "calls_total"), 0);
  EXPECT_EQ(global(second, 0, "constructor_runs"), 1);
  EXPECT_EQ(run(second, 0), 1000);
  EXPECT_EQ(global(first, 0, "calls_total"), 2);
}

TEST(RankPrograms, SixtyFourRanksLoadAndRunAtOnce) {
  constexpr int kRanks = 64;
  RankPrograms programs(RANK_PROGRAM, kRanks);
  std::array<int, kRanks> results{};
  std::latch start(kRanks);
  std::vector<std::thread> threads;
  for (int r = 0; r < kRanks; ++r) {
    threads.emplace_back([&, r] {
      start.arrive_and_wait();
      results[r] = run(programs, r);
    });
  }
  for (std::thread& t : threads) t.join();
  for (int r = 0; r < kRanks; ++r) {
    EXPECT_EQ(results[r], 1000 + r) << r;
    EXPECT_EQ(global(programs, r, "calls_total"), 1) << r;
    EXPECT_EQ(global(programs, r, "constructor_runs"), 1) << r;
  }
}

TEST(RankPrograms, WithoutBsymbolicTheExecutablesDefinitionWins) {
  // A symbol the program defines and the executable exports binds to the executable's: one
  // variable for every rank. vmcc must link programs with -Bsymbolic.
  vmc_shadowed = 0;
  RankPrograms programs(RANK_PROGRAM_INTERPOSABLE, 3);
  for (int r = 0; r < 3; ++r) run(programs, r);
  EXPECT_EQ(vmc_shadowed, 3) << "the executable's variable, shared";
  // dlsym on a copy's handle searches the copy (and its libraries) only: it finds the
  // copy's own variable, which the copy's code never touched.
  EXPECT_NE(programs.symbol(0, "vmc_shadowed"), static_cast<void*>(&vmc_shadowed));
  EXPECT_EQ(global(programs, 0, "vmc_shadowed"), 0);
  for (int r = 0; r < 3; ++r) EXPECT_EQ(global(programs, r, "calls_total"), 1) << r;
  vmc_shadowed = 0;
}

TEST(RankPrograms, PrivatizeNoneLoadsOneCopyThatEveryRankShares) {
  ScratchTmpdir tmp;
  RankPrograms programs(RANK_PROGRAM, 4, vmc::mpi::Privatize::none);
  EXPECT_EQ(programs.ranks(), 4);
  EXPECT_EQ(programs.privatize(), vmc::mpi::Privatize::none);
  EXPECT_EQ(std::distance(fs::directory_iterator(programs.directory()), fs::directory_iterator()),
            1);
  for (int r = 0; r < 4; ++r) {
    EXPECT_EQ(programs.symbol(r, "calls_total"), programs.symbol(0, "calls_total")) << r;
    EXPECT_EQ(run(programs, r), (r + 1) * 1000 + r) << "the static local counts every rank's call";
  }
  EXPECT_EQ(global(programs, 3, "calls_total"), 4);
  EXPECT_EQ(global(programs, 0, "constructor_runs"), 1);
}

TEST(RankPrograms, TheDirectoryOfCopiesIsGoneAfterDestruction) {
  ScratchTmpdir tmp;
  std::string directory;
  {
    RankPrograms programs(RANK_PROGRAM, 3);
    directory = programs.directory();
    EXPECT_EQ(fs::path(directory).parent_path(), tmp.path()) << "made under $TMPDIR";
    int copies = 0;
    for (const auto& entry : fs::directory_iterator(directory)) copies += entry.is_regular_file();
    EXPECT_EQ(copies, 3);
    run(programs, 1);
  }
  EXPECT_FALSE(fs::exists(directory));
  EXPECT_TRUE(tmp.empty());
}

// Whether `address` lies in an object the dynamic loader has loaded.
bool loaded(const void* address) {
  Dl_info info{};
  return dladdr(address, &info) != 0;
}

TEST(RankPrograms, DestructionUnloadsTheCopies) {
  ScratchTmpdir tmp;
  const void* address = nullptr;
  {
    RankPrograms programs(RANK_PROGRAM, 2);
    address = programs.symbol(1, "calls_total");
    EXPECT_TRUE(loaded(address));
  }
  EXPECT_FALSE(loaded(address)) << "rank 1's copy is still loaded";
  EXPECT_TRUE(tmp.empty());
}

TEST(RankPrograms, CopiesGoUnderTmpdirElseAMemoryFileSystemWithRoomElseTmp) {
  ScratchTmpdir scratch;  // stands in for /dev/shm: a writable directory with room
  const std::string shm = scratch.path().string();
  EXPECT_EQ(copies_parent("/some/where", shm, 1), "/some/where") << "$TMPDIR is the user's";
  EXPECT_EQ(copies_parent(nullptr, shm, 1024), shm);
  EXPECT_EQ(copies_parent("", shm, 1024), shm) << "an empty $TMPDIR is not set";
  EXPECT_EQ(copies_parent(nullptr, shm, UINTMAX_MAX), "/tmp") << "no room for the copies";
  EXPECT_EQ(copies_parent(nullptr, shm + "/none", 1), "/tmp") << "no such directory";
}

TEST(RankPrograms, AMissingFileIsRefused) {
  expect_refused("/nonexistent/prog.so", 2, {"/nonexistent/prog.so", "no such file"});
}

// A text file (a program's source given by mistake) is refused before any copy is made,
// pointing to vmcc.
TEST(RankPrograms, ATextFileIsRefused) {
  ScratchTmpdir here;  // holds the text file; expect_refused checks its own $TMPDIR
  const std::string text = (here.path() / "notes.c").string();
  std::ofstream(text) << "int main(void) { return 0; }\n";
  expect_refused(text, 2, {text, "not a program built for vmc", "a source file?",
                           "vmcc -o notes " + text});
}

TEST(RankPrograms, ASharedObjectWithoutMainIsRefused) {
  expect_refused(NO_MAIN_PROGRAM, 3, {NO_MAIN_PROGRAM, "rank 0", "no main exported",
                                      "undefined symbol: main"});
}

TEST(RankPrograms, AnExecutableBuiltWithoutSharedIsRefused) {
  expect_refused(PLAIN_EXECUTABLE, 2, {PLAIN_EXECUTABLE, "rank 0", "cannot load it as a shared "
                                       "object", "cannot dynamically load", "vmcc"});
  // The loader's words name the program, not the rank's copy (gone with its directory).
  ScratchTmpdir tmp;
  try {
    RankPrograms programs(PLAIN_EXECUTABLE, 2);
    ADD_FAILURE() << "loaded";
  } catch (const std::runtime_error& e) {
    EXPECT_EQ(std::string(e.what()).find("vmc-mpi-"), std::string::npos) << e.what();
  }
}

TEST(RankPrograms, ASymbolNobodyDefinesIsRefusedAtLoad) {
  expect_refused(MISSING_SYMBOL_PROGRAM, 2, {MISSING_SYMBOL_PROGRAM, "rank 0",
                                             "undefined symbol: vmc_nobody_defines_this"});
}

TEST(RankPrograms, ABadRankIsRefused) {
  EXPECT_THROW(RankPrograms(RANK_PROGRAM, 0), std::runtime_error);
  RankPrograms programs(RANK_PROGRAM, 2);
  EXPECT_THROW(run(programs, 2), std::out_of_range);
  EXPECT_THROW(programs.symbol(-1, "main"), std::out_of_range);
}

}  // namespace
