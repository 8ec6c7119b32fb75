// The public test harness (collectives/testing.hpp) and run-time registration
// (register_algorithm): vmc's own algorithms pass it (the all-port rows are swept through it
// for every p in 1..64), broken ones are caught and shrunk to their smallest failing case
// with a replay line that replays it, wrong cost formulas and deadlocks are reported, and a
// registered algorithm is chosen by auto when it is the cheapest.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <atomic>
#include <cstring>
#include <set>
#include <string>
#include <tuple>
#include <thread>
#include <vector>

#include "collectives/collectives.hpp"
#include "collectives/testing.hpp"
#include "tests/sanitized.hpp"

namespace vmc {
namespace {

using ::testing::HasSubstr;

// A user's allreduce written against Comm: every rank sends its vector to rank 0, which
// combines them in rank order and sends the result back. `broken_at` > 0 drops the last
// rank's contribution on that many nodes.
template <int broken_at>
void gather_combine_send(const Call& call) {
  const Comm& c = *call.comm;
  const std::size_t n = call.n, isz = call.item_size, bytes = n * isz;
  std::vector<char> acc(bytes), got(bytes);
  if (bytes > 0) std::memcpy(acc.data(), call.send != nullptr ? call.send : call.recv, bytes);
  if (c.rank() == 0) {
    for (int r = 1; r < c.size(); ++r) {
      c.recv_raw(got.data(), bytes, isz, r, call.tag);
      if (c.size() == broken_at && r == c.size() - 1) continue;  // the deliberate bug
      call.op->apply(acc.data(), got.data(), acc.data(), n);
      c.charge_combine(n);
    }
    for (int r = 1; r < c.size(); ++r) c.send_raw(acc.data(), bytes, n, r, call.tag + 1);
  } else {
    c.send_raw(acc.data(), bytes, n, 0, call.tag);
    c.recv_raw(acc.data(), bytes, isz, 0, call.tag + 1);
  }
  if (bytes > 0) std::memcpy(call.recv, acc.data(), bytes);
}

// Its cost on full:p under exchange ports and eager sends: the p-1 messages into rank 0
// pass its port one after another while it combines the previous one, so only the last
// combine shows; then p-1 messages out: 2 (p-1)(alpha + n beta) + n gamma.
Picos gather_combine_send_cost(const CostQuery& q) {
  if (q.p == 1) return 0;
  return 2 * (q.p - 1) * q.units.message(q.n) + q.units.combine(q.n);
}
Claim exact_on_full_exchange(const CostQuery& q) {
  return q.topology->spec().rfind("full:", 0) == 0 && q.model.port == Port::exchange &&
                 q.model.protocol == Protocol::eager
             ? Claim::exact
             : Claim::estimate;
}

const Algorithm kMine{.name = "mine", .cost = gather_combine_send_cost,
                      .run = gather_combine_send<0>, .claim = exact_on_full_exchange};
const Algorithm kBroken{.name = "broken", .run = gather_combine_send<6>};

harness::Settings quick(int max_p) {
  harness::Settings s;
  s.max_p = max_p;
  return s;
}

TEST(Harness, PassesACorrectUserAlgorithmWithItsCostFormula) {
  EXPECT_COLLECTIVE(Operation::allreduce, kMine, quick(12));
}

TEST(Harness, CatchesABrokenAlgorithmAndShrinksToTheSmallestCase) {
  const harness::Report r = harness::check(Operation::allreduce, kBroken, quick(10));
  ASSERT_FALSE(r.passed);
  ASSERT_TRUE(r.failing.has_value());
  EXPECT_EQ(r.failing->p, 6);
  EXPECT_EQ(r.failing->n, 1u);  // shrunk: n = 0 has nothing to get wrong
  EXPECT_EQ(r.failing->topology, "full");
  EXPECT_EQ(r.failing->group, "world");
  EXPECT_THAT(r.failure, HasSubstr("wrong result at item 0"));
  EXPECT_THAT(r.message, HasSubstr("Smallest failing case:\n  p=6 n=1 "));
  EXPECT_THAT(r.message, HasSubstr("VMC_HARNESS_CASE='p=6 n=1 "));
  // The replay line replays it.
  EXPECT_EQ(harness::run_case(Operation::allreduce, kBroken, *r.failing), r.failure);
  EXPECT_EQ(harness::run_case(Operation::allreduce, kMine, *r.failing), "");
  // Through GoogleTest: the assertion fails with the report as its message.
  const ::testing::AssertionResult a = harness::passes(Operation::allreduce, kBroken, quick(7));
  EXPECT_FALSE(a);
  EXPECT_THAT(a.message(), HasSubstr("p=6 n=1"));
}

// A broadcast wrong only for p = 6 and root 5: the smallest case keeps that root.
void broadcast_broken_at_6_root_5(const Call& call) {
  const Comm& c = *call.comm;
  const std::size_t bytes = call.n * call.item_size;
  if (c.rank() == call.root) {
    for (int r = 0; r < c.size(); ++r) {
      if (r != call.root) c.send_raw(call.recv, bytes, call.n, r, call.tag);
    }
  } else {
    c.recv_raw(call.recv, bytes, call.item_size, call.root, call.tag);
    if (c.size() == 6 && call.root == 5 && c.rank() == 2 && call.n > 0) {
      std::memset(call.recv, 0, call.item_size);  // the deliberate bug
    }
  }
}

// Faulty user collectives, each wrong in one way that the results of a plain run do not
// show: it sends under user tags instead of its call's, leaves a message unreceived, or
// writes into its send buffer.
enum class Fault { tag_zero, unreceived, send_write };
template <Fault fault>
void faulty_allreduce(const Call& call) {
  const Comm& c = *call.comm;
  const std::size_t n = call.n, isz = call.item_size, bytes = n * isz;
  const Tag tag = fault == Fault::tag_zero ? 0 : call.tag;  // the deliberate bug (tag_zero)
  std::vector<char> acc(bytes), got(bytes);
  if (bytes > 0) std::memcpy(acc.data(), call.send != nullptr ? call.send : call.recv, bytes);
  if (c.rank() == 0) {
    for (int r = 1; r < c.size(); ++r) {
      c.recv_raw(got.data(), bytes, isz, r, tag);
      call.op->apply(acc.data(), got.data(), acc.data(), n);
    }
    for (int r = 1; r < c.size(); ++r) c.send_raw(acc.data(), bytes, n, r, tag + 1);
  } else {
    c.send_raw(acc.data(), bytes, n, 0, tag);
    if (fault == Fault::unreceived) c.send_raw(acc.data(), bytes, n, 0, tag + 2);  // the bug
    c.recv_raw(acc.data(), bytes, isz, 0, tag + 1);
  }
  if (fault == Fault::send_write && call.send != nullptr && bytes > 0) {
    static_cast<unsigned char*>(const_cast<void*>(call.send))[0] ^= 1;  // the deliberate bug
  }
  if (bytes > 0) std::memcpy(call.recv, acc.data(), bytes);
}

TEST(Harness, CatchesACollectiveThatIgnoresItsTag) {
  const Algorithm tag_zero{.name = "tag_zero", .run = faulty_allreduce<Fault::tag_zero>};
  const harness::Report r = harness::check(Operation::allreduce, tag_zero, quick(6));
  ASSERT_FALSE(r.passed);
  EXPECT_EQ(r.failing->p, 2);
  EXPECT_THAT(r.failure, HasSubstr("among other traffic"));
  // Alone on its comm it passes the same case: the traffic beside it is what catches it.
  harness::Settings alone = quick(6);
  alone.crowded = false;
  EXPECT_EQ(harness::run_case(Operation::allreduce, tag_zero, *r.failing, alone), "");
  EXPECT_TRUE(harness::check(Operation::allreduce, tag_zero, alone).passed);
}

TEST(Harness, CatchesAMessageLeftUnreceived) {
  const Algorithm leaves{.name = "leaves_one", .run = faulty_allreduce<Fault::unreceived>};
  const harness::Report r = harness::check(Operation::allreduce, leaves, quick(6));
  ASSERT_FALSE(r.passed);
  EXPECT_EQ(r.failing->p, 2);
  EXPECT_THAT(r.failure, HasSubstr("messages left unreceived"));
  EXPECT_THAT(r.failure, HasSubstr("node 0: from node 1, tag 2 of collective call 0 on comm 0"));
}

TEST(Harness, CatchesAWriteIntoTheSendBuffer) {
  const Algorithm writes{.name = "writes_send", .run = faulty_allreduce<Fault::send_write>};
  const harness::Report r = harness::check(Operation::allreduce, writes, quick(6));
  ASSERT_FALSE(r.passed);
  EXPECT_EQ(r.failing->p, 1);
  EXPECT_FALSE(r.failing->in_place);  // in place, there is no send buffer to write into
  EXPECT_THAT(r.failure, HasSubstr("rank 0 of 1 (node 0): wrote into its send buffer: item 0 was"));
}

// The output states what ran: the cases run and skipped (as many as the sweep lists and the
// row applies to) and the time.
TEST(Harness, SaysHowManyCasesItRanAndHowLong) {
  Algorithm odd_only = kMine;
  odd_only.name = "odd_only";
  odd_only.applicable = [](const CostQuery& q) { return q.p % 2 == 1; };
  int applicable = 0, listed = 0;
  for (const harness::Case& c : harness::cases(Operation::allreduce, odd_only, quick(6))) {
    ++listed;
    applicable += harness::applies(Operation::allreduce, odd_only, c);
  }
  ::testing::internal::CaptureStdout();
  const harness::Report r = harness::check(Operation::allreduce, odd_only, quick(6));
  const std::string out = ::testing::internal::GetCapturedStdout();
  ASSERT_TRUE(r.passed) << r.message;
  EXPECT_EQ(r.cases, applicable);
  EXPECT_EQ(r.skipped, listed - applicable);
  EXPECT_GT(r.skipped, 0);
  EXPECT_THAT(out, HasSubstr("allreduce odd_only: " + std::to_string(applicable) +
                             " cases run, " + std::to_string(listed - applicable) +
                             " skipped (the algorithm does not apply), "));
  EXPECT_THAT(out, HasSubstr("[ harness  ] " + r.summary + "\n"));
  EXPECT_THAT(r.summary, ::testing::MatchesRegex(".*\\), [0-9]+\\.[0-9][0-9] s"));
  EXPECT_EQ(r.message, r.summary);
}

// Dense: the full product of p, root, length, item type and port model.
TEST(Harness, DenseRunsTheFullProduct) {
  const harness::Settings dense = harness::dense(5);
  std::set<std::tuple<int, int, std::size_t, std::string, Port>> seen;
  for (const harness::Case& c : harness::cases(Operation::broadcast, kMine, dense)) {
    seen.insert({c.p, c.root, c.n, c.type, c.port});
  }
  std::size_t product = 0;
  for (int p = 1; p <= 5; ++p) {
    for (int root = 0; root < p; ++root) {
      for (std::size_t n : {0, 1, 2, p + 1}) {
        for (const std::string& type : dense.types) {
          for (Port port : dense.ports) {
            ++product;
            EXPECT_TRUE(seen.count({p, root, n, type, port})) << p << " " << root << " " << n;
          }
        }
      }
    }
  }
  EXPECT_EQ(seen.size() >= product, true);  // every combination above, and more lengths
  EXPECT_GT(harness::cases(Operation::broadcast, kMine, dense).size(),
            10 * harness::cases(Operation::broadcast, kMine, quick(5)).size());
}

TEST(Harness, ShrinkingKeepsTheRootThatFails) {
  const Algorithm broken{.name = "broken_broadcast", .run = broadcast_broken_at_6_root_5};
  const harness::Report r = harness::check(Operation::broadcast, broken, quick(8));
  ASSERT_FALSE(r.passed);
  EXPECT_EQ(r.failing->p, 6);
  EXPECT_EQ(r.failing->root, 5);
  EXPECT_EQ(r.failing->n, 1u);
  EXPECT_THAT(r.failure, HasSubstr("rank 2 of 6"));
}

TEST(Harness, ReportsAWrongCostFormula) {
  Algorithm off_by_one = kMine;
  off_by_one.name = "off_by_one";
  off_by_one.cost = [](const CostQuery& q) { return gather_combine_send_cost(q) + 1; };
  const harness::Report r = harness::check(Operation::allreduce, off_by_one, quick(4));
  ASSERT_FALSE(r.passed);
  EXPECT_EQ(r.failing->p, 1);
  EXPECT_THAT(r.failure, HasSubstr("but the cost formula says equal to 1 ps"));
}

// Both ranks send first: fine under eager, a deadlock under rendezvous.
void unsafe_exchange(const Call& call) {
  const Comm& c = *call.comm;
  const std::size_t bytes = call.n * call.item_size;
  if (c.size() == 1) return;
  std::vector<char> got(bytes);
  const int partner = c.rank() ^ 1;
  if (partner >= c.size()) return;
  c.send_raw(call.recv, bytes, call.n, partner, call.tag);
  c.recv_raw(got.data(), bytes, call.item_size, partner, call.tag);
}

TEST(Harness, ReportsADeadlockUnderRendezvous) {
  const Algorithm unsafe{.name = "unsafe", .run = unsafe_exchange};
  harness::Case c = harness::parse_case("p=2 n=3 protocol=rendezvous");
  EXPECT_THAT(harness::run_case(Operation::broadcast, unsafe, c), HasSubstr("deadlock"));
}

TEST(Harness, UsesTheUsersReference) {
  harness::Settings s = quick(3);
  s.reference = [](const harness::Case&, int members, const std::vector<harness::Bytes>&,
                   const Op&) {
    return std::vector<std::optional<harness::Bytes>>(members, harness::Bytes{});
  };
  const harness::Report r = harness::check(Operation::allreduce, kMine, s);
  ASSERT_FALSE(r.passed);  // the reference says every buffer is empty
  EXPECT_THAT(r.failure, HasSubstr("the reference has 0 items"));
}

TEST(Harness, CaseTextRoundTrips) {
  harness::Case c;
  c.p = 13;
  c.n = 29;
  c.root = 4;
  c.type = "mat3";
  c.op = "matmul";
  c.in_place = true;
  c.group = "halves";
  c.topology = "torus";
  c.port = Port::half;
  c.routing = Routing::store_and_forward;
  c.protocol = Protocol::rendezvous;
  c.clock = Clock::real_time;
  c.perturb = 77;
  c.alpha = 1e-3;
  c.seed = 5;
  EXPECT_EQ(harness::to_string(harness::parse_case(harness::to_string(c))), harness::to_string(c));
  EXPECT_EQ(harness::topology_spec(c), "torus:13x1");
  c.p = 12;
  EXPECT_EQ(harness::topology_spec(c), "torus:4x3");
  EXPECT_THROW(harness::parse_case("p=3 colour=red"), std::invalid_argument);
  EXPECT_THROW(harness::parse_case("p=0"), std::invalid_argument);
}

// An allgather that outlives a failed member: every rank sends its block to every other rank,
// then receives from each, catching NodeFailedError, so the block of a failed member keeps
// what the buffer held. `tolerant` false: the same without the catch.
template <bool tolerant>
void direct_allgather(const Call& call) {
  const Comm& c = *call.comm;
  const int p = c.size(), r = c.rank();
  const std::size_t block = call.n * call.item_size;
  auto* out = static_cast<unsigned char*>(call.recv);
  if (call.send != nullptr && block > 0) std::memcpy(out + r * block, call.send, block);
  for (int s = 1; s < p; ++s) c.send_raw(out + r * block, block, call.n, (r + s) % p, call.tag);
  for (int s = 1; s < p; ++s) {
    const int from = (r - s + p) % p;
    try {
      c.recv_raw(out + from * block, block, call.item_size, from, call.tag);
    } catch (const NodeFailedError&) {
      if (!tolerant) throw;
    }
  }
}

TEST(Harness, OneFailedNodeHoldsAToleranceClaimToItsSeeds) {
  const Algorithm tolerant{.name = "direct_tolerant", .run = direct_allgather<true>};
  const Algorithm fragile{.name = "direct_fragile", .run = direct_allgather<false>};
  const harness::Case c = harness::parse_case("p=6 n=3 topology=hypercube");
  const harness::ToleranceReport ok =
      harness::check_one_failure(Operation::allgather, tolerant, c, 12);
  EXPECT_TRUE(ok.passed) << ok.message;
  EXPECT_EQ(ok.draws, 12);
  EXPECT_GT(ok.acted, 0) << "no draw stopped a node: the check tested nothing";
  EXPECT_TRUE(ok.broken.empty());
  EXPECT_THAT(ok.message, HasSubstr("12 single failures drawn"));

  const harness::ToleranceReport bad =
      harness::check_one_failure(Operation::allgather, fragile, c, 12);
  EXPECT_FALSE(bad.passed);
  ASSERT_FALSE(bad.broken.empty());
  // The draws are the same for both rows: a failure breaks the fragile one only where it
  // stopped a node.
  EXPECT_LE(static_cast<int>(bad.broken.size()), ok.acted);
  EXPECT_THAT(bad.message,
              HasSubstr("seed " + std::to_string(bad.broken.front()) + ": --fail node:"));
  EXPECT_THAT(bad.message, HasSubstr("has failed"));
  // Seeded: the same seeds break on every check.
  EXPECT_EQ(harness::check_one_failure(Operation::allgather, fragile, c, 12).broken, bad.broken);

  EXPECT_THROW(harness::check_one_failure(Operation::allgather, tolerant,
                                          harness::parse_case("p=4 clock=real")),
               std::invalid_argument);
}

TEST(Harness, SweepsEveryPAndRootWithPrimeLengths) {
  const auto all = harness::cases(Operation::broadcast, kMine, quick(64));
  std::set<int> ps;
  std::set<std::pair<int, int>> roots;
  bool prime_over_2p = false, subgroup = false, real_clock = false, rendezvous = false;
  for (const auto& c : all) {
    ps.insert(c.p);
    roots.insert({c.p, c.root});
    prime_over_2p = prime_over_2p || (c.p == 10 && c.n == 23);
    subgroup = subgroup || c.group != "world";
    real_clock = real_clock || c.clock == Clock::real_time;
    rendezvous = rendezvous || c.protocol == Protocol::rendezvous;
  }
  EXPECT_EQ(ps.size(), 64u);
  for (int r = 0; r < 6; ++r) EXPECT_TRUE(roots.count({6, r})) << r;
  EXPECT_TRUE(prime_over_2p && subgroup && real_clock && rendezvous);
}

// vmc's own all-port rows through the harness, every p in 1..64 (they apply to powers of
// two), with their exact claims checked on every virtual-clock case.
TEST(Harness, AllportRowsPass) {
  for (const auto& [op, name] : std::vector<std::pair<Operation, std::string>>{
           {Operation::broadcast, "allport_binomial"}, {Operation::broadcast, "allport_edst"},
           {Operation::reduce, "allport_binomial"}, {Operation::allreduce, "allport_doubling"},
           {Operation::allgather, "allport_doubling"}}) {
    // Under AddressSanitizer or ThreadSanitizer p up to 17: every kind of p all the same.
    harness::Settings settings;
    if (testing::kSanitized) settings.max_p = 17;  // tests/sanitized.hpp
    EXPECT_COLLECTIVE(op, *find_algorithm(op, name), settings);
  }
}

RC_GTEST_PROP(HarnessProperty, AllportBroadcastOnAnyMachine, ()) {
  const Algorithm& edst = *find_algorithm(Operation::broadcast, "allport_edst");
  const harness::Case c = *harness::gen::cases(Operation::broadcast, edst, 32);
  RC_ASSERT(harness::run_case(Operation::broadcast, edst, c) == "");
}

RC_GTEST_PROP(HarnessProperty, MachinesAreValid, ()) {
  const harness::Case c = *harness::gen::machines(40);
  RC_ASSERT(c.p >= 1 && c.p <= 40);
  Machine m(harness::machine_config(c));
  RC_ASSERT(m.size() == c.p);
}

// --- run-time registration ---------------------------------------------------------------------

std::atomic<int> registered_runs{0};
void counted_allreduce(const Call& call) {
  ++registered_runs;
  gather_combine_send<0>(call);
}

TEST(Registration, ARegisteredAlgorithmIsListedForcedAndChosenByAuto) {
  const std::size_t before = algorithms(Operation::allreduce).size();
  register_algorithm(Operation::allreduce,
                     {.name = "free_lunch", .description = "a user's allreduce",
                      .cost = [](const CostQuery&) { return Picos{0}; }, .run = counted_allreduce});
  ASSERT_EQ(algorithms(Operation::allreduce).size(), before + 1);
  const Algorithm* row = find_algorithm(Operation::allreduce, "free_lunch");
  ASSERT_NE(row, nullptr);
  EXPECT_EQ(row->requirements, "nothing");
  CostQuery q;
  q.p = 5;
  q.n = 10;
  q.model = {.alpha = 1e-6, .beta = 1e-9};
  q.units = CostUnits(q.model);
  EXPECT_TRUE(row->applicable(q));
  EXPECT_EQ(&select_algorithm(Operation::allreduce, q), row);  // the cheapest (formula) choice
  Machine m({.nodes = 5, .model = {.alpha = 1e-6, .beta = 1e-9}});
  std::vector<std::int64_t> result(5);
  m.run([&](Node& node) {
    std::vector<std::int64_t> x(10, node.rank() + 1);
    allreduce(node.world(), std::span(x), ops::sum<std::int64_t>());  // auto
    result[node.rank()] = x[9];
  });
  EXPECT_EQ(result, std::vector<std::int64_t>(5, 15));
  EXPECT_EQ(registered_runs.load(), 5);
  // Names are unique; run and cost are required.
  EXPECT_THROW(register_algorithm(Operation::allreduce, {.name = "free_lunch", .cost = gather_combine_send_cost,
                                                         .run = counted_allreduce}),
               std::invalid_argument);
  EXPECT_THROW(register_algorithm(Operation::allreduce, {.name = "ring", .cost = gather_combine_send_cost,
                                                         .run = counted_allreduce}),
               std::invalid_argument);
  EXPECT_THROW(register_algorithm(Operation::allreduce, {.name = "no_cost", .run = counted_allreduce}),
               std::invalid_argument);
  EXPECT_THROW(register_algorithm(Operation::allreduce, {.name = "auto", .cost = gather_combine_send_cost,
                                                         .run = counted_allreduce}),
               std::invalid_argument);
}

TEST(Registration, IsThreadSafe) {
  // Threads register while others read the table and select: every row arrives once.
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([t] {
      for (int i = 0; i < 25; ++i) {
        register_algorithm(Operation::scan,
                           {.name = "user_" + std::to_string(t) + "_" + std::to_string(i),
                            .cost = [](const CostQuery&) { return Picos{1} << 40; },
                            .run = counted_allreduce});
      }
    });
    threads.emplace_back([] {
      for (int i = 0; i < 200; ++i) {
        CostQuery q;
        q.p = 4;
        q.n = std::size_t(i);
        EXPECT_NE(select_algorithm(Operation::scan, q).name.rfind("user_", 0), 0u);
        EXPECT_GE(algorithms(Operation::scan).size(), 3u);
      }
    });
  }
  for (auto& th : threads) th.join();
  int users = 0;
  for (const Algorithm& a : algorithms(Operation::scan)) users += a.name.rfind("user_", 0) == 0;
  EXPECT_EQ(users, 100);
}

}  // namespace
}  // namespace vmc
