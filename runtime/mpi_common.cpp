// What the MPI transport and the spread machine share (mpi_common.hpp, mpi_config.hpp), and
// the MPI session of the program (machine.hpp: mpi_world_size, mpi_world_rank).
#include <mpi.h>

#include <algorithm>
#include <chrono>
#include <thread>

#include "runtime/mpi_common.hpp"
#include "runtime/mpi_config.hpp"

namespace vmc {

namespace detail {

[[noreturn]] void mpi_failed(const char* call, int code) {
  char text[MPI_MAX_ERROR_STRING];
  int len = 0;
  MPI_Error_string(code, text, &len);
  throw UsageError(std::string("MPI transport: ") + call + " failed: " + std::string(text, len));
}

void check(int code, const char* call) {
  if (code != MPI_SUCCESS) mpi_failed(call, code);
}

namespace {

// MPI is started by vmc when the program has not started it, and finished when the program
// exits. It asks for MPI_THREAD_MULTIPLE: a spread machine's progress thread moves messages
// while the thread that runs the machine agrees on the run's end (spread_transport.cpp).
struct MpiSession {
  bool started_here = false;
  MpiSession() {
    int initialized = 0;
    MPI_Initialized(&initialized);
    if (!initialized) {
      int provided = 0;
      MPI_Init_thread(nullptr, nullptr, MPI_THREAD_MULTIPLE, &provided);
      started_here = true;
    }
  }
  ~MpiSession() {
    int finalized = 0;
    MPI_Finalized(&finalized);
    if (started_here && !finalized) MPI_Finalize();
  }
};

}  // namespace

void ensure_mpi() { static MpiSession session; }

// The pause of a wait that has lasted `waited` seconds: a yield of the core for the first
// `spin` seconds (a message between processes takes microseconds), then sleeps growing from
// 20 us to 1 ms, so that a long wait costs the core nothing.
void back_off(double waited, double spin) {
  if (waited < spin) {
    std::this_thread::yield();
    return;
  }
  const double pause = std::min(1e-3, std::max(20e-6, waited / 100));
  std::this_thread::sleep_for(std::chrono::duration<double>(pause));
}

HostNames::HostNames(MPI_Comm comm) {
  int size = 0, length = 0;
  check(MPI_Comm_size(comm, &size), "MPI_Comm_size");
  check(MPI_Get_processor_name(mine.data(), &length), "MPI_Get_processor_name");
  all.resize(static_cast<std::size_t>(size) * mine.size());
  check(MPI_Iallgather(mine.data(), static_cast<int>(mine.size()), MPI_CHAR, all.data(),
                       static_cast<int>(mine.size()), MPI_CHAR, comm, &request),
        "MPI_Iallgather");
}

int HostNames::count() const {
  int here = 0;
  for (std::size_t at = 0; at < all.size(); at += mine.size()) {
    here += std::equal(mine.begin(), mine.end(), all.begin() + static_cast<std::ptrdiff_t>(at))
                ? 1
                : 0;
  }
  return std::max(here, 1);
}

int processes_here(MPI_Comm comm) {
  HostNames names(comm);
  check(MPI_Wait(&names.request, MPI_STATUS_IGNORE), "MPI_Wait");
  return names.count();
}

bool wait_within(std::vector<MPI_Request>& requests, double seconds, double spin) {
  const auto start = std::chrono::steady_clock::now();
  for (int done = 0;;) {
    check(MPI_Testall(static_cast<int>(requests.size()), requests.data(), &done,
                      MPI_STATUSES_IGNORE),
          "MPI_Testall");
    if (done) return true;
    const double waited =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (waited > seconds) return false;
    back_off(waited, spin);
  }
}

MPI_Comm base_communicator(const MachineConfig& c) {
  ensure_mpi();
  if (!c.mpi_communicator) return MPI_COMM_WORLD;
  MPI_Comm comm = MPI_Comm_f2c(*c.mpi_communicator);
  if (comm == MPI_COMM_NULL) {
    throw UsageError("Machine: mpi_communicator is MPI_COMM_NULL: give the communicator whose "
                     "processes run the machine (MPI_COMM_NULL is what MPI_Comm_split hands a "
                     "process left out)");
  }
  return comm;
}

int mpi_processes(const MachineConfig& c) {
  int size = 0;
  check(MPI_Comm_size(base_communicator(c), &size), "MPI_Comm_size");
  return size;
}

int mpi_process_rank(const MachineConfig& c) {
  int rank = 0;
  check(MPI_Comm_rank(base_communicator(c), &rank), "MPI_Comm_rank");
  return rank;
}

}  // namespace detail

int mpi_world_size() {
  detail::ensure_mpi();
  int size = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  return size;
}

int mpi_world_rank() {
  detail::ensure_mpi();
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  return rank;
}

}  // namespace vmc
