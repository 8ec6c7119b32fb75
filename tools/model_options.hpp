// Command-line options shared by the subcommands that build a machine: the topology and
// the model (alpha, beta, gamma, port, routing, contention, short-message startup).
#pragma once

#include <memory>
#include <string>

#include <CLI/CLI.hpp>

#include "runtime/model.hpp"
#include "topology/topology.hpp"

namespace vmc::cli {

struct ModelOptions {
  std::string topology = "hypercube:64";
  std::string alpha = "525us";
  std::string beta = "2us";
  std::string gamma = "0.35us";
  std::string port = "exchange";
  std::string routing = "wormhole";
  std::string contention = "exclusive";
  std::string protocol = "eager";
  std::string short_alpha = "0";
  std::size_t short_items = 0;

  // Registers --topology, --alpha, --beta, --gamma, --port, --routing, --contention,
  // --short-alpha and --short-items on cmd.
  void add_to(CLI::App* cmd);
  Model model() const;
  std::shared_ptr<const Topology> parsed_topology() const { return parse_topology(topology); }
};

}  // namespace vmc::cli
