// Ring schedules on a mesh (mesh_rings.hpp).
#include "collectives/patterns/mesh_rings.hpp"

#include <algorithm>
#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <utility>

namespace vmc::patterns {

namespace {
int mod(int a, int m) { return ((a % m) + m) % m; }
}  // namespace

int RingPlan::blocks() const { return chunk(phases()); }

int RingPlan::chunk(int t) const {
  int c = 1;
  for (int s = 0; s < t; ++s) c *= digits[s].radix;
  return c;
}

int RingPlan::neighbour(int rank, int t, int delta) const {
  const RingDigit& g = digits[t];
  const int v = value(rank, t);
  return rank + (mod(v + delta, g.radix) - v) * g.spacing * shape.stride(g.dim);
}

int RingPlan::layout_index(int rank) const {
  int index = 0;
  for (int t = phases() - 1; t >= 0; --t) index = index * digits[t].radix + value(rank, t);
  return index;
}

int RingPlan::rank_at(int rank, int index) const {
  for (int t = 0; t < phases(); ++t) {
    rank = neighbour(rank, t, index % digits[t].radix - value(rank, t));
    index /= digits[t].radix;
  }
  return rank;
}

bool RingPlan::identity_layout() const {
  for (int r = 0; r < shape.size(); ++r) {
    if (layout_index(r) != r) return false;
  }
  return true;
}

RingPlan dimensional_rings(const MeshShape& shape, int lo, int hi) {
  RingPlan plan{shape, {}};
  for (int i = lo; i < hi; ++i) plan.digits.push_back({i, shape.lengths[i], 1});
  return plan;
}

RingPlan prime_factor_rings(const MeshShape& shape, RingOrder order) {
  RingPlan plan{shape, {}};
  for (int i = 0; i < shape.dimensions(); ++i) {
    std::vector<int> primes = prime_factors(shape.lengths[i]);
    std::sort(primes.begin(), primes.end(), std::greater<>());  // the largest one closest
    int spacing = 1;
    for (int f : primes) {
      plan.digits.push_back({i, f, spacing});
      spacing *= f;
    }
  }
  if (order == RingOrder::widest_first) {
    std::stable_sort(plan.digits.begin(), plan.digits.end(),
                     [](const RingDigit& a, const RingDigit& b) { return a.spacing > b.spacing; });
  }
  return plan;
}

namespace {

int count_merges(const MeshShape& shape) {
  int h = 0;
  for (int m : shape.lengths) h += std::max(0, static_cast<int>(prime_factors(m).size()) - 1);
  return h;
}

RingPlan make_pfr_dr_rings(const MeshShape& shape, int h);

}  // namespace

std::shared_ptr<const std::vector<RingPlan>> pfr_dr_family(const MeshShape& shape) {
  using Key = std::pair<std::vector<int>, std::vector<bool>>;
  static std::mutex mutex;
  static std::map<Key, std::shared_ptr<const std::vector<RingPlan>>> made;
  Key key{shape.lengths, shape.wraps};
  {
    const std::lock_guard lock(mutex);
    if (auto it = made.find(key); it != made.end()) return it->second;
  }
  auto family = std::make_shared<std::vector<RingPlan>>();
  const int merges = count_merges(shape);
  for (int h = 0; h <= merges; ++h) family->push_back(make_pfr_dr_rings(shape, h));
  const std::lock_guard lock(mutex);
  if (made.size() > 1000) made.clear();  // bounded (the plans handed out stay with their holders)
  return made.emplace(std::move(key), std::move(family)).first->second;
}

int pfr_dr_merges(const MeshShape& shape) {
  return static_cast<int>(pfr_dr_family(shape)->size()) - 1;
}

RingPlan pfr_dr_rings(const MeshShape& shape, int h) {
  const auto family = pfr_dr_family(shape);
  if (h >= 0 && h < static_cast<int>(family->size())) return (*family)[static_cast<std::size_t>(h)];
  return make_pfr_dr_rings(shape, h);
}

namespace {

RingPlan make_pfr_dr_rings(const MeshShape& shape, int h) {
  const int d = shape.dimensions();
  std::vector<int> merges(d, 0);
  int left = h;
  for (int i = d - 1; i >= 0; --i) {
    merges[i] = std::min(left, std::max(0, static_cast<int>(prime_factors(shape.lengths[i]).size()) - 1));
    left -= merges[i];
  }
  // d': every dimension from it up is one ring.
  int single_from = d;
  while (single_from > 0 &&
         merges[single_from - 1] + 1 >=
             static_cast<int>(prime_factors(shape.lengths[single_from - 1]).size())) {
    --single_from;
  }
  RingPlan plan{shape, {}};
  for (int i = 0; i < single_from; ++i) {
    std::vector<int> primes = prime_factors(shape.lengths[i]);
    std::sort(primes.begin(), primes.end(), std::greater<>());  // the largest one closest
    int closest = 1, k = 0;
    for (; k <= merges[i]; ++k) closest *= primes[k];
    plan.digits.push_back({i, closest, 1});
    int spacing = closest;
    for (; k < static_cast<int>(primes.size()); ++k) {
      plan.digits.push_back({i, primes[k], spacing});
      spacing *= primes[k];
    }
  }
  std::stable_sort(plan.digits.begin(), plan.digits.end(),
                   [](const RingDigit& a, const RingDigit& b) { return a.spacing > b.spacing; });
  for (int i = single_from; i < d; ++i) plan.digits.push_back({i, shape.lengths[i], 1});
  return plan;
}

}  // namespace

std::string describe_plan(const RingPlan& plan) {
  std::string out;
  for (const RingDigit& g : plan.digits) {
    if (!out.empty()) out += ' ';
    out += std::to_string(g.radix);
    if (g.spacing > 1) out += "/" + std::to_string(g.spacing);
    out += "@" + std::to_string(g.dim);
  }
  return out.empty() ? "(one node)" : out;
}

RingStep collect_step(const RingPlan& plan, int rank, int t, int k) {
  const int f = plan.digits[t].radix, v = plan.value(rank, t), c = plan.chunk(t);
  // The first block of the ring's chunk 0: the node's layout index with digits <= t zeroed.
  const int ground = plan.layout_index(rank) / (c * f) * (c * f);
  return {plan.neighbour(rank, t, +1), plan.neighbour(rank, t, -1),
          ground + mod(v - k, f) * c, ground + mod(v - k - 1, f) * c, c};
}

RingStep reduce_step(const RingPlan& plan, int rank, int t, int k) {
  return collect_step(plan, rank, t, k + 1);  // the chunks of members v-k-1 and v-k-2
}

ExchangeStep exchange_step(const RingPlan& plan, int rank, int t, int k) {
  const int f = plan.digits[t].radix;
  return {plan.neighbour(rank, t, +1), plan.neighbour(rank, t, -1), f - k,
          mod(plan.value(rank, t) - k, f)};
}

namespace {
// The plan's groups under `a`: [first, end) runs of digits of equal radix and spacing, each
// a group of its own (end = first + 1) where it does not rotate.
struct Group {
  int first = 0, end = 0;
};

// Whether a group before `split` can tell its interleaved rings apart by the digits from
// split on: the rings of a digit interleaved with one ring differ from it in the closer
// digits of its dimension (those after it in the plan), so every one of those must lie from
// split on. Otherwise the group's rings of that dimension would all share a class and stay
// together while those of the others spread: stages whose rings meet unequal sharing.
bool told_apart(const RingPlan& plan, int first, int end, int split) {
  for (int t = first; t < end; ++t) {
    for (int u = end; u < split; ++u) {
      if (plan.digits[u].dim == plan.digits[t].dim) return false;
    }
  }
  return true;
}

std::vector<Group> groups_of(const RingPlan& plan, Alternation a, int split = 0) {
  std::vector<Group> out;
  for (int first = 0; first < plan.phases();) {
    int end = first + 1;
    const RingDigit& g = plan.digits[first];
    const bool rotates =
        a == Alternation::every_group || (a == Alternation::interleaved && g.spacing > 1);
    while (rotates && end < plan.phases() && end != split && plan.digits[end].radix == g.radix &&
           plan.digits[end].spacing == g.spacing) {
      ++end;
    }
    if (end <= split && !told_apart(plan, first, end, split)) end = first + 1;
    out.push_back({first, end});
    first = end;
  }
  return out;
}

// The class of a node in group `g` (its rotation): the sum of its digit values outside the
// group, mod the group's size; `values` holds the node's value of every digit and `total`
// their sum.
int class_of(const Group& g, const std::vector<int>& values, int total) {
  for (int t = g.first; t < g.end; ++t) total -= values[t];
  return total % (g.end - g.first);
}

std::vector<int> values_of(const RingPlan& plan, int rank) {
  std::vector<int> v(plan.phases());
  for (int t = 0; t < plan.phases(); ++t) v[t] = plan.value(rank, t);
  return v;
}
}  // namespace

std::vector<int> stage_order(const RingPlan& plan, int rank, Alternation a, int split) {
  std::vector<int> order(plan.phases());
  for (int t = 0; t < plan.phases(); ++t) order[t] = t;
  if (!alternates(plan, a, split)) return order;
  std::vector<int> values = values_of(plan, rank);
  std::fill(values.begin(), values.begin() + split, 0);  // classes count digits split on
  int total = 0;
  for (int v : values) total += v;
  for (const Group& g : groups_of(plan, a, split)) {
    const int size = g.end - g.first, c = class_of(g, values, total);
    for (int s = 0; s < size; ++s) order[g.first + s] = g.first + (s + c) % size;
  }
  return order;
}

bool alternates(const RingPlan& plan, Alternation a, int split) {
  for (const Group& g : groups_of(plan, a, split)) {
    if (g.end - g.first > 1) return true;
  }
  return false;
}

RingPlan staged_plan(const RingPlan& plan, int rank, Alternation a) {
  RingPlan out{plan.shape, {}};
  for (int t : stage_order(plan, rank, a)) out.digits.push_back(plan.digits[t]);
  return out;
}

std::vector<int> staged_owners(const RingPlan& plan, int rank, Alternation a) {
  const int blocks = plan.blocks();
  std::vector<int> owners(blocks);
  const std::vector<Group> groups = groups_of(plan, a);
  const std::vector<int> own = values_of(plan, rank);
  int own_total = 0;
  for (int v : own) own_total += v;
  std::vector<int> chunk(plan.phases());
  for (int t = 0; t < plan.phases(); ++t) chunk[t] = plan.chunk(t);
  std::vector<int> values;
  for (int x = 0; x < blocks; ++x) {
    // Place x of the staged layout has the value x_s of the digit the rank runs at stage s
    // (mixed radix; a stage's radix is the plan's digit s's, a rotation keeps radices). Its
    // block came, at the rank's last stage, from the ring member whose value of that digit
    // is x_last, which held it at place x mod chunk(last) of its own layout; so on down the
    // stages. Going down, a group's member is the rank with the later groups' digits set
    // from x already, the earlier ones still the rank's: that fixes its class there.
    values = own;
    int total = own_total;
    for (auto g = groups.rbegin(); g != groups.rend(); ++g) {
      const int size = g->end - g->first, c = class_of(*g, values, total);
      for (int s = 0; s < size; ++s) {
        const int stage = g->first + s, t = g->first + (s + c) % size;
        const int v = x / chunk[stage] % plan.digits[stage].radix;
        total += v - values[t];
        values[t] = v;
      }
    }
    int index = 0;
    for (int t = plan.phases() - 1; t >= 0; --t) index = index * plan.digits[t].radix + values[t];
    owners[x] = plan.rank_at(rank, index);
  }
  return owners;
}

std::vector<StageLinks> stage_links(const RingPlan& plan, const Topology& topology,
                                    Alternation a, int split) {
  const int p = plan.shape.size();
  std::vector<std::vector<int>> orders(p);
  for (int r = 0; r < p; ++r) orders[r] = stage_order(plan, r, a, split);
  std::vector<StageLinks> out(plan.phases());
  std::vector<std::vector<LinkId>> routes(p);  // each rank's vector kept from stage to stage
  std::vector<int> load(topology.link_count());
  for (int s = 0; s < plan.phases(); ++s) {
    std::fill(load.begin(), load.end(), 0);
    for (int r = 0; r < p; ++r) {
      routes[r].clear();
      topology.route(r, plan.neighbour(r, orders[r][s], +1), routes[r]);
      for (LinkId l : routes[r]) ++load[l];
    }
    int first = -1;
    for (int r = 0; r < p; ++r) {
      int most = 1;
      for (LinkId l : routes[r]) most = std::max(most, load[l]);
      out[s].sharers = std::max(out[s].sharers, most);
      if (first < 0) first = most;
      out[s].uniform = out[s].uniform && most == first;
    }
  }
  return out;
}

int shift_destination(const MeshShape& shape, int rank, int k) {
  std::vector<int> x = shape.coordinates(rank);
  for (int i = 0; i < shape.dimensions(); ++i) {
    x[i] = mod(x[i] + shape.coordinate(k, i), shape.lengths[i]);
  }
  return shape.rank_at(x);
}

int shift_source(const MeshShape& shape, int rank, int k) {
  std::vector<int> x = shape.coordinates(rank);
  for (int i = 0; i < shape.dimensions(); ++i) {
    x[i] = mod(x[i] - shape.coordinate(k, i), shape.lengths[i]);
  }
  return shape.rank_at(x);
}

int shift_sharers(const MeshShape& shape, int k) {
  int most = 1;
  for (int i = 0; i < shape.dimensions(); ++i) {
    const int ki = shape.coordinate(k, i), m = shape.lengths[i];
    if (ki != 0) most = std::max(most, std::min(ki, m - ki));
  }
  return most;
}

}  // namespace vmc::patterns
