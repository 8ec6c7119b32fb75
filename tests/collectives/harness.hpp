// Shared helpers of the collective tests: machines for a topology and model, the cost query
// of a run, the p values a sweep visits, deterministic per-rank data, non-commutative test
// ops, the sequential reference and receive buffers poisoned before the call and guarded by
// canary items (both from collectives/reference/), failures collected from the node threads,
// and a way to catch a failed run's message.
//
//   auto m = vmc::testing::machine("full:12", vmc::testing::model(vmc::Port::duplex));
//   vmc::testing::Guarded<int> out(n);            // poisoned, 4 canary items each side
//   m->run([&](vmc::Node& node) { ...; EXPECT_TRUE(out.canaries_intact()); });
#pragma once

#include <cstdlib>

#include <gtest/gtest.h>

#include <array>
#include <cstdint>
#include <cstring>
#include <functional>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <vector>

#include "collectives/op.hpp"
#include "collectives/reference/guarded.hpp"
#include "collectives/reference/reference.hpp"
#include "collectives/registry.hpp"
#include "collectives/testing.hpp"
#include "runtime/errors.hpp"
#include "runtime/machine.hpp"
#include "tests/sanitized.hpp"
#include "topology/topology.hpp"

namespace vmc::testing {

// A model with round, distinct costs (picoseconds stay exact): alpha 5 us, beta 7 ns,
// gamma 3 ns by default.
inline Model model(Port port = Port::exchange, Routing routing = Routing::direct,
                   double alpha = 5e-6, double beta = 7e-9, double gamma = 3e-9) {
  Model m;
  m.alpha = alpha;
  m.beta = beta;
  m.gamma = gamma;
  m.port = port;
  m.routing = routing;
  return m;
}

// data = Data::none: a timing-only machine (times only; timing_only_test holds them equal
// to the runs with data).
inline std::unique_ptr<Machine> machine(const std::string& topology, const Model& m = model(),
                                        Data data = Data::full) {
  MachineConfig config;
  config.topology = parse_topology(topology);
  config.model = m;
  config.data = data;
  config.trace = false;
  config.watchdog_seconds = 60;
  return std::make_unique<Machine>(config);
}
// p fully connected nodes.
inline std::unique_ptr<Machine> machine(int p, const Model& m = model()) {
  return machine("full:" + std::to_string(p), m);
}

// The cost query a collective on the whole machine builds.
inline CostQuery query_for(const Machine& m, std::size_t n, int root, std::size_t item_size,
                           bool commutative = true) {
  CostQuery q;
  q.topology = &m.topology();
  q.model = m.config().model;
  q.units = CostUnits(q.model);
  q.p = m.size();
  q.n = n;
  q.root = root;
  q.item_size = item_size;
  q.commutative = commutative;
  return q;
}

// The options that force `algorithm`.
inline Options with(const std::string& algorithm) {
  Options o;
  o.algorithm = algorithm;
  return o;
}

// The node counts a sweep visits: 1..33 and 48, 63, 64 (fewer under a sanitizer, below).
// VMC_FULL_SWEEP=1 widens the sweeps: every p in 1..64 and every root up to p = 24 (about
// four times the default run; see docs/development.md).
inline bool full_sweep() {
  const char* env = std::getenv("VMC_FULL_SWEEP");
  return env != nullptr && env[0] != '\0' && env[0] != '0';
}

// Under a sanitizer (tests/sanitized.hpp) the sweeps visit fewer node counts and roots
// (every kind of p all the same: 1, 2, odd, prime, powers of two and their neighbours).
// VMC_FULL_SWEEP=1 still widens them.
inline std::vector<int> sweep_sizes() {
  if (kSanitized && !full_sweep()) {
    return {1, 2, 3, 4, 5, 6, 7, 8, 9, 12, 13, 16, 17, 31, 32, 33, 64};
  }
  std::vector<int> ps;
  const int last = full_sweep() ? 64 : 33;
  for (int p = 1; p <= last; ++p) ps.push_back(p);
  if (!full_sweep()) {
    for (int p : {48, 63, 64}) ps.push_back(p);
  }
  return ps;
}

// Lengths a sweep visits for p nodes: 0, 1, p-1, p+1, 1000 (deduplicated, in order).
inline std::vector<std::size_t> sweep_lengths(int p) {
  std::vector<std::size_t> ns;
  for (std::size_t n : {std::size_t{0}, std::size_t{1}, std::size_t(p - 1), std::size_t(p + 1),
                        std::size_t{1000}}) {
    bool seen = false;
    for (std::size_t m : ns) seen = seen || m == n;
    if (!seen) ns.push_back(n);
  }
  return ns;
}

// Roots a sweep visits: every root for p <= 12 (5 under a sanitizer), else 0, 1, p/2, p-1.
inline std::vector<int> sweep_roots(int p) {
  std::vector<int> roots;
  if (p <= (full_sweep() ? 24 : kSanitized ? 5 : 12)) {
    for (int r = 0; r < p; ++r) roots.push_back(r);
  } else {
    roots = {0, 1, p / 2, p - 1};
  }
  return roots;
}

// --- test item types and ops -------------------------------------------------------------------

// A 3x3 matrix of unsigned 32-bit integers; the product (wrapping) is associative and not
// commutative, so a result in the wrong order is detected (the public harness's item).
using Mat3 = harness::Mat3;
inline Op matmul() {
  return ops::custom<Mat3>("matmul", false, [](const Mat3& a, const Mat3& b) { return a * b; });
}

// An interval of ranks [lo, hi]; a op b is defined only when b starts right after a ends,
// so the result of a reduction is [first, last] exactly when the operands came in rank
// order, each once. A broken order gives lo = -1 from then on.
struct Span {
  std::int32_t lo = 0, hi = 0;
  bool operator==(const Span&) const = default;
};
inline Op order_recorder() {
  return ops::custom<Span>("order", false, [](const Span& a, const Span& b) {
    if (a.lo < 0 || b.lo < 0 || a.hi + 1 != b.lo) return Span{-1, -1};
    return Span{a.lo, b.hi};
  });
}

// Deterministic per-rank values.
template <class T>
T value(int rank, std::size_t i, std::uint64_t seed = 1) {
  std::uint64_t x = (seed * 0x9E3779B97F4A7C15ull) ^ (rank * 0xBF58476D1CE4E5B9ull) ^
                    (i * 0x94D049BB133111EBull);
  x ^= x >> 31;
  x *= 0xD6E8FEB86659FD93ull;
  x ^= x >> 29;
  if constexpr (std::is_same_v<T, Mat3>) {
    Mat3 a;
    for (int k = 0; k < 9; ++k) a.m[k] = static_cast<std::uint32_t>((x >> (k * 5)) & 7);
    return a;
  } else if constexpr (std::is_same_v<T, Span>) {
    return Span{rank, rank};
  } else if constexpr (std::is_floating_point_v<T>) {
    return static_cast<T>(static_cast<int>(x % 2001) - 1000) / T(8);  // exact in binary
  } else {
    return static_cast<T>(x % 1000);
  }
}

// An item that names its origin: which rank made it and which item it is (distinct for
// every rank and index, so a block from the wrong rank or place never passes).
inline std::int64_t stamp(int rank, std::size_t index) {
  return std::int64_t(rank) * 1000003 + std::int64_t(index) * 7 + 1;
}

template <class T>
std::vector<T> values(int rank, std::size_t n, std::uint64_t seed = 1) {
  std::vector<T> v(n);
  for (std::size_t i = 0; i < n; ++i) v[i] = value<T>(rank, i, seed);
  return v;
}

// --- expected results and guarded buffers (collectives/reference/) ---------------------------

// Result buffers poisoned before the call, with canary items on both sides:
//   Guarded<T> out(n); ... out.span() to the call ...; out.canaries_intact(), out.items().
using reference::Guarded;

// The sequential reference of a call whose rank r holds item(r, i) at index i of its input
// (its send buffer as the regular form takes it): ref.expected(r, before) is rank r's buffer
// after the call. shape.item_size is set to sizeof(T); op: combining operations only.
template <class T, class Item>
reference::Reference reference_of(reference::Shape shape, const Op* op, Item item) {
  shape.item_size = sizeof(T);
  return reference::Reference(
      std::move(shape), op, [item](int r, std::size_t first, std::size_t count, unsigned char* out) {
        for (std::size_t k = 0; k < count; ++k) {
          const T x = item(r, first + k);
          std::memcpy(out + k * sizeof(T), &x, sizeof(T));
        }
      });
}

// Rank r's buffer after the call as a vector, from what it held before (by default a
// Guarded buffer's poison, of the size the call writes).
template <class T>
std::vector<T> expected_items(reference::Reference& ref, int r) {
  const reference::Bytes want = ref.expected(
      r, reference::Bytes(ref.result_items(r) * sizeof(T), reference::kPoison));
  std::vector<T> v(want.size() / sizeof(T));
  if (!v.empty()) std::memcpy(v.data(), want.data(), want.size());
  return v;
}

// "" when rank r's Guarded buffer (poisoned before the call) holds what the reference says
// and its canaries are intact; else what is wrong, naming the first wrong item.
template <class T>
std::string result_error(reference::Reference& ref, int r, const Guarded<T>& got) {
  if (!got.canaries_intact()) return "rank " + std::to_string(r) + ": canary overwritten";
  const reference::Bytes before(got.buffer().items() * sizeof(T), reference::kPoison);
  const reference::Bytes want = ref.expected(r, before), have = got.buffer().bytes();
  if (want.size() != have.size()) {
    return "rank " + std::to_string(r) + ": the reference has " +
           std::to_string(want.size() / sizeof(T)) + " items, the buffer " +
           std::to_string(have.size() / sizeof(T));
  }
  for (std::size_t i = 0; i < want.size() / sizeof(T); ++i) {
    if (std::memcmp(want.data() + i * sizeof(T), have.data() + i * sizeof(T), sizeof(T)) != 0) {
      return "rank " + std::to_string(r) + ": wrong item " + std::to_string(i);
    }
  }
  return "";
}

template <class T>
bool bitwise_equal(const std::vector<T>& a, const std::vector<T>& b) {
  return a.size() == b.size() &&
         (a.empty() || std::memcmp(a.data(), b.data(), a.size() * sizeof(T)) == 0);
}

// --- failed runs ----------------------------------------------------------------------------

// Collects failures from the node threads (gtest assertions are not thread-safe to mix).
struct Failures {
  std::mutex mu;
  std::vector<std::string> list;
  void add(std::string s) {
    std::lock_guard<std::mutex> g(mu);
    if (list.size() < 5) list.push_back(std::move(s));
  }
  std::string text() const {
    std::string s;
    for (const auto& x : list) s += x + "\n";
    return s;
  }
  bool empty() const { return list.empty(); }
};

// Runs fn and returns the RunError message, or "" if the run succeeded.
inline std::string run_error(Machine& m, const std::function<void(Node&)>& fn) {
  try {
    m.run(fn);
  } catch (const RunError& e) {
    return e.what();
  }
  return "";
}

// Expects fn to end the run with an error whose message names the node ("node ") and
// contains each of `words`; `what` says which bad input it was.
inline void expect_error_naming_node(Machine& m, const std::function<void(Node&)>& fn,
                                     const std::string& what,
                                     const std::vector<std::string>& words = {}) {
  const std::string e = run_error(m, fn);
  EXPECT_NE(e, "") << "no error for " << what;
  EXPECT_NE(e.find("node "), std::string::npos) << what << ": " << e;
  for (const std::string& w : words) EXPECT_NE(e.find(w), std::string::npos) << what << ": " << e;
}

// The registry names of an operation's algorithms.
inline std::vector<std::string> algorithm_names(Operation op) {
  std::vector<std::string> names;
  for (const Algorithm& a : algorithms(op)) names.push_back(a.name);
  return names;
}

// The options a test passes to force `alg` on p nodes: the hybrid with a given strategy
// gets one that alternates halving and whole-vector steps (S_0 = 1, S_1 = 0, ...).
inline std::vector<int> test_strategy(const std::string& alg, int p) {
  if (alg != "hybrid") return {};
  int d = 0;
  while ((2 << d) <= p) ++d;
  std::vector<int> s(d);
  for (int i = 0; i < d; ++i) s[i] = (i + 1) % 2;
  return s;
}

// The member a test runs of one of 004's hybrid families when it forces the family's member
// row (mesh_pfr_dr, mesh_pfr_pfr_dc, mesh_mst_sc, mesh_mst_dg): the middle one, between the
// pure short-vector member 0 and the pure long-vector last one; -1 for any other row.
inline int test_hybrid(Operation op, const std::string& alg, const CostQuery& q) {
  for (const Algorithm& row : algorithms(op)) {
    if (row.member_row == alg && row.members != nullptr) {
      return static_cast<int>(row.members(q).size()) / 2;
    }
  }
  return -1;
}

// Whether the registry says `alg` applies to p nodes and an op of this commutativity.
inline bool applies(Operation op, const std::string& alg, int p, bool commutative) {
  const Algorithm* a = find_algorithm(op, alg);
  CostQuery q;
  q.p = p;
  q.commutative = commutative;
  q.options.algorithm = alg;
  q.options.strategy = test_strategy(alg, p);
  return a != nullptr && a->applicable(q);
}

// Whether `a` applies to every comm size 1..p with an op of this commutativity (sub-group
// sweeps, whose groups have many sizes; the all-port rows need powers of two).
inline bool applies_to_every_size(Operation op, const std::string& alg, int p, bool commutative) {
  for (int s = 1; s <= p; ++s) {
    if (!applies(op, alg, s, commutative)) return false;
  }
  return true;
}

// Sub-groups of a p-node comm a sweep runs on: {name, color, key} for a node of rank r.
struct SubGroup {
  std::string name;
  std::function<int(int r, int p)> color;
  std::function<int(int r, int p)> key;
};
inline std::vector<SubGroup> sub_groups() {
  auto same = [](int r, int) { return r; };
  std::vector<SubGroup> g = {
      {"reversed", [](int, int) { return 0; }, [](int r, int) { return -r; }},
      {"even", [](int r, int) { return r % 2 == 0 ? 0 : -1; }, same},
      {"halves", [](int r, int p) { return r < p / 2 ? 0 : 1; }, same},
  };
  for (int k = 1; k <= 4; ++k) {
    g.push_back({"drop" + std::to_string(k), [k](int r, int p) { return r < p - k ? 0 : -1; },
                 same});
  }
  return g;
}

// Sub-groups every node joins (no node left out, for tests that check every node): the
// reversed whole, even and odd ranks, and the lower and upper halves.
inline std::vector<SubGroup> covering_sub_groups() {
  const std::vector<SubGroup> g = sub_groups();
  return {g[0], {"parity", [](int r, int) { return r % 2; }, g[2].key}, g[2]};
}

// The comm of node's sub-group g of its world.
inline Comm split(const Node& node, const SubGroup& g) {
  return node.world().split(g.color(node.rank(), node.size()), g.key(node.rank(), node.size()));
}

}  // namespace vmc::testing
