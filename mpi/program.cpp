#include "mpi/program.hpp"

#include <dlfcn.h>
#include <stdlib.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <stdexcept>
#include <system_error>

namespace vmc::mpi {

namespace fs = std::filesystem;

namespace {

std::string loader_error() {
  const char* e = dlerror();
  return e != nullptr ? e : "unknown dynamic loader error";
}

}  // namespace

std::string to_string(Privatize p) { return p == Privatize::none ? "none" : "copies"; }

std::string copies_parent(const char* tmpdir, const std::string& shm, std::uintmax_t bytes) {
  if (tmpdir != nullptr && *tmpdir != '\0') return tmpdir;
  std::error_code ec;
  if (fs::is_directory(shm, ec) && access(shm.c_str(), W_OK | X_OK) == 0) {
    const fs::space_info room = fs::space(shm, ec);
    if (!ec && room.available >= bytes) return shm;
  }
  return "/tmp";
}

Privatize parse_privatize(const std::string& text) {
  if (text == "copies") return Privatize::copies;
  if (text == "none") return Privatize::none;
  throw std::invalid_argument("privatization \"" + text + "\" (expected copies or none)");
}

void check_wraps_malloc(const std::string& so_path) {
  std::error_code ec;
  if (!fs::is_regular_file(so_path, ec)) return;
  std::ifstream in(so_path, std::ios::binary);
  const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  // The names of the symbols it needs, in its string table: "malloc" alone is libc's.
  using namespace std::string_literals;
  const bool libc_malloc = bytes.find("\0malloc\0"s) != std::string::npos;
  const bool wrapped = bytes.find("__wrap_malloc\0"s) != std::string::npos;
  if (libc_malloc && !wrapped) {
    throw std::runtime_error("MPI program " + so_path + ": built by a vmcc that left its malloc "
                             "to libc: --shared-malloc would share none of its blocks; build it "
                             "again with this vmcc");
  }
}

RankPrograms::RankPrograms(const std::string& so_path, int ranks, Privatize privatize)
    : so_path_(so_path), ranks_(ranks), privatize_(privatize) {
  const std::string what = "MPI program " + so_path;
  if (ranks < 1) {
    throw std::runtime_error(what + ": " + std::to_string(ranks) +
                             " ranks asked for; a program runs on 1 rank or more");
  }
  std::error_code ec;
  if (!fs::is_regular_file(so_path, ec)) {
    throw std::runtime_error(what + ": no such file (or not a regular file)");
  }
  // A source file or a script given by mistake: said before any copy is made.
  char magic[4] = {};
  std::ifstream(so_path, std::ios::binary).read(magic, sizeof magic);
  if (std::memcmp(magic, "\x7f" "ELF", sizeof magic) != 0) {
    const std::string stem = fs::path(so_path).stem().string();
    throw std::runtime_error(what + ": not a program built for vmc (it is not an ELF file; a " +
                             "source file?): build it with vmcc (C) or vmcxx (C++), e.g. vmcc -o " +
                             stem + " " + so_path + ", and give vmc mpirun ./" + stem);
  }
  const int copies = privatize == Privatize::none ? 1 : ranks;
  // Room for every copy, twice over: the file system is the machine's, others write to it.
  const std::uintmax_t bytes = 2 * fs::file_size(so_path, ec) * std::uintmax_t(copies);
  std::string pattern =
      (fs::path(copies_parent(getenv("TMPDIR"), "/dev/shm", bytes)) / "vmc-mpi-XXXXXX").string();
  if (mkdtemp(pattern.data()) == nullptr) {
    throw std::runtime_error(what + ": cannot make a temporary directory " + pattern + ": " +
                             std::strerror(errno));
  }
  directory_ = pattern;
  try {
    const std::string base = fs::path(so_path).filename().string();
    handles_.reserve(copies);
    mains_.reserve(copies);
    copies_.reserve(copies);
    for (int r = 0; r < copies; ++r) {
      const std::string rank = "rank " + std::to_string(r);
      const std::string copy = directory_ + "/" + std::to_string(r) + "-" + base;
      if (!fs::copy_file(so_path, copy, ec) || ec) {
        throw std::runtime_error(what + ", " + rank + ": cannot copy it to " + copy + ": " +
                                 ec.message());
      }
      copies_.push_back(copy);
      void* handle = dlopen(copy.c_str(), RTLD_NOW | RTLD_LOCAL);
      if (handle == nullptr) {
        // The loader names the copy, gone with the directory: name the program instead.
        std::string why = loader_error();
        for (std::size_t at = why.find(copy); at != std::string::npos;
             at = why.find(copy, at + so_path.size())) {
          why.replace(at, copy.size(), so_path);
        }
        throw std::runtime_error(what + ", " + rank + ": cannot load it as a shared object " +
                                 "(build it with vmcc or vmcxx): " + why);
      }
      handles_.push_back(handle);
      dlerror();
      void* entry = dlsym(handle, "main");
      if (entry == nullptr) {
        throw std::runtime_error(what + ", " + rank + ": no main exported: " + loader_error());
      }
      mains_.push_back(reinterpret_cast<Main>(entry));
    }
  } catch (...) {
    release();
    throw;
  }
}

RankPrograms::~RankPrograms() { release(); }

void RankPrograms::release() noexcept {
  // Last loaded first: their destructors run in the reverse order of their constructors.
  for (auto it = handles_.rbegin(); it != handles_.rend(); ++it) dlclose(*it);
  handles_.clear();
  mains_.clear();
  ranks_ = 0;
  copies_.clear();
  if (!directory_.empty()) {
    std::error_code ec;
    fs::remove_all(directory_, ec);  // nothing to do about a failure in a destructor
  }
}

void RankPrograms::check_rank(int rank) const {
  if (rank < 0 || rank >= ranks()) {
    throw std::out_of_range("MPI program " + so_path_ + ": rank " + std::to_string(rank) +
                            " of " + std::to_string(ranks()));
  }
}

int RankPrograms::run(int rank, int argc, char** argv) const {
  check_rank(rank);
  try {
    return mains_[copy_of(rank)](argc, argv);
  } catch (const RankExit& e) {
    return e.code;
  }
}

void* RankPrograms::symbol(int rank, const char* name) const {
  check_rank(rank);
  return dlsym(handles_[copy_of(rank)], name);
}

}  // namespace vmc::mpi
