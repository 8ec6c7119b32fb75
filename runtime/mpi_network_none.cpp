// The MPI transport and the spread machine in a vmc built without MPI: making either says
// what is missing. The other calls of mpi_network.cpp and spread_network.cpp are reached only
// through a network, so none is ever made.
#include "runtime/detail.hpp"

namespace vmc::detail {

namespace {
[[noreturn]] void no_mpi() {
  throw UsageError("Machine: the mpi and spread transports need vmc built with MPI (the "
                   "set-up script installs libopenmpi-dev; CMake finds it unless VMC_WITH_MPI is "
                   "OFF, as in the sanitizer presets)");
}
}  // namespace

int mpi_processes() { no_mpi(); }
int mpi_process_rank() { no_mpi(); }
int mpi_processes(const MachineConfig&) { no_mpi(); }
int mpi_process_rank(const MachineConfig&) { no_mpi(); }
MpiNetwork* make_mpi_network(MachineImpl&) { no_mpi(); }
void destroy_mpi_network(MpiNetwork*) noexcept {}
std::shared_ptr<MpiChannels> mpi_begin_run(MpiNetwork&) { no_mpi(); }
void mpi_block(MpiNetwork&, const std::function<bool()>&, const WaitDescription&) { no_mpi(); }
int mpi_post_send(MpiNetwork&, const MpiChannels&, bool, int, const void*, std::size_t, int) {
  no_mpi();
}
int mpi_post_recv(MpiNetwork&, const MpiChannels&, bool, int, void*, std::size_t, int) { no_mpi(); }
MpiDone mpi_test(MpiNetwork&, int) { no_mpi(); }
std::string mpi_agree(MpiNetwork&, const MpiChannels&, const std::string&, const WaitDescription&) {
  no_mpi();
}
std::shared_ptr<MpiChannels> mpi_split(MpiNetwork&, const MpiChannels&, int, int, int,
                                       std::vector<int>&, const WaitDescription&) {
  no_mpi();
}
void mpi_notify_failure(MpiNetwork&, const std::string&) { no_mpi(); }
MpiRunEnd mpi_end_run(MpiNetwork&) { no_mpi(); }
bool mpi_everywhere(MpiNetwork&, bool) { no_mpi(); }

SpreadNetwork* make_spread_network(MachineImpl&) { no_mpi(); }
void destroy_spread_network(SpreadNetwork*) noexcept {}
void spread_start(SpreadNetwork&) { no_mpi(); }
int spread_processes_here(const SpreadNetwork&) { no_mpi(); }
void spread_begin_run(SpreadNetwork&) { no_mpi(); }
void spread_send(SpreadNetwork&, Message*, int) { no_mpi(); }
std::size_t spread_trailer_bytes() { return 0; }
bool spread_everywhere(SpreadNetwork&, bool) { no_mpi(); }
void spread_run(SpreadNetwork&, Stats&, Trace&) { no_mpi(); }

}  // namespace vmc::detail
