// Automatic selection ("auto", the default) with irregular counts: every v-variant,
// reduce_scatter with counts and alltoallv over counts with zeros, one huge block, primes
// and all zeros, for p up to 128, results checked. Selection's private
// simulation must size each simulated node by its own count, and every member must choose
// the same algorithm from the same input; before, scatterv from root 1 with counts
// {1048576, 0} on full:2 wrote past a buffer, and reduce_scatter with counts {5, 0, 1000,
// 3} deadlocked. The regular forms run with auto at the same p as a smoke test.
#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <optional>

#include "collectives/collectives.hpp"
#include "tests/collectives/harness.hpp"

namespace vmc {
namespace {

using namespace vmc::testing;

const std::vector<int> kSizes = {1, 2, 3, 5, 8, 17, 31, 64, 127, 128};

enum class Pattern { zeros, one_huge, primes, all_zero };
const std::vector<Pattern> kPatterns = {Pattern::zeros, Pattern::one_huge, Pattern::primes,
                                        Pattern::all_zero};

std::string name(Pattern k) {
  switch (k) {
    case Pattern::zeros: return "zeros";
    case Pattern::one_huge: return "one huge";
    case Pattern::primes: return "primes";
    case Pattern::all_zero: return "all zero";
  }
  return "?";
}

// Block r of a pattern over p blocks.
std::size_t count(Pattern k, int p, int r) {
  static const std::size_t primes[] = {2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37, 41, 43};
  switch (k) {
    case Pattern::zeros: return r % 3 == 0 ? 0 : static_cast<std::size_t>(r + 1);
    case Pattern::one_huge: return r == p / 2 ? 20000 : (r % 2);
    case Pattern::primes: return primes[r % 14];
    case Pattern::all_zero: return 0;
  }
  return 0;
}

std::vector<std::size_t> counts(Pattern k, int p) {
  std::vector<std::size_t> c(p);
  for (int r = 0; r < p; ++r) c[r] = count(k, p, r);
  return c;
}

std::vector<std::size_t> displs_of(const std::vector<std::size_t>& c) {
  std::vector<std::size_t> d(c.size());
  std::exclusive_scan(c.begin(), c.end(), d.begin(), std::size_t{0});
  return d;
}

std::int32_t value(int rank, std::size_t i) { return static_cast<std::int32_t>(rank * 7919 + i); }

// The reference of a v-variant (or reduce_scatter) with counts c, displs d and inputs value.
template <class T>
reference::Reference v_reference(Operation op, int p, const std::vector<std::size_t>& c,
                                  const std::vector<std::size_t>& d, int root = 0,
                                  const Op* sum = nullptr) {
  return reference_of<T>({.op = op, .members = p, .root = root, .counts = c, .displs = d}, sum,
                         [](int r, std::size_t i) { return T(value(r, i)); });
}

// Runs fn on m, failing the test with the run's error (a crash or deadlock fails louder).
void run(Machine& m, const std::string& what, const std::function<void(Node&)>& fn) {
  try {
    m.run(fn);
  } catch (const std::exception& e) {
    ADD_FAILURE() << what << ": " << e.what();
  }
}

void check_scatterv(Machine& m, Pattern k, int root, Failures& f) {
  const int p = m.size();
  const auto c = counts(k, p), d = displs_of(c);
  const std::size_t total = std::accumulate(c.begin(), c.end(), std::size_t{0});
  run(m, "scatterv " + name(k), [&](Node& node) {
    const int me = node.rank();
    std::vector<std::int32_t> send(me == root ? total : 0);
    for (std::size_t i = 0; i < send.size(); ++i) send[i] = value(root, i);
    Guarded<std::int32_t> recv(c[me]);
    scatterv<std::int32_t>(node.world(), send, c, d, recv.span(), root);
    auto want = v_reference<std::int32_t>(Operation::scatterv, p, c, d, root);
    const std::string wrong = result_error(want, me, recv);
    if (!wrong.empty()) f.add("scatterv " + name(k) + ": " + wrong);
  });
}

void check_gatherv(Machine& m, Pattern k, int root, Failures& f) {
  const int p = m.size();
  const auto c = counts(k, p), d = displs_of(c);
  const std::size_t total = std::accumulate(c.begin(), c.end(), std::size_t{0});
  run(m, "gatherv " + name(k), [&](Node& node) {
    const int me = node.rank();
    std::vector<std::int32_t> send(c[me]);
    for (std::size_t i = 0; i < send.size(); ++i) send[i] = value(me, i);
    Guarded<std::int32_t> recv(me == root ? total : 0);
    gatherv<std::int32_t>(node.world(), send, recv.span(), c, d, root);
    auto want = v_reference<std::int32_t>(Operation::gatherv, p, c, d, root);
    const std::string wrong = result_error(want, me, recv);
    if (!wrong.empty()) f.add("gatherv " + name(k) + ": " + wrong);
  });
}

void check_allgatherv(Machine& m, Pattern k, Failures& f) {
  const int p = m.size();
  const auto c = counts(k, p), d = displs_of(c);
  const std::size_t total = std::accumulate(c.begin(), c.end(), std::size_t{0});
  run(m, "allgatherv " + name(k), [&](Node& node) {
    const int me = node.rank();
    std::vector<std::int32_t> send(c[me]);
    for (std::size_t i = 0; i < send.size(); ++i) send[i] = value(me, i);
    Guarded<std::int32_t> recv(total);
    allgatherv<std::int32_t>(node.world(), send, recv.span(), c, d);
    auto want = v_reference<std::int32_t>(Operation::allgatherv, p, c, d);
    const std::string wrong = result_error(want, me, recv);
    if (!wrong.empty()) f.add("allgatherv " + name(k) + ": " + wrong);
  });
}

void check_reduce_scatter(Machine& m, Pattern k, Failures& f) {
  const int p = m.size();
  const auto c = counts(k, p), d = displs_of(c);
  const std::size_t total = std::accumulate(c.begin(), c.end(), std::size_t{0});
  const Op sum = ops::sum<std::int64_t>();
  run(m, "reduce_scatter " + name(k), [&](Node& node) {
    const int me = node.rank();
    std::vector<std::int64_t> send(total);
    for (std::size_t i = 0; i < total; ++i) send[i] = value(me, i);
    Guarded<std::int64_t> recv(c[me]);
    reduce_scatter<std::int64_t>(node.world(), send, recv.span(), c, sum);
    auto want = v_reference<std::int64_t>(Operation::reduce_scatter, p, c, {}, 0, &sum);
    const std::string wrong = result_error(want, me, recv);
    if (!wrong.empty()) f.add("reduce_scatter " + name(k) + ": " + wrong);
  });
}

// Node r sends count(k, p, (r + j) % p) items to node j: every row and column irregular.
void check_alltoallv(Machine& m, Pattern k, Failures& f) {
  const int p = m.size();
  std::vector<std::optional<Guarded<std::int32_t>>> got(p);  // checked after the run
  run(m, "alltoallv " + name(k), [&](Node& node) {
    const int me = node.rank();
    std::vector<std::size_t> sc(p), rc(p);
    for (int j = 0; j < p; ++j) {
      sc[j] = count(k, p, (me + j) % p);
      rc[j] = count(k, p, (j + me) % p);
    }
    const auto sd = displs_of(sc), rd = displs_of(rc);
    std::vector<std::int32_t> send(sd.back() + sc.back());
    for (int j = 0; j < p; ++j) {
      for (std::size_t i = 0; i < sc[j]; ++i) send[sd[j] + i] = value(me * p + j, i);
    }
    Guarded<std::int32_t>& recv = got[me].emplace(rd.back() + rc.back());
    alltoallv<std::int32_t>(node.world(), send, sc, sd, recv.span(), rc, rd);
  });
  // Rank s's block for d: count(k, p, (s + d) % p) items, packed; item i is value(s p + d, i).
  reference::Shape shape{.op = Operation::alltoallv, .members = p};
  shape.send_counts.assign(p, std::vector<std::size_t>(p));
  for (int s = 0; s < p; ++s) {
    for (int d = 0; d < p; ++d) shape.send_counts[s][d] = count(k, p, (s + d) % p);
  }
  shape.send_displs.resize(p);
  shape.recv_displs.resize(p);
  for (int r = 0; r < p; ++r) {
    shape.send_displs[r] = displs_of(shape.send_counts[r]);
    std::vector<std::size_t> rc(p);
    for (int s = 0; s < p; ++s) rc[s] = shape.send_counts[s][r];
    shape.recv_displs[r] = displs_of(rc);
  }
  const auto sd = shape.send_displs;
  auto want = reference_of<std::int32_t>(std::move(shape), nullptr, [&sd, p](int s, std::size_t j) {
    const auto& d = sd[s];
    const int to = int(std::upper_bound(d.begin(), d.end(), j) - d.begin()) - 1;
    return value(s * p + to, j - d[to]);
  });
  for (int r = 0; r < p; ++r) {
    if (!got[r]) continue;  // the run failed, and said so
    const std::string wrong = result_error(want, r, *got[r]);
    if (!wrong.empty()) return f.add("alltoallv " + name(k) + ": " + wrong);
  }
}

// One test per p, so ctest spreads them over the cores (and sanitizer runs stay short).
class AutoIrregular : public ::testing::TestWithParam<int> {};

TEST_P(AutoIrregular, EveryVariantWithIrregularCounts) {
  const int p = GetParam();
  auto m = machine(p, model(Port::duplex));
  for (std::size_t i = 0; i < kPatterns.size(); ++i) {
    const Pattern k = kPatterns[i];
    const int root = static_cast<int>((i * 5 + 1) % p);
    Failures f;
    check_scatterv(*m, k, root, f);
    check_gatherv(*m, k, root, f);
    check_allgatherv(*m, k, f);
    check_reduce_scatter(*m, k, f);
    check_alltoallv(*m, k, f);
    EXPECT_TRUE(f.empty()) << "p = " << p << ", root " << root << ":\n" << f.text();
  }
}

// The smallest cases that failed: a huge block at the root's far side.
TEST(AutoIrregularSmallest, ScattervFromRootOneWithOneHugeBlock) {
  auto m = machine(2);
  const std::vector<std::size_t> c{1048576, 0}, d{0, 1048576};
  run(*m, "scatterv {1048576, 0}", [&](Node& node) {
    std::vector<char> send(node.rank() == 1 ? 1048576 : 0, 'x');
    std::vector<char> recv(c[node.rank()]);
    scatterv<char>(node.world(), send, c, d, recv, 1);
    if (node.rank() == 0) {
      EXPECT_EQ(recv[1048575], 'x');
    }
  });
}

TEST(AutoIrregularSmallest, ReduceScatterWithCountsFiveZeroThousandThree) {
  auto m = machine(4);
  const std::vector<std::size_t> c{5, 0, 1000, 3};
  const Op sum = ops::sum<std::int64_t>();
  run(*m, "reduce_scatter {5, 0, 1000, 3}", [&](Node& node) {
    std::vector<std::int64_t> send(1008, node.rank() + 1), recv(c[node.rank()]);
    reduce_scatter<std::int64_t>(node.world(), send, recv, c, sum);
    for (std::int64_t x : recv) EXPECT_EQ(x, 10);
  });
}

// The regular forms with auto at the same p: a prime length, results of the reductions
// checked, the others run to completion.
TEST_P(AutoIrregular, RegularFormsWithAuto) {
  const std::size_t n = 13;
  const Op sum = ops::sum<std::int64_t>();
  {
    const int p = GetParam();
    auto m = machine(p, model(Port::duplex));
    const int root = p / 2;
    const std::int64_t ranks_sum = std::int64_t(p) * (p + 1) / 2;
    run(*m, "regular p = " + std::to_string(p), [&](Node& node) {
      const Comm& c = node.world();
      const std::int64_t me = node.rank() + 1;
      std::vector<std::int64_t> a(n, me), b(n), many(n * p, me), gathered(n * p);
      broadcast<std::int64_t>(c, a, root);
      EXPECT_EQ(a[n - 1], root + 1);
      a.assign(n, me);
      reduce<std::int64_t>(c, a, b, sum, root);
      if (node.rank() == root) {
        EXPECT_EQ(b[0], ranks_sum);
      }
      allreduce<std::int64_t>(c, a, b, sum);
      EXPECT_EQ(b[n - 1], ranks_sum);
      reduce_scatter<std::int64_t>(c, many, b, sum);
      EXPECT_EQ(b[0], ranks_sum);
      scan<std::int64_t>(c, a, b, sum);
      EXPECT_EQ(b[0], me * (me + 1) / 2);
      exscan<std::int64_t>(c, a, b, sum);
      if (me > 1) {
        EXPECT_EQ(b[0], (me - 1) * me / 2);
      }
      allgather<std::int64_t>(c, a, gathered);
      EXPECT_EQ(gathered[n * p - 1], p);
      gather<std::int64_t>(c, a, gathered, root);
      scatter<std::int64_t>(c, many, b, root);
      alltoall<std::int64_t>(c, many, gathered);
      EXPECT_EQ(gathered[n * p - 1], p);
      barrier(c);
    });
  }
}

INSTANTIATE_TEST_SUITE_P(P, AutoIrregular, ::testing::ValuesIn(kSizes));

}  // namespace
}  // namespace vmc
