// The MPI transport in a vmc built without MPI: making it says what is missing. The other
// calls of mpi_network.cpp are reached only through a network, so none is ever made.
#include "runtime/detail.hpp"

namespace vmc::detail {

namespace {
[[noreturn]] void no_mpi() {
  throw UsageError("Machine: the MPI transport needs vmc built with MPI (the set-up script "
                   "installs libopenmpi-dev; CMake finds it unless VMC_WITH_MPI is OFF, as in "
                   "the sanitizer presets)");
}
}  // namespace

int mpi_processes() { no_mpi(); }
int mpi_process_rank() { no_mpi(); }
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

}  // namespace vmc::detail
