// scatterv, gatherv, allgatherv and alltoallv: every registered algorithm with uneven
// counts (zeros included) and gapped displacements, every root for small p, virtual time
// against cost where exact, counts that disagree between nodes, and RapidCheck properties.
#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>

#include "collectives/allgather/allgather.hpp"
#include "collectives/alltoall/alltoall.hpp"
#include "collectives/gather/gather.hpp"
#include "collectives/registry/tables.hpp"
#include "collectives/scatter/scatter.hpp"
#include "tests/collectives/harness.hpp"

namespace vmc {
namespace {

using namespace vmc::testing;

struct Layout {
  std::vector<std::size_t> counts, displs;
  std::size_t extent = 0;
};
// The reference of a v-variant with layout l (stamp(r, i): item i of rank r's input).
reference::Reference v_reference(Operation op, int p, const Layout& l, int root = 0) {
  return reference_of<std::int64_t>(
      {.op = op, .members = p, .root = root, .counts = l.counts, .displs = l.displs}, nullptr,
      stamp);
}

// Counts from a seed (zeros included), displacements with gaps of 2 items.
Layout layout(int p, unsigned seed, std::size_t max_count) {
  Layout l;
  for (int r = 0; r < p; ++r) {
    l.counts.push_back((r * 2654435761u + seed) % (max_count + 1));
    l.displs.push_back(l.extent);
    l.extent += l.counts.back() + 2;
  }
  return l;
}

Picos run_scatterv(Machine& m, const std::string& alg, const Layout& l, int root, Failures& f) {
  return m.run([&](Node& node) {
    const Comm& comm = node.world();
    const int me = comm.rank();
    std::vector<std::int64_t> send;
    if (me == root) {
      send.assign(l.extent, -1);
      for (std::size_t i = 0; i < l.extent; ++i) send[i] = stamp(root, i);
    }
    Guarded<std::int64_t> recv(l.counts[me]);
    scatterv<std::int64_t>(comm, send, l.counts, l.displs, recv.span(), root, with(alg));
    auto want = v_reference(Operation::scatterv, comm.size(), l, root);
    const std::string wrong = result_error(want, me, recv);
    if (!wrong.empty()) f.add(alg + " scatterv: " + wrong);
  }).time_ps();
}

Picos run_gatherv(Machine& m, const std::string& alg, const Layout& l, int root, Failures& f) {
  return m.run([&](Node& node) {
    const Comm& comm = node.world();
    const int me = comm.rank(), p = comm.size();
    std::vector<std::int64_t> send(l.counts[me]);
    for (std::size_t i = 0; i < send.size(); ++i) send[i] = stamp(me, i);
    Guarded<std::int64_t> recv(me == root ? l.extent : 0);
    gatherv<std::int64_t>(comm, send, recv.span(), l.counts, l.displs, root, with(alg));
    if (me != root) return;
    auto want = v_reference(Operation::gatherv, p, l, root);
    const std::string wrong = result_error(want, me, recv);  // the gaps stay poisoned
    if (!wrong.empty()) f.add(alg + " gatherv: " + wrong);
  }).time_ps();
}

Picos run_allgatherv(Machine& m, const std::string& alg, const Layout& l, Failures& f) {
  return m.run([&](Node& node) {
    const Comm& comm = node.world();
    const int me = comm.rank(), p = comm.size();
    std::vector<std::int64_t> send(l.counts[me]);
    for (std::size_t i = 0; i < send.size(); ++i) send[i] = stamp(me, i);
    Guarded<std::int64_t> recv(l.extent);
    allgatherv<std::int64_t>(comm, send, recv.span(), l.counts, l.displs, with(alg));
    auto want = v_reference(Operation::allgatherv, p, l);
    const std::string wrong = result_error(want, me, recv);  // the gaps stay poisoned
    if (!wrong.empty()) f.add(alg + " allgatherv: " + wrong);
  }).time_ps();
}

// Count of the block from s to d.
std::size_t a2av_count(int s, int d, unsigned seed) { return (s * 7 + d * 3 + seed) % 4; }

// The layout run_alltoallv uses: rank s's block for d at send_displs[s][d] (blocks 1 item
// apart), rank d's block from s at recv_displs[d][s] (3 items apart); item i of s's block
// for d is stamp(s, i) * 97 + d.
reference::Reference a2av_reference(int p, unsigned seed) {
  reference::Shape shape{.op = Operation::alltoallv, .members = p};
  shape.send_counts.assign(p, std::vector<std::size_t>(p));
  shape.send_displs = shape.recv_displs = shape.send_counts;
  for (int a = 0; a < p; ++a) {
    std::size_t se = 0, re = 0;
    for (int b = 0; b < p; ++b) {
      shape.send_counts[a][b] = a2av_count(a, b, seed);
      shape.send_displs[a][b] = se;
      se += a2av_count(a, b, seed) + 1;
      shape.recv_displs[a][b] = re;
      re += a2av_count(b, a, seed) + 3;
    }
  }
  const auto displs = shape.send_displs;
  return reference_of<std::int64_t>(std::move(shape), nullptr, [displs](int s, std::size_t j) {
    int d = 0;  // the block holding item j
    while (d + 1 < int(displs[s].size()) && displs[s][d + 1] <= j) ++d;
    return stamp(s, j - displs[s][d]) * 97 + d;
  });
}

Picos run_alltoallv(Machine& m, const std::string& alg, unsigned seed, Failures& f) {
  return m.run([&](Node& node) {
    const Comm& comm = node.world();
    const int me = comm.rank(), p = comm.size();
    std::vector<std::size_t> sc(p), sd(p), rc(p), rd(p);
    std::size_t se = 0, re = 0;
    for (int d = 0; d < p; ++d) {
      sc[d] = a2av_count(me, d, seed);
      sd[d] = se;
      se += sc[d] + 1;
      rc[d] = a2av_count(d, me, seed);
      rd[d] = re;
      re += rc[d] + 3;
    }
    std::vector<std::int64_t> send(se);
    for (int d = 0; d < p; ++d)
      for (std::size_t i = 0; i < sc[d]; ++i) send[sd[d] + i] = stamp(me, i) * 97 + d;
    Guarded<std::int64_t> recv(re);
    alltoallv<std::int64_t>(comm, send, sc, sd, recv.span(), rc, rd, with(alg));
    auto want = a2av_reference(p, seed);
    const std::string wrong = result_error(want, me, recv);  // the gaps stay poisoned
    if (!wrong.empty()) f.add(alg + " alltoallv: " + wrong);
  }).time_ps();
}

TEST(VVariants, SweepEveryAlgorithm) {
  for (int p : {1, 2, 3, 4, 5, 7, 8, 12, 16, 17, 31, 33, 64}) {
    for (Port port : {Port::exchange, Port::duplex}) {
      auto m = machine(p, model(port));
      for (unsigned seed : {0u, 5u}) {
        for (std::size_t max_count : {std::size_t(0), std::size_t(3), std::size_t(40)}) {
          const Layout l = layout(p, seed, max_count);
          auto q = query_for(*m, 0, 0, 8);
          q.counts = l.counts;
          for (int root : sweep_roots(p)) {
            q.root = root;
            for (const Algorithm& a : algorithms(Operation::scatterv)) {
              Failures f;
              Picos t = run_scatterv(*m, a.name, l, root, f);
              ASSERT_TRUE(f.empty()) << f.text();
              ASSERT_EQ(t, a.cost(q)) << "scatterv " << a.name << " p " << p;
            }
            for (const Algorithm& a : algorithms(Operation::gatherv)) {
              Failures f;
              Picos t = run_gatherv(*m, a.name, l, root, f);
              ASSERT_TRUE(f.empty()) << f.text();
              ASSERT_EQ(t, a.cost(q)) << "gatherv " << a.name << " p " << p;
            }
          }
          q.root = 0;
          for (const Algorithm& a : algorithms(Operation::allgatherv)) {
            if (!a.applicable(q)) continue;  // allport_doubling: p a power of two
            Failures f;
            Picos t = run_allgatherv(*m, a.name, l, f);
            ASSERT_TRUE(f.empty()) << f.text();
            const bool exact = a.name == "gather_broadcast" ||
                               (a.name == "ring" && port == Port::duplex) ||
                               (a.name == "bruck" && port == Port::duplex);
            if (exact) {
              ASSERT_EQ(t, a.cost(q)) << "allgatherv " << a.name << " p " << p;
            }
          }
        }
        for (const Algorithm& a : algorithms(Operation::alltoallv)) {
          if ((p & (p - 1)) != 0 && a.name == "pairwise_xor") continue;
          Failures f;
          run_alltoallv(*m, a.name, seed, f);
          ASSERT_TRUE(f.empty()) << f.text();
        }
      }
    }
  }
}

TEST(VVariants, CountsThatDisagreeAreAnErrorNamingTheNode) {
  auto m = machine(4);
  for (const char* alg : {"ring", "recursive_doubling", "gather_broadcast", "bruck"}) {
    expect_error_naming_node(*m, [&](Node& node) {
      std::vector<std::size_t> counts{2, 2, 2, 2}, displs{0, 2, 4, 6};
      if (node.rank() == 1) counts[0] = 3;  // node 1 disagrees about block 0
      std::vector<int> send(counts[node.rank()]), recv(10);
      allgatherv<int>(node.world(), send, recv, counts, displs, with(alg));
    }, std::string("allgatherv ") + alg);
  }
  expect_error_naming_node(*m, [](Node& node) {
    std::vector<std::size_t> sc{1, 1, 1, 1}, rc{1, 1, 1, 1}, d{0, 1, 2, 3};
    if (node.rank() == 2) sc[3] = 2;  // sends 2 items where node 3 expects 1
    std::vector<int> send(5), recv(4);
    alltoallv<int>(node.world(), send, sc, std::vector<std::size_t>{0, 1, 2, 3}, recv, rc, d);
  }, "alltoallv");
  expect_error_naming_node(*m, [](Node& node) {
    std::vector<std::size_t> counts{1, 1, 1}, displs{0, 1, 2};
    std::vector<int> send(4), recv(1);
    scatterv<int>(node.world(), send, counts, displs, recv, 0);
  }, "scatterv with 3 counts on 4 ranks");
  expect_error_naming_node(*m, [](Node& node) {
    std::vector<std::size_t> counts{1, 1, 1, 1}, displs{0, 1, 2, 3};
    std::vector<int> send(1), recv(3);
    gatherv<int>(node.world(), send, recv, counts, displs, 0);
  }, "gatherv recv too small at the root");
}

RC_GTEST_PROP(VVariantsProperty, MatchesTheReferenceOnAnyMachine, ()) {
  const int p = *rc::gen::inRange(1, 81);
  const int root = *rc::gen::inRange(0, p);
  const unsigned seed = *rc::gen::inRange(0u, 1000u);
  const std::size_t max_count = *rc::gen::inRange<std::size_t>(0, 50000 / p + 1);
  const int which = *rc::gen::inRange(0, 4);
  const Port port = *rc::gen::element(Port::exchange, Port::duplex, Port::half, Port::all);
  auto m = machine(p, model(port));
  const Layout l = layout(p, seed, which == 2 ? max_count / p + 1 : max_count);
  const auto& table = algorithms(which == 0   ? Operation::scatterv
                                 : which == 1 ? Operation::gatherv
                                 : which == 2 ? Operation::allgatherv
                                              : Operation::alltoallv);
  const Algorithm& a = table[*rc::gen::inRange<std::size_t>(0, table.size())];
  RC_PRE(!(which == 3 && a.name == "pairwise_xor" && (p & (p - 1)) != 0));
  // A hybrid family's member row needs a member (mesh_hybrid_test runs every one); its
  // _optimal row is in the table too.
  RC_PRE(!is_member_row(Operation::allgatherv, a.name));
  RC_PRE(!(which == 2 && a.name.starts_with("allport") && (p & (p - 1)) != 0));
  Failures f;
  if (which == 0) run_scatterv(*m, a.name, l, root, f);
  if (which == 1) run_gatherv(*m, a.name, l, root, f);
  if (which == 2) run_allgatherv(*m, a.name, l, f);
  if (which == 3) run_alltoallv(*m, a.name, seed, f);
  RC_ASSERT(f.empty());
}

}  // namespace
}  // namespace vmc
