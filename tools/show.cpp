#include "tools/show.hpp"

#include <fstream>
#include <stdexcept>

#include "collectives/selection/members.hpp"

#include "tools/algorithm_notes.hpp"
#include "tools/model_options.hpp"
#include "tools/show_layout.hpp"
#include "tools/show_page.hpp"
#include "topology/hypercube.hpp"

namespace vmc::cli {
namespace {

// Per-class link rates (002 §3.3.4): [{"class": "level 1 links", "beta_net_ps": ...}].
nlohmann::json link_rates_json(const Model& m) {
  nlohmann::json rates = nlohmann::json::array();
  for (const LinkRate& r : m.link_rates) {
    rates.push_back({{"class", to_string(r)}, {"beta_net_ps", to_picos(r.beta_net)}});
  }
  return rates;
}

nlohmann::json model_json(const Model& m) {
  CostUnits u(m);
  return {{"alpha_ps", u.alpha},
          {"beta_ps", u.beta},
          {"beta_net_ps", u.beta_net},
          {"gamma_ps", u.gamma},
          {"delta_ps", u.delta},
          {"port", to_string(m.port)},
          {"routing", to_string(m.routing)},
          {"contention", to_string(m.contention)},
          {"protocol", to_string(m.protocol)},
          {"link_rates", link_rates_json(m)},
          {"text", describe(m)}};
}

nlohmann::json network_json(const Topology& t) {
  const PlaneDrawing d = plane_drawing(t);
  nlohmann::json vertices = nlohmann::json::array(), edges = nlohmann::json::array();
  for (const PlanePoint& v : d.vertex) vertices.push_back({v.x, v.y});
  for (const PlaneEdge& e : d.edges) {
    edges.push_back({e.a, e.b, e.dimension, e.bend, e.lifted ? 1 : 0});
  }
  nlohmann::json links = nlohmann::json::array();  // per directed link: [from, to, edge]
  for (LinkId id = 0; id < t.link_count(); ++id) {
    const DirectedLink l = t.link(id);
    links.push_back({l.from, l.to, d.link_edge[id]});
  }
  const auto* cube = dynamic_cast<const Hypercube*>(&t);
  nlohmann::json out = {{"spec", t.spec()},
                        {"family", t.family()},
                        {"p", t.nodes()},
                        {"routing", t.routing()},
                        {"bits", cube != nullptr ? cube->dimension() : 0},
                        {"vertices", vertices},
                        {"edges", edges},
                        {"links", links}};
  if (d.node_width > 0) out["node_box"] = {d.node_width, d.node_height};
  return out;
}

// What each node holds, as the page counts it: "items" (broadcast and scatter: the items
// that have reached it, of `total`) or "contributions" (every other operation: whose inputs
// have reached it, directly or through other nodes).
nlohmann::json holdings_json(const RunSpec& spec, int p) {
  const bool rooted_data = spec.op == Operation::broadcast || spec.op == Operation::scatter ||
                           spec.op == Operation::scatterv;
  if (!rooted_data) return {{"mode", "contributions"}};
  return {{"mode", "items"}, {"root", spec.root}, {"total", spec.n}, {"p", p}};
}

// What every run's page draws: the network, the model, the messages and combines, the time
// and the statistics.
nlohmann::json run_data(const Topology& topology, const Model& model, const RunResult& result) {
  const Trace& trace = result.trace();
  const Stats& s = result.stats();
  nlohmann::json messages = nlohmann::json::array(), combines = nlohmann::json::array();
  for (const MessageEvent& m : trace.messages) {
    messages.push_back({m.src, m.dst, m.request, m.start, m.end, m.waited, m.items,
                        m.contention_delay, m.links});
  }
  for (const CombineEvent& c : trace.combines) {
    combines.push_back({c.node, c.start, c.end, c.items, to_string(c.kind)});
  }
  nlohmann::json failed = nlohmann::json::array();  // nodes that stopped (--fail), and when
  for (const FailureReport::Stopped& f : result.failures().stopped) {
    failed.push_back({f.node, f.at_ps});
  }
  nlohmann::json failed_links = nlohmann::json::array();  // links down (--fail link:), and when
  for (const FailureReport::Link& l : result.failures().links) {
    failed_links.push_back({l.a, l.b, l.at_ps});
  }
  return {{"network", network_json(topology)},
          {"model", model_json(model)},
          {"time_ps", s.time},
          {"stats",
           {{"messages", s.messages},
            {"items", s.items},
            {"combined_items", s.combined_items},
            {"startups", s.critical_startups},
            {"token_wait_ps", s.token_wait},
            {"contention_delay_ps", s.contention_delay},
            {"contention_critical_delay_ps", s.contention_critical_delay},
            {"free_time_ps", s.free_time}}},
          {"messages", messages},
          {"combines", combines},
          {"failed", failed},
          {"failed_links", failed_links}};
}

// The page of `data` ({"runs": [...]}) under `title`.
std::string page(const nlohmann::json& data, const std::string& title) {
  // Inside <script>, "</" could close the element: JSON allows "<\/" for it.
  std::string json = data.dump();
  for (std::size_t at = json.find("</"); at != std::string::npos; at = json.find("</", at)) {
    json.replace(at, 2, "<\\/");
  }
  std::string text = kShowPage;
  const std::string data_mark = "@VMC_DATA@", title_mark = "@VMC_TITLE@";
  text.replace(text.find(title_mark), title_mark.size(), "vmc show: " + title);
  text.replace(text.find(data_mark), data_mark.size(), json);
  return text;
}

}  // namespace

ShowRun run_for_show(std::shared_ptr<const Topology> topology, const Model& model, RunSpec spec,
                     const FailureSpec& failures, FailRoutes fail_routes) {
  plane_drawing(*topology);  // refuses networks too large to draw before anything runs
  check_spec(spec, *topology, model);
  spec.check = true;
  spec.keep_failed_run = true;
  Machine m({.topology = topology,
             .model = model,
             .clock = Clock::virtual_time,
             .trace = true,
             .failures = failures.nodes,
             .random_failures = failures.random,
             .link_failures = failures.links,
             .fail_routes = fail_routes});
  ShowRun run{topology, model, spec, run_collective(m, spec), m.failures()};
  if (run.outcome.correct && !*run.outcome.correct) {
    throw std::runtime_error(to_string(spec.op) + " " + run.outcome.algorithm + " on " +
                             topology->spec() + " gave a wrong result");
  }
  return run;
}

nlohmann::json show_data(const ShowRun& run) {
  nlohmann::json data = run_data(*run.topology, run.model, run.outcome.result);
  RunSpec chosen = run.spec;
  chosen.algorithm = run.outcome.algorithm;
  const Algorithm& row = *find_algorithm(run.spec.op, run.outcome.algorithm);
  const auto [file, note] = algorithm_note(run.spec.op, run.outcome.algorithm);
  const Claim claim =
      claim_of(row, row_query(run.spec.op, row, run_query(*run.topology, run.model, chosen)));
  data.update({{"op", to_string(run.spec.op)},
               {"algorithm", run.outcome.algorithm},
               {"forced", run.spec.algorithm != "auto"},
               {"detail", run.outcome.detail},
               {"description", row.description},
               {"requirements", row.requirements},
               {"file", file.empty() ? "" : "collectives/" + file},
               {"note", note},
               {"claim", to_string(claim)},
               {"n", run.spec.n},
               {"root", run.spec.root},
               {"type", run.spec.type},
               {"reduction", run.spec.reduction},
               {"predicted_ps", run.outcome.predicted},
               {"holdings", holdings_json(run.spec, run.topology->nodes())}});
  return data;
}

std::string show_page(const std::vector<ShowRun>& runs) {
  nlohmann::json data = {{"runs", nlohmann::json::array()}};
  for (const ShowRun& run : runs) data["runs"].push_back(show_data(run));
  std::string title;
  for (const ShowRun& run : runs) {
    title += (title.empty() ? to_string(run.spec.op) + " on " : " and ") + run.topology->spec();
  }
  return page(data, title);
}

std::string show_program_page(const std::string& program, const Topology& topology,
                              const Model& model, const RunResult& result) {
  nlohmann::json run = run_data(topology, model, result);
  run["program"] = program;
  run["holdings"] = {{"mode", "contributions"}};
  const nlohmann::json data = {{"runs", nlohmann::json::array({run})}};
  return page(data, "MPI program " + program + " on " + topology.spec());
}

void write_file(const std::string& path, const std::string& text) {
  std::ofstream f(path, std::ios::binary);
  if (!f) throw std::runtime_error("cannot write \"" + path + "\"");
  f << text;
  if (!f) throw std::runtime_error("error writing \"" + path + "\"");
}

}  // namespace vmc::cli
