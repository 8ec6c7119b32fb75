// The factory: the transport a machine's configuration chooses (transports.cpp). Internal.
#pragma once

#include <memory>

#include "runtime/machine_impl.hpp"
#include "runtime/transport.hpp"

namespace vmc::detail {

// Before the machine's topology is made: what the chosen transport refuses of `config`
// (UsageError); it may set the node count (the MPI transport: one node per process).
void check_transport(MachineConfig& config);
// The transport MachineConfig (transport, clock) chooses, made for machine m.
std::unique_ptr<Transport> make_transport(MachineImpl& m);

}  // namespace vmc::detail
