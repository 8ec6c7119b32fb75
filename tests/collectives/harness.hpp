// Shared helpers of the collective tests: machines for a topology and model, the p values a
// sweep visits, deterministic per-rank data, receive buffers poisoned before the call and
// guarded by canary items after it, non-commutative test ops, sequential references, and
// a way to catch a failed run's message.
//
//   auto m = vmc::testing::machine("full:12", vmc::testing::model(vmc::Port::duplex));
//   vmc::testing::Guarded<int> out(n);            // poisoned, 4 canary items behind
//   m->run([&](vmc::Node& node) { ...; EXPECT_TRUE(out.canaries_intact()); });
#pragma once

#include <gtest/gtest.h>

#include <array>
#include <cstdint>
#include <cstring>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "collectives/op.hpp"
#include "collectives/registry.hpp"
#include "runtime/errors.hpp"
#include "runtime/machine.hpp"
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

inline std::unique_ptr<Machine> machine(const std::string& topology, const Model& m = model()) {
  MachineConfig config;
  config.topology = parse_topology(topology);
  config.model = m;
  config.trace = false;
  config.watchdog_seconds = 60;
  return std::make_unique<Machine>(config);
}

// The node counts a sweep visits: 1..33 and 48, 63, 64.
inline std::vector<int> sweep_sizes() {
  std::vector<int> ps;
  for (int p = 1; p <= 33; ++p) ps.push_back(p);
  for (int p : {48, 63, 64}) ps.push_back(p);
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

// Roots a sweep visits: every root for p <= 12, else 0, 1, p/2, p-1.
inline std::vector<int> sweep_roots(int p) {
  std::vector<int> roots;
  if (p <= 12) {
    for (int r = 0; r < p; ++r) roots.push_back(r);
  } else {
    roots = {0, 1, p / 2, p - 1};
  }
  return roots;
}

// --- test item types and ops -------------------------------------------------------------------

// A 3x3 matrix of unsigned 32-bit integers; the product (wrapping) is associative and not
// commutative, so a result in the wrong order is detected.
struct Mat3 {
  std::array<std::uint32_t, 9> m{};
  bool operator==(const Mat3&) const = default;
};
inline Mat3 operator*(const Mat3& a, const Mat3& b) {
  Mat3 c;
  for (int i = 0; i < 3; ++i) {
    for (int j = 0; j < 3; ++j) {
      std::uint32_t s = 0;
      for (int k = 0; k < 3; ++k) s += a.m[i * 3 + k] * b.m[k * 3 + j];
      c.m[i * 3 + j] = s;
    }
  }
  return c;
}
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

template <class T>
std::vector<T> values(int rank, std::size_t n, std::uint64_t seed = 1) {
  std::vector<T> v(n);
  for (std::size_t i = 0; i < n; ++i) v[i] = value<T>(rank, i, seed);
  return v;
}

// Sequential reference: fold of ranks [first, last] item by item, in rank order.
template <class T>
std::vector<T> reference(const Op& op, const std::vector<std::vector<T>>& inputs, int first,
                         int last) {
  std::vector<T> acc = inputs.at(first);
  for (int r = first + 1; r <= last; ++r) op.apply(acc.data(), inputs[r].data(), acc.data(), acc.size());
  return acc;
}

// --- guarded receive buffers ------------------------------------------------------------------

constexpr unsigned char kPoison = 0xA5;
constexpr std::size_t kCanaryItems = 4;

// n items poisoned before the call, followed by kCanaryItems canary items.
template <class T>
class Guarded {
 public:
  explicit Guarded(std::size_t n) : n_(n), storage_(n + kCanaryItems) {
    std::memset(static_cast<void*>(storage_.data()), kPoison, storage_.size() * sizeof(T));
  }
  std::span<T> span() { return std::span<T>(storage_.data(), n_); }
  std::vector<T> items() const { return std::vector<T>(storage_.begin(), storage_.begin() + n_); }
  const T* data() const { return storage_.data(); }
  bool canaries_intact() const {
    const auto* bytes = reinterpret_cast<const unsigned char*>(storage_.data() + n_);
    for (std::size_t i = 0; i < kCanaryItems * sizeof(T); ++i) {
      if (bytes[i] != kPoison) return false;
    }
    return true;
  }
  bool untouched() const {  // every item still poisoned
    const auto* bytes = reinterpret_cast<const unsigned char*>(storage_.data());
    for (std::size_t i = 0; i < n_ * sizeof(T); ++i) {
      if (bytes[i] != kPoison) return false;
    }
    return true;
  }

 private:
  std::size_t n_;
  std::vector<T> storage_;
};

template <class T>
bool bitwise_equal(const std::vector<T>& a, const std::vector<T>& b) {
  return a.size() == b.size() &&
         (a.empty() || std::memcmp(a.data(), b.data(), a.size() * sizeof(T)) == 0);
}

// --- failed runs ----------------------------------------------------------------------------

// Runs fn and returns the RunError message, or "" if the run succeeded.
inline std::string run_error(Machine& m, const std::function<void(Node&)>& fn) {
  try {
    m.run(fn);
  } catch (const RunError& e) {
    return e.what();
  }
  return "";
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

}  // namespace vmc::testing
