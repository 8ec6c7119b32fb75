// One call of a combine-family collective (broadcast, reduce, allreduce, scan, exscan) on a
// comm, with its expected result, for the sweeps and properties of the *_test.cpp files.
#pragma once

#include <map>
#include <optional>

#include "collectives/collectives.hpp"
#include "tests/collectives/harness.hpp"

namespace vmc::testing {

struct Case {
  Operation operation = Operation::allreduce;
  std::string algorithm = "auto";
  std::size_t n = 0;
  int root = 0;
  bool in_place = false;
  std::uint64_t seed = 1;
  std::vector<int> strategy;  // the hybrid's S (see test_strategy)
  DoplSteps dopl_steps = DoplSteps::overlap;  // the mesh_dopl rows' steps
};

// Calls the collective of `k` on comm c as rank c.rank(); `out` is the guarded buffer the
// result goes to (n items).
template <class T>
void call(const Comm& c, const Case& k, const Op& op, Guarded<T>& out) {
  const std::vector<T> mine = values<T>(c.rank(), k.n, k.seed);
  Options o;
  o.algorithm = k.algorithm;
  o.strategy = k.strategy;
  o.dopl_steps = k.dopl_steps;
  auto in = std::span<const T>(mine);
  if (k.operation == Operation::broadcast) {
    if (c.rank() == k.root) std::copy(mine.begin(), mine.end(), out.span().begin());
    broadcast(c, out.span(), k.root, o);
    return;
  }
  if (k.in_place) std::copy(mine.begin(), mine.end(), out.span().begin());
  switch (k.operation) {
    case Operation::reduce:
      if (k.in_place) reduce(c, out.span(), op, k.root, o);
      else reduce(c, in, c.rank() == k.root ? out.span() : std::span<T>(), op, k.root, o);
      break;
    case Operation::allreduce:
      if (k.in_place) allreduce(c, out.span(), op, o);
      else allreduce(c, in, out.span(), op, o);
      break;
    case Operation::scan:
      if (k.in_place) scan(c, out.span(), op, o);
      else scan(c, in, out.span(), op, o);
      break;
    case Operation::exscan:
      if (k.in_place) exscan(c, out.span(), op, o);
      else exscan(c, in, out.span(), op, o);
      break;
    default: break;
  }
}

// The expected content of every rank's buffer among q ranks (collectives/reference/);
// nullopt where the operation leaves the buffer alone (reduce off the root, exscan at rank
// 0): those buffers must keep what they had (poison, or the in-place input). O(q n)
// combines.
template <class T>
std::vector<std::optional<std::vector<T>>> expected(const Case& k, const Op& op, int q) {
  auto ref = reference_of<T>({.op = k.operation, .members = q, .n = k.n, .root = k.root,
                              .in_place = k.in_place},
                             &op, [&k](int r, std::size_t i) { return value<T>(r, i, k.seed); });
  std::vector<std::optional<std::vector<T>>> want(q);
  for (int r = 0; r < q; ++r) {
    if (ref.result_items(r) > 0) want[r] = expected_items<T>(ref, r);
  }
  return want;
}

// Runs `k` on every node of m (or on the sub-groups of `group`) and checks every rank's
// buffer, its canaries, and the untouched buffers. Returns "" or a description of the first
// failure; the run's result (its time and statistics) goes to `result` when given.
template <class T>
std::string run_case(Machine& m, const Case& k, const Op& op, const SubGroup* group = nullptr,
                     RunResult* result = nullptr) {
  const int p = m.size();
  std::vector<std::vector<T>> out(p);
  std::vector<int> rank(p, -1), size(p, 0), canaries(p, 1), untouched(p, 1);
  std::vector<std::vector<T>> input(p);
  const RunResult run = m.run([&](Node& node) {
    Comm c = node.world();
    if (group != nullptr) {
      c = c.split(group->color(node.rank(), p), group->key(node.rank(), p));
      if (!c.valid()) return;
    }
    if (k.root >= c.size()) return;  // sub-group too small for this root: skip alike
    Guarded<T> g(k.n);
    call<T>(c, k, op, g);
    rank[node.rank()] = c.rank();
    size[node.rank()] = c.size();
    out[node.rank()] = g.items();
    canaries[node.rank()] = g.canaries_intact();
    untouched[node.rank()] = g.untouched();
    input[node.rank()] = values<T>(c.rank(), k.n, k.seed);
  });
  if (result != nullptr) *result = run;
  std::map<int, std::vector<std::optional<std::vector<T>>>> wants;  // by group size
  for (int w = 0; w < p; ++w) {
    if (rank[w] < 0) continue;
    if (!wants.count(size[w])) wants[size[w]] = expected<T>(k, op, size[w]);
    const std::string where = to_string(k.operation) + " " + k.algorithm + " p=" +
                              std::to_string(p) + " q=" + std::to_string(size[w]) + " n=" +
                              std::to_string(k.n) + " root=" + std::to_string(k.root) +
                              (k.in_place ? " in-place" : "") + " op=" + op.name() +
                              (group ? " group=" + group->name : "") + " rank " +
                              std::to_string(rank[w]) + ": ";
    if (!canaries[w]) return where + "canary overwritten";
    const auto& want = wants[size[w]][rank[w]];
    if (!want) {
      bool ok = k.in_place ? bitwise_equal(out[w], input[w]) : bool(untouched[w]);
      if (!ok) return where + "buffer that should be unchanged was written";
      continue;
    }
    if (!bitwise_equal(out[w], *want)) return where + "wrong result";
  }
  return "";
}

}  // namespace vmc::testing
