#include "tools/model_options.hpp"

namespace vmc::cli {

void ModelOptions::add_to(CLI::App* cmd) {
  cmd->add_option("--topology", topology, "interconnect, e.g. hypercube:64, mesh:8x8, ring:12")
      ->capture_default_str();
  cmd->add_option("--alpha", alpha, "startup per message, e.g. 525us")->capture_default_str();
  cmd->add_option("--beta", beta, "time per item transferred, e.g. 2us")->capture_default_str();
  cmd->add_option("--gamma", gamma, "time per item combined, e.g. 0.35us")->capture_default_str();
  cmd->add_option("--port", port, "port model: exchange, duplex, half or all")
      ->capture_default_str();
  cmd->add_option("--routing", routing, "direct, wormhole or store_and_forward")
      ->capture_default_str();
  cmd->add_option("--contention", contention, "exclusive or shared")->capture_default_str();
  cmd->add_option("--protocol", protocol,
                  "eager (a send may start before its receive is posted) or rendezvous "
                  "(only after: no overlap with the receiver's work, 000 §2)")
      ->capture_default_str();
  cmd->add_option("--short-alpha", short_alpha,
                  "startup of short messages (000 §6), with --short-items");
  cmd->add_option("--short-items", short_items,
                  "messages of at most this many items start up in --short-alpha");
}

Model ModelOptions::model() const {
  Model m;
  m.alpha = parse_duration(alpha);
  m.beta = parse_duration(beta);
  m.gamma = parse_duration(gamma);
  m.port = parse_port(port);
  m.routing = parse_routing(routing);
  m.contention = parse_contention(contention);
  m.protocol = parse_protocol(protocol);
  m.short_alpha = parse_duration(short_alpha);
  m.short_max_items = short_items;
  return m;
}

}  // namespace vmc::cli
