// The MPI transport and the spread machine in a vmc built without MPI: making either says
// what is missing, as do the calls that would start MPI.
#include "runtime/machine_impl.hpp"
#include "runtime/mpi_config.hpp"
#include "runtime/transport.hpp"

namespace vmc {

namespace detail {

namespace {
[[noreturn]] void no_mpi() {
  throw UsageError("Machine: the mpi and spread transports need vmc built with MPI (the "
                   "set-up script installs libopenmpi-dev; CMake finds it unless VMC_WITH_MPI is "
                   "OFF, as in the sanitizer presets)");
}
}  // namespace

int mpi_processes(const MachineConfig&) { no_mpi(); }
int mpi_process_rank(const MachineConfig&) { no_mpi(); }
std::unique_ptr<Transport> make_mpi(MachineImpl&) { no_mpi(); }
std::unique_ptr<Transport> make_spread(MachineImpl&) { no_mpi(); }

}  // namespace detail

int mpi_world_size() { detail::no_mpi(); }
int mpi_world_rank() { detail::no_mpi(); }

}  // namespace vmc
