// Queries: how a call's query is built and the key it is remembered under (query.hpp).
#include "collectives/vocabulary/query.hpp"

#include <charconv>

namespace vmc {

CostQuery make_query(const Topology& topology, const Model& model, int p, std::size_t n,
                     int root, std::size_t item_size, bool commutative, const Options& options) {
  CostQuery q;
  q.topology = &topology;
  // Selection and the cost formulas see the steady machine: skew, slow nodes and noise
  // delay a run, they are not what an algorithm costs (docs/model.md).
  q.model = steady(model);
  q.units = CostUnits(model);
  q.p = p;
  q.n = n;
  q.root = root;
  q.item_size = item_size;
  q.commutative = commutative;
  q.options = options;
  return q;
}

CostQuery make_query(const Comm& comm, std::size_t n, int root, std::size_t item_size,
                     const Op* op, bool in_place, const Options& options) {
  // Built on every call of a collective, so the steady model and its units are the comm's,
  // made once per machine: the same values the query above derives from comm.model() (the
  // machine's units are CostUnits of its model; a weighted comm's are its charges' own,
  // exact). Built in place: a default Options and then a copy would make its text twice.
  CostQuery q{.topology = &comm.topology(),
              .model = comm.steady_model(),
              .units = comm.units(),
              .p = comm.size(),
              .n = n,
              .root = root,
              .item_size = item_size,
              .commutative = op == nullptr || op->commutative(),
              .in_place = in_place,
              .options = options};
  if (!comm.whole_machine()) {
    q.members = comm.members();
    q.members_hash = comm.members_hash();
  }
  return q;
}

std::string query_key(Operation op, const CostQuery& q) {
  // Built on every call of a collective: one buffer, numbers written in place (no
  // temporaries), since a short collective costs a few microseconds in all.
  std::string key;
  key.reserve(160);
  auto num = [&key](auto v, char then) {
    char buf[24];
    const auto end = std::to_chars(buf, buf + sizeof buf, v).ptr;
    key.append(buf, end);
    key += then;
  };
  key += to_string(op);
  key += '|';
  num(q.p, '|');
  num(q.n, '|');
  num(q.root, '|');
  num(q.item_size, '|');
  key += q.commutative ? 'c' : 'n';
  key += q.in_place ? 'i' : 'o';
  key += '|';
  key += q.topology != nullptr ? q.topology->spec() : std::string("-");
  key += '|';
  num(q.units.alpha, ',');
  num(q.units.beta, ',');
  num(q.units.beta_net, ',');
  num(q.units.gamma, ',');
  num(q.units.delta, ',');
  num(q.units.short_alpha, ',');
  num(q.units.short_max_items, '|');
  // Per-class link rates (002 §3.3.4): a choice made for other link rates is not reused.
  for (const LinkRate& r : q.model.link_rates) {
    key += r.kind == LinkRate::Kind::dimension ? 'd' : "tud"[static_cast<int>(r.direction)];
    num(r.index, '=');
    num(to_picos(r.beta_net), ',');
  }
  key += '|';
  key += to_string(q.model.port);
  key += to_string(q.model.routing);
  key += to_string(q.model.contention);
  key += to_string(q.model.protocol);
  key += to_string(q.model.worm);
  key += '|';
  num(q.options.segment_items, '|');
  for (int s : q.options.strategy) key += char('0' + s);
  key += '|';
  key += std::to_string(q.options.hybrid);
  key += q.options.dopl_steps == DoplSteps::synchronized ? 's' : 'o';
  key += '|';
  // The whole counts vector, and the group's members: every member's key is the same.
  // Long vectors go in as a hash (FNV-1a), so the remembered keys stay small at p = 4096.
  if (q.counts.size() <= 16) {
    for (std::size_t c : q.counts) num(c, ',');
  } else {
    num(q.counts.size(), '#');
    num(hash_integers(std::span<const std::size_t>(q.counts)), ',');
  }
  key += '|';
  if (!q.members.empty()) {
    num(q.members.size(), '#');
    num(q.members_hash != 0 ? q.members_hash : hash_members(q.members), ',');
  }
  return key;
}

bool whole_machine(const CostQuery& q) {
  return q.topology != nullptr && q.topology->nodes() == q.p && q.members.empty();
}

}  // namespace vmc
