// The table of transports: the one place that names them. A row per MachineConfig::transport,
// a column per clock; a transport made for a clock it does not run refuses it in its check.
// A new transport is a file of its own (runtime/transport.hpp says what it implements), its
// make function declared here and a row below.
#include "runtime/transports.hpp"

#include "runtime/mpi_config.hpp"

namespace vmc::detail {

// Each defined in the transport's own file (no_mpi.cpp for the last two without MPI).
std::unique_ptr<Transport> make_virtual_clock(MachineImpl& m);  // virtual_clock.cpp
std::unique_ptr<Transport> make_real_clock(MachineImpl& m);     // real_clock.cpp
std::unique_ptr<Transport> make_mpi(MachineImpl& m);            // mpi_transport.cpp
std::unique_ptr<Transport> make_spread(MachineImpl& m);         // spread_transport.cpp

namespace {

using Make = std::unique_ptr<Transport> (*)(MachineImpl&);

struct TransportRow {
  vmc::Transport transport;
  void (*check)(MachineConfig&);  // null: it takes every configuration
  Make on_virtual_clock;
  Make on_real_clock;             // null: its check refuses the real clock
};

constexpr TransportRow kTransports[] = {
    {vmc::Transport::local, nullptr, make_virtual_clock, make_real_clock},
    {vmc::Transport::mpi, check_mpi_config, make_mpi, nullptr},
    {vmc::Transport::spread, check_spread_config, make_spread, nullptr},
};

const TransportRow& row_of(const MachineConfig& config) {
  for (const TransportRow& row : kTransports) {
    if (row.transport == config.transport) return row;
  }
  throw UsageError("Machine: unknown transport " + to_string(config.transport));
}

}  // namespace

void check_transport(MachineConfig& config) {
  const TransportRow& row = row_of(config);
  if (row.check != nullptr) row.check(config);
  // Failures on purpose stop a node at a virtual time of the local machine's simulation.
  const bool nodes_fail = !config.failures.empty() || config.random_failures;
  if ((nodes_fail || !config.link_failures.empty()) &&
      (config.transport != vmc::Transport::local || config.clock != Clock::virtual_time)) {
    throw UsageError(std::string("Machine: failures (--fail): ") +
                     (nodes_fail ? "nodes" : "links") +
                     " fail on the local transport on the "
                     "virtual clock only (a failure's time is a virtual time of the local "
                     "machine's simulation; failures are not offered on the " +
                     to_string(config.clock) + " clock on the " + to_string(config.transport) +
                     " transport)");
  }
}

std::unique_ptr<Transport> make_transport(MachineImpl& m) {
  const TransportRow& row = row_of(m.config);
  const Make make =
      m.config.clock == Clock::virtual_time ? row.on_virtual_clock : row.on_real_clock;
  if (make == nullptr) {
    throw UsageError("Machine: the " + to_string(m.config.transport) + " transport does not run "
                     "the " + to_string(m.config.clock) + " clock");
  }
  return make(m);
}

}  // namespace vmc::detail
