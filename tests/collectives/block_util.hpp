// Test helpers of the block collectives (allgather, reduce_scatter, scatter, gather,
// alltoall and their v-variants): machines, deterministic data, poisoned and
// canary-guarded buffers, a non-commutative op, the cost query of a run, and the p list
// of the sweeps.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <vector>

#include "collectives/op.hpp"
#include "collectives/registry.hpp"
#include "runtime/machine.hpp"
#include "topology/topology.hpp"

namespace vmc::testing {

// Integer picosecond costs: alpha 1 us, beta 1 ns, gamma 0.5 ns.
inline Model test_model(Port port = Port::exchange, Routing routing = Routing::direct) {
  Model m;
  m.alpha = 1e-6;
  m.beta = 1e-9;
  m.gamma = 0.5e-9;
  m.port = port;
  m.routing = routing;
  return m;
}

inline std::unique_ptr<Machine> make_machine(int p, Model model, const std::string& topo = "") {
  MachineConfig c;
  c.topology = parse_topology(topo.empty() ? "full:" + std::to_string(p) : topo);
  c.model = model;
  c.trace = false;
  c.watchdog_seconds = 60;
  return std::make_unique<Machine>(c);
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

// p values of the sweeps: 1..33 and 48, 63, 64.
inline std::vector<int> sweep_ps() {
  std::vector<int> ps;
  for (int p = 1; p <= 33; ++p) ps.push_back(p);
  for (int p : {48, 63, 64}) ps.push_back(p);
  return ps;
}
inline std::vector<std::size_t> sweep_lengths(int p) {
  std::vector<std::size_t> ns{0, 1, std::size_t(p) + 1, 1000};
  if (p > 2) ns.push_back(std::size_t(p) - 1);
  return ns;
}
inline std::vector<int> sweep_roots(int p) {
  if (p <= 6) {
    std::vector<int> r;
    for (int i = 0; i < p; ++i) r.push_back(i);
    return r;
  }
  return {0, p / 2, p - 1};
}

inline Options with(const std::string& algorithm) {
  Options o;
  o.algorithm = algorithm;
  return o;
}

// A deterministic item value: who made it and which one.
inline std::int64_t value(int rank, std::size_t index) {
  return std::int64_t(rank) * 1000003 + std::int64_t(index) * 7 + 1;
}

// A 3x3 matrix of wrapping 32-bit integers: its product is associative, not commutative.
struct Mat {
  std::uint32_t a[9];
  bool operator==(const Mat& o) const { return std::memcmp(a, o.a, sizeof a) == 0; }
};
inline Mat mat_mul(const Mat& x, const Mat& y) {
  Mat r{};
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) {
      std::uint32_t s = 0;
      for (int k = 0; k < 3; ++k) s += x.a[i * 3 + k] * y.a[k * 3 + j];
      r.a[i * 3 + j] = s;
    }
  return r;
}
inline Mat mat_value(int rank, std::size_t index) {
  Mat m{};
  for (int i = 0; i < 9; ++i) m.a[i] = std::uint32_t(value(rank, index) * (i + 3) + i * i);
  return m;
}
inline Op mat_product() { return ops::custom<Mat>("matprod", false, mat_mul); }

// A receive buffer poisoned before the call and guarded by canaries after its end.
template <class T>
struct Guarded {
  static constexpr std::size_t kGuard = 4;
  std::vector<unsigned char> bytes;
  std::size_t n;
  explicit Guarded(std::size_t n_) : bytes((n_ + kGuard) * sizeof(T), 0xA5), n(n_) {
    for (std::size_t i = n * sizeof(T); i < bytes.size(); ++i) bytes[i] = 0x5C;
  }
  std::span<T> span() { return {reinterpret_cast<T*>(bytes.data()), n}; }
  T get(std::size_t i) const {
    T t;
    std::memcpy(&t, bytes.data() + i * sizeof(T), sizeof(T));
    return t;
  }
  bool canaries_intact() const {
    for (std::size_t i = n * sizeof(T); i < bytes.size(); ++i)
      if (bytes[i] != 0x5C) return false;
    return true;
  }
};

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

}  // namespace vmc::testing
