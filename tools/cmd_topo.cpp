// vmc topo SPEC [--json] [--route A B] [--draw | --no-draw]: a network's properties
// (001 "Static interconnection networks"), the route a message takes between two nodes,
// and an ASCII drawing of small networks. Errors are thrown; vmc_main prints them.
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "tools/commands.hpp"
#include "tools/model_options.hpp"
#include "topology/draw.hpp"
#include "topology/topology.hpp"

namespace vmc::cli {

namespace {

struct TopoOptions {
  std::string spec;
  bool json = false;
  std::vector<int> route;  // A B
  bool draw = false;
  bool no_draw = false;
};

// Vertex label in a route: switches (tree) in brackets, as in the drawing.
std::string vertex_label(const Topology& t, int v) {
  std::string label = std::to_string(v);
  if (v >= t.nodes()) label.insert(0, 1, '[').push_back(']');
  return label;
}

nlohmann::ordered_json optional_json(const std::optional<int>& value) {
  return value ? nlohmann::ordered_json(*value) : nlohmann::ordered_json(nullptr);
}

std::string optional_text(const std::optional<int>& value) {
  return value ? std::to_string(*value) : "unknown (no exact value known for this size)";
}

nlohmann::ordered_json properties_json(const Topology& t) {
  const TopologyProperties props = t.properties();
  return {{"spec", t.spec()},
          {"family", t.family()},
          {"nodes", props.nodes},
          {"switches", props.switches},
          {"links", props.links},
          {"directed_links", t.link_count()},
          {"degree_min", props.degree_min},
          {"degree_max", props.degree_max},
          {"diameter", optional_json(props.diameter)},
          {"connectivity", optional_json(props.connectivity)},
          {"bisection_width", optional_json(props.bisection_width)},
          {"routing", t.routing()}};
}

std::string properties_text(const Topology& t) {
  const TopologyProperties props = t.properties();
  std::ostringstream out;
  const std::string degree = props.degree_min == props.degree_max
                                 ? std::to_string(props.degree_min)
                                 : std::to_string(props.degree_min) + ".." +
                                       std::to_string(props.degree_max);
  out << t.spec() << "\n"
      << "  nodes            " << props.nodes << "\n"
      << "  switches         " << props.switches << "\n"
      << "  links            " << props.links << " (" << t.link_count() << " directed)\n"
      << "  degree           " << degree << "\n"
      << "  diameter         " << optional_text(props.diameter) << "\n"
      << "  connectivity     " << optional_text(props.connectivity) << "\n"
      << "  bisection width  " << optional_text(props.bisection_width) << "\n"
      << "  routing          " << t.routing() << "\n";
  return out.str();
}

void check_route_node(const Topology& t, int v) {
  if (v < 0 || v >= t.nodes())
    throw std::out_of_range("--route: node " + std::to_string(v) + " out of range: " +
                            t.spec() + " has nodes 0.." + std::to_string(t.nodes() - 1));
}

void print_route(const Topology& t, int a, int b, bool json, std::ostream& out) {
  check_route_node(t, a);
  check_route_node(t, b);
  const std::vector<LinkId> links = t.route(a, b);
  if (json) {
    nlohmann::ordered_json hops = nlohmann::ordered_json::array();
    for (LinkId id : links) {
      const DirectedLink hop = t.link(id);
      hops.push_back({{"from", hop.from}, {"to", hop.to}, {"link", id}});
    }
    out << hops.dump(2) << "\n";
    return;
  }
  out << "route " << a << " -> " << b << " on " << t.spec() << ": " << links.size()
      << (links.size() == 1 ? " hop" : " hops") << "\n"
      << "routing: " << t.routing() << "\n";
  for (LinkId id : links) {
    const DirectedLink hop = t.link(id);
    out << "  " << vertex_label(t, hop.from) << " -> " << vertex_label(t, hop.to) << "  (link "
        << id << ")\n";
  }
}

void run_topo(const TopoOptions& options, std::ostream& out) {
  if (options.draw && options.no_draw) {
    throw std::invalid_argument("--draw, --no-draw: give one, not both");
  }
  const auto topology = parse_topology(options.spec);
  const Topology& t = *topology;
  const bool routing = !options.route.empty();
  std::optional<std::string> drawing;
  if (options.draw || (!routing && !options.json && !options.no_draw)) drawing = draw_ascii(t);
  if (options.draw && !drawing)
    throw std::invalid_argument("--draw: no drawing for " + t.spec() + ": vmc draws " +
                                drawable_networks());
  if (routing) {
    print_route(t, options.route[0], options.route[1], options.json, out);
    if (options.draw) out << "\n" << *drawing;
    return;
  }
  if (options.json) {
    nlohmann::ordered_json props = properties_json(t);
    if (drawing) props["drawing"] = *drawing;
    out << props.dump(2) << "\n";
    return;
  }
  out << properties_text(t);
  if (drawing) out << "\n" << *drawing;
}

}  // namespace

void add_topo_command(CLI::App& app) {
  auto options = std::make_shared<TopoOptions>();
  CLI::App* cmd = app.add_subcommand(
      "topo", "Show a network's properties, the route between two nodes, or a drawing");
  cmd->add_option("spec", options->spec,
                  "the network: full:P, ring:P, array:P, mesh:AxB[x...] (a length ending in w "
                  "wraps), torus:AxB[x...], hypercube:P, tree:P")
      ->required()
      ->check(network_check());
  cmd->add_flag("--json", options->json, "print JSON instead of text");
  cmd->add_option("--route", options->route, "print the route from node A to node B hop by hop")
      ->expected(2)
      ->type_name("A B");
  cmd->add_flag("--draw", options->draw,
                "draw the network (the default after the properties when it is small)");
  cmd->add_flag("--no-draw", options->no_draw, "do not draw the network");
  cmd->callback([options] { run_topo(*options, std::cout); });
}

}  // namespace vmc::cli
