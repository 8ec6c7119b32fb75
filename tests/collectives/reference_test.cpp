// The reference module (collectives/reference/): its check values are distinct per (rank,
// item) and exact under every combination; its expected results follow each operation's
// semantics (irregular blocks, in place, ranks asked in any order); its guarded buffers see
// writes on both sides. And the checks built on it can fail: deliberately wrong algorithms
// that deliver rank r's block to rank (r + 5) mod p (allgather, scatter, alltoall,
// reduce_scatter) or reduce out of rank order (allreduce under the matrix product) are
// caught at p = 13 by `vmc run --check` (tools/runner.cpp) and by the public harness
// (collectives/testing.hpp), which both compare with the reference.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <numeric>
#include <set>
#include <vector>

#include "collectives/collectives.hpp"
#include "collectives/reference/check_values.hpp"
#include "collectives/reference/guarded.hpp"
#include "collectives/reference/reference.hpp"
#include "collectives/testing.hpp"
#include "tests/collectives/harness.hpp"
#include "tools/runner.hpp"

namespace vmc {
namespace {

using ::testing::HasSubstr;
using reference::Combining;

// --- check values ------------------------------------------------------------------------------

template <class T>
std::size_t distinct(std::vector<T> v) {
  std::sort(v.begin(), v.end());
  return std::size_t(std::unique(v.begin(), v.end()) - v.begin());
}

template <class T>
void expect_distinct(Combining c, int p, std::size_t items) {
  std::vector<T> all;
  for (int r = 0; r < p; ++r) {
    for (std::size_t i = 0; i < items; ++i) all.push_back(reference::check_value<T>(c, p, r, i));
  }
  EXPECT_EQ(distinct(all), std::size_t(p) * items) << "p " << p << " combining " << int(c);
}

TEST(CheckValues, DistinctPerRankAndItem) {
  for (int p : {1, 2, 5, 8, 13, 64, 1000}) {
    const std::size_t items = p > 64 ? 10 : 400;  // float sums at 1000: 2^14 values
    for (Combining c : {Combining::none, Combining::sum, Combining::extremes}) {
      expect_distinct<std::int32_t>(c, p, items);
      expect_distinct<std::int64_t>(c, p, items);
      expect_distinct<float>(c, p, items);
      expect_distinct<double>(c, p, items);
    }
    expect_distinct<std::int32_t>(Combining::bits, p, items);
    expect_distinct<std::int64_t>(Combining::bits, p, items);
  }
  // Float sums at 13 members: 2^20 distinct values, so 13 ranks of 80,000 items.
  expect_distinct<float>(Combining::sum, 13, 80000);
}

// Sums over p members in three orders (forward, backward, a pairwise tree) agree bit for bit
// with the exact integer sum, and stay below the type's exact limit.
template <class T>
void expect_exact_sums(int p, std::size_t items) {
  for (std::size_t i = 0; i < items; ++i) {
    std::vector<T> x(p);
    long double exact = 0;
    for (int r = 0; r < p; ++r) {
      x[r] = reference::check_value<T>(Combining::sum, p, r, i, 3);
      ASSERT_GE(x[r], T(1));
      exact += static_cast<long double>(x[r]);
    }
    T forward = x[0], backward = x[p - 1];
    for (int r = 1; r < p; ++r) forward = T(forward + x[r]);
    for (int r = p - 2; r >= 0; --r) backward = T(backward + x[r]);
    std::vector<T> tree = x;
    while (tree.size() > 1) {
      std::vector<T> next;
      for (std::size_t k = 0; k + 1 < tree.size(); k += 2) next.push_back(T(tree[k] + tree[k + 1]));
      if (tree.size() % 2 == 1) next.push_back(tree.back());
      tree = next;
    }
    ASSERT_EQ(static_cast<long double>(forward), exact) << "p " << p << " item " << i;
    ASSERT_EQ(backward, forward);
    ASSERT_EQ(tree[0], forward);
  }
}

TEST(CheckValues, SumsAreExactInEveryOrder) {
  for (int p : {1, 2, 3, 13, 64, 1000, 16384, 65536}) {
    const std::size_t items = p > 1000 ? 3 : 50;
    expect_exact_sums<float>(p, items);
    expect_exact_sums<double>(p, items);
    expect_exact_sums<std::int32_t>(p, items);  // overflow would be caught by UBSan and here
    expect_exact_sums<std::int64_t>(p, items);
  }
}

TEST(CheckValues, ProductsAreExactPowersOfTwo) {
  for (int p : {1, 13, 64, 200}) {
    for (std::size_t i = 0; i < 50; ++i) {
      std::int64_t i32 = 1, i64 = 1;
      double d = 1;
      int twos32 = 0, twos64 = 0;
      for (int r = 0; r < p; ++r) {
        const auto a = reference::check_value<std::int32_t>(Combining::prod, p, r, i);
        const auto b = reference::check_value<std::int64_t>(Combining::prod, p, r, i);
        ASSERT_TRUE(a == 1 || a == -1 || a == 2 || a == -2);
        twos32 += a == 2 || a == -2;
        twos64 += b == 2 || b == -2;
        i32 *= a;
        i64 *= b;  // at most 62 factors of 2 (checked below): no overflow
        d *= reference::check_value<double>(Combining::prod, p, r, i);
      }
      EXPECT_LE(twos32, 30);
      EXPECT_LE(twos64, 62);
      EXPECT_LE(std::abs(i32), std::int64_t{1} << 30);
      EXPECT_EQ(std::fabs(d), std::ldexp(1.0, twos64));
    }
  }
}

TEST(CheckValues, LogicalValuesAreZeroOrOne) {
  int ones = 0;
  for (int r = 0; r < 13; ++r) {
    for (std::size_t i = 0; i < 100; ++i) {
      for (Combining c : {Combining::land, Combining::lor, Combining::lxor}) {
        const auto x = reference::check_value<std::int32_t>(c, 13, r, i);
        ASSERT_TRUE(x == 0 || x == 1);
        ones += x;
      }
    }
  }
  EXPECT_GT(ones, 0);
  EXPECT_LT(ones, 3 * 1300);
}

// The matrices: distinct, and any two neighbours swapped changes the product (mod 1000003 as
// `vmc run` reduces them, and wrapping 32-bit as the harness's Mat3).
TEST(CheckValues, MatricesAreDistinctAndShowTheOrder) {
  const int p = 13;
  for (std::uint64_t modulus : {std::uint64_t{1000003}, std::uint64_t{1} << 32}) {
    auto mul = [modulus](const std::array<std::uint64_t, 9>& a,
                         const std::array<std::uint64_t, 9>& b) {
      std::array<std::uint64_t, 9> c{};
      for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j)
          for (int k = 0; k < 3; ++k)
            c[i * 3 + j] = (c[i * 3 + j] + a[i * 3 + k] * b[k * 3 + j] % modulus) % modulus;
      return c;
    };
    std::set<std::array<std::uint64_t, 9>> seen;
    for (std::size_t i = 0; i < 40; ++i) {
      std::vector<std::array<std::uint64_t, 9>> m(p);
      for (int r = 0; r < p; ++r) {
        m[r] = reference::check_matrix(p, r, i, modulus);
        seen.insert(m[r]);
      }
      auto product = [&](const std::vector<std::array<std::uint64_t, 9>>& x) {
        auto acc = x[0];
        for (int r = 1; r < p; ++r) acc = mul(acc, x[r]);
        return acc;
      };
      const auto in_order = product(m);
      for (int r = 0; r + 1 < p; ++r) {
        auto swapped = m;
        std::swap(swapped[r], swapped[r + 1]);
        EXPECT_NE(product(swapped), in_order) << "modulus " << modulus << " swap " << r;
      }
    }
    EXPECT_EQ(seen.size(), 40u * p);
  }
}

// --- the reference -----------------------------------------------------------------------------

// Inputs that name their origin: rank r's item i is 1000 r + i.
reference::Reference origin_reference(reference::Shape shape, const Op* op = nullptr) {
  return testing::reference_of<std::int64_t>(
      std::move(shape), op, [](int r, std::size_t i) { return std::int64_t(1000 * r + i); });
}
std::vector<std::int64_t> at(reference::Reference& ref, int r) {
  return testing::expected_items<std::int64_t>(ref, r);
}
constexpr std::int64_t kPoisoned = std::int64_t(0xA5A5A5A5A5A5A5A5ull);

TEST(Reference, RegularOperations) {
  const Op sum = ops::sum<std::int64_t>();
  using V = std::vector<std::int64_t>;
  auto bcast = origin_reference({.op = Operation::broadcast, .members = 3, .n = 2, .root = 1});
  EXPECT_EQ(at(bcast, 0), (V{1000, 1001}));
  auto red = origin_reference({.op = Operation::reduce, .members = 3, .n = 2, .root = 2}, &sum);
  EXPECT_EQ(red.result_items(0), 0u);
  EXPECT_EQ(at(red, 2), (V{3000, 3003}));
  auto scan = origin_reference({.op = Operation::scan, .members = 3, .n = 1}, &sum);
  auto exscan = origin_reference({.op = Operation::exscan, .members = 3, .n = 1}, &sum);
  EXPECT_EQ(at(scan, 2), V{3000});  // asked out of order: the prefix starts again
  EXPECT_EQ(at(scan, 0), V{0});
  EXPECT_EQ(at(scan, 1), V{1000});
  EXPECT_EQ(exscan.result_items(0), 0u);
  EXPECT_EQ(at(exscan, 2), V{1000});
  auto ag = origin_reference({.op = Operation::allgather, .members = 3, .n = 1});
  EXPECT_EQ(at(ag, 1), (V{0, 1000, 2000}));
  auto sc = origin_reference({.op = Operation::scatter, .members = 3, .n = 2, .root = 1,
                              .in_place = true});
  EXPECT_EQ(sc.input_items(1), 6u);
  EXPECT_EQ(sc.result_items(1), 0u);  // the root keeps its buffer
  EXPECT_EQ(at(sc, 2), (V{1004, 1005}));
  auto rs = origin_reference({.op = Operation::reduce_scatter, .members = 2, .n = 2}, &sum);
  EXPECT_EQ(at(rs, 1), (V{1004, 1006}));
  auto a2a = origin_reference({.op = Operation::alltoall, .members = 3, .n = 1});
  EXPECT_EQ(at(a2a, 2), (V{2, 1002, 2002}));
  auto barrier = origin_reference({.op = Operation::barrier, .members = 3});
  EXPECT_EQ(barrier.result_items(1), 0u);
}

TEST(Reference, IrregularBlocksLeaveTheGapsAlone) {
  using V = std::vector<std::int64_t>;
  // gatherv: blocks of 1, 0, 2 items at 3, 0, 0... with a gap at 2 and 5.
  auto g = origin_reference({.op = Operation::gatherv, .members = 3, .root = 0,
                             .counts = {1, 0, 2}, .displs = {3, 0, 0}});
  EXPECT_EQ(g.input_items(2), 2u);
  EXPECT_EQ(at(g, 0), (V{2000, 2001, kPoisoned, 0}));
  auto s = origin_reference({.op = Operation::scatterv, .members = 2, .root = 1,
                             .counts = {2, 1}, .displs = {1, 0}});
  EXPECT_EQ(s.input_items(1), 3u);
  EXPECT_EQ(at(s, 0), (V{1001, 1002}));
  const Op sum = ops::sum<std::int64_t>();
  auto rs = origin_reference({.op = Operation::reduce_scatter, .members = 2, .counts = {1, 2}},
                             &sum);
  EXPECT_EQ(rs.input_items(0), 3u);
  EXPECT_EQ(at(rs, 1), (V{1002, 1004}));
  // alltoallv: rank 0 sends 1 item (its item 2) to rank 1, which puts it at 1.
  auto a = origin_reference({.op = Operation::alltoallv, .members = 2,
                             .send_counts = {{0, 1}, {0, 0}},
                             .send_displs = {{0, 2}, {0, 0}},
                             .recv_displs = {{0, 0}, {1, 0}}});
  EXPECT_EQ(at(a, 1), (V{kPoisoned, 2}));
  EXPECT_EQ(a.result_items(0), 0u);
}

TEST(Reference, NonCommutativeOpsFoldInRankOrder) {
  const Op order = testing::order_recorder();
  auto ref = testing::reference_of<testing::Span>(
      {.op = Operation::allreduce, .members = 7, .n = 1}, &order,
      [](int r, std::size_t) { return testing::Span{r, r}; });
  const std::vector<testing::Span> whole = {{0, 6}};
  EXPECT_EQ(testing::expected_items<testing::Span>(ref, 3), whole);
}

TEST(Guarded, CanariesOnBothSides) {
  for (std::ptrdiff_t where : {-1, 3}) {
    reference::Guarded<std::int32_t> g(3);
    EXPECT_TRUE(g.canaries_intact());
    EXPECT_TRUE(g.untouched());
    std::memset(reinterpret_cast<unsigned char*>(g.span().data()) + where * 4, 0, 1);
    EXPECT_FALSE(g.canaries_intact()) << where;
    EXPECT_TRUE(g.untouched());
  }
  reference::Guarded<std::int32_t> g(3);
  g.span()[1] = 7;
  EXPECT_TRUE(g.canaries_intact());
  EXPECT_FALSE(g.untouched());
  EXPECT_EQ(g.get(1), 7);
  const unsigned char in[] = {1, 2};
  reference::GuardedBuffer b(2, 1, in);
  EXPECT_EQ(b.bytes(), (std::vector<unsigned char>{1, 2}));
}

// --- wrong algorithms are caught -------------------------------------------------------------

constexpr int kShift = 5;
int shifted(int r, int p) { return (r + kShift) % p; }
int unshifted(int r, int p) { return (r - kShift % p + p) % p; }
unsigned char* bytes(void* x) { return static_cast<unsigned char*>(x); }
const unsigned char* bytes(const void* x) { return static_cast<const unsigned char*>(x); }

// allgather: every block reaches every rank, but rank r's lands as block (r + 5) mod p.
void allgather_misplaced(const Call& call) {
  const Comm& c = *call.comm;
  const int p = c.size(), r = c.rank();
  const std::size_t block = call.n * call.item_size;
  unsigned char* recv = bytes(call.recv);
  const unsigned char* mine = call.send != nullptr ? bytes(call.send) : recv + r * block;
  const std::vector<unsigned char> own(mine, mine + block);
  for (int k = 1; k < p; ++k) {
    const int to = (r + k) % p, from = (r - k + p) % p;
    c.sendrecv_raw(own.data(), block, call.n, to, recv + shifted(from, p) * block, block,
                   call.item_size, from, call.tag);
  }
  std::copy(own.begin(), own.end(), recv + shifted(r, p) * block);
}

// scatter: the root sends block d to rank (d + 5) mod p.
void scatter_misrouted(const Call& call) {
  const Comm& c = *call.comm;
  const int p = c.size(), r = c.rank();
  const std::size_t block = call.n * call.item_size;
  if (r != call.root) {
    c.recv_raw(call.recv, block, call.item_size, call.root, call.tag);
    return;
  }
  for (int d = 0; d < p; ++d) {
    const unsigned char* from = bytes(call.send) + d * block;
    if (shifted(d, p) == r) {
      if (call.recv != nullptr) std::copy(from, from + block, bytes(call.recv));
    } else {
      c.send_raw(from, block, call.n, shifted(d, p), call.tag);
    }
  }
}

// alltoall: rank s sends its block d to rank (d + 5) mod p, which files it as s's.
void alltoall_misrouted(const Call& call) {
  const Comm& c = *call.comm;
  const int p = c.size(), r = c.rank();
  const std::size_t block = call.n * call.item_size;
  for (int k = 0; k < p; ++k) {
    const int to = (r + k) % p, from = (r - k + p) % p;
    const unsigned char* out = bytes(call.send) + unshifted(to, p) * block;
    if (k == 0) {
      std::copy(out, out + block, bytes(call.recv) + r * block);
    } else {
      c.sendrecv_raw(out, block, call.n, to, bytes(call.recv) + from * block, block,
                     call.item_size, from, call.tag);
    }
  }
}

// reduce_scatter: rank s sends its block d to rank (d + 5) mod p, which combines what it
// gets in rank order: rank d ends with the reduction of block (d - 5) mod p.
void reduce_scatter_misrouted(const Call& call) {
  const Comm& c = *call.comm;
  const int p = c.size(), r = c.rank();
  const std::size_t n = call.n, block = n * call.item_size;
  std::vector<std::vector<unsigned char>> got(p, std::vector<unsigned char>(block));
  for (int k = 0; k < p; ++k) {
    const int to = (r + k) % p, from = (r - k + p) % p;
    const unsigned char* out = bytes(call.send) + unshifted(to, p) * block;
    if (k == 0) std::copy(out, out + block, got[r].begin());
    else c.sendrecv_raw(out, block, n, to, got[from].data(), block, call.item_size, from, call.tag);
  }
  for (int s = 1; s < p; ++s) {
    call.op->apply(got[0].data(), got[s].data(), got[0].data(), n);
    c.charge_combine(n);
  }
  std::copy(got[0].begin(), got[0].end(), bytes(call.recv));
}

// allreduce: rank 0 gathers every vector and combines them starting at rank 5 (x5 x6 ...
// x(p-1) x0 ... x4), then sends the result to everyone: right for a commutative op only.
void allreduce_out_of_order(const Call& call) {
  const Comm& c = *call.comm;
  const int p = c.size(), r = c.rank();
  const std::size_t n = call.n, bytes_n = n * call.item_size;
  const unsigned char* mine = call.send != nullptr ? bytes(call.send) : bytes(call.recv);
  if (r != 0) {
    c.send_raw(mine, bytes_n, n, 0, call.tag);
    c.recv_raw(call.recv, bytes_n, call.item_size, 0, call.tag + 1);
    return;
  }
  std::vector<std::vector<unsigned char>> x(p, std::vector<unsigned char>(bytes_n));
  std::copy(mine, mine + bytes_n, x[0].begin());
  for (int s = 1; s < p; ++s) c.recv_raw(x[s].data(), bytes_n, call.item_size, s, call.tag);
  std::vector<unsigned char> acc = x[shifted(0, p)];
  for (int k = 1; k < p; ++k) {
    call.op->apply(acc.data(), x[shifted(k, p)].data(), acc.data(), n);
    c.charge_combine(n);
  }
  for (int s = 1; s < p; ++s) c.send_raw(acc.data(), bytes_n, n, s, call.tag + 1);
  std::copy(acc.begin(), acc.end(), bytes(call.recv));
}

Picos never_chosen(const CostQuery&) { return Picos{1} << 50; }

struct Wrong {
  Operation op;
  Algorithm row;
  std::string right;  // a built-in row of the same operation that passes
};
const std::vector<Wrong>& wrong_rows() {
  static const std::vector<Wrong> rows = {
      {Operation::allgather, {.name = "misplaced", .cost = never_chosen, .run = allgather_misplaced}, "ring"},
      {Operation::scatter, {.name = "misrouted", .cost = never_chosen, .run = scatter_misrouted}, "linear"},
      {Operation::alltoall, {.name = "misrouted", .cost = never_chosen, .run = alltoall_misrouted}, "ring"},
      {Operation::reduce_scatter, {.name = "misrouted", .cost = never_chosen, .run = reduce_scatter_misrouted}, "pairwise"},
  };
  return rows;
}
const Algorithm kOutOfOrder{.name = "out_of_order", .cost = never_chosen,
                            .run = allreduce_out_of_order};

// Registered once for this program, as a user registers an algorithm: `vmc run --check`
// forces them by name. Their cost keeps auto from choosing them.
void register_wrong_rows() {
  static const bool done = [] {
    for (const Wrong& w : wrong_rows()) register_algorithm(w.op, w.row);
    register_algorithm(Operation::allreduce, kOutOfOrder);
    return true;
  }();
  (void)done;
}

// What `vmc run --check` says of one run on full:p.
bool run_check(Operation op, const std::string& algorithm, int p, std::size_t n,
               const std::string& type, const std::string& reduction, int root = 0) {
  Machine m({.topology = parse_topology("full:" + std::to_string(p))});
  const cli::RunOutcome out = cli::run_collective(
      m, {.op = op, .algorithm = algorithm, .n = n, .root = root, .type = type,
          .reduction = reduction, .check = true});
  EXPECT_TRUE(out.correct.has_value());
  return out.correct.value_or(true);
}

TEST(WrongBlock, VmcRunCheckCatchesABlockAtTheWrongRankAtThirteenNodes) {
  register_wrong_rows();
  for (const Wrong& w : wrong_rows()) {
    const bool combining = w.op == Operation::reduce_scatter;
    for (const std::string type : {"int32", "int64", "float", "double"}) {
      const std::vector<std::string> reductions =
          combining ? std::vector<std::string>{"sum", "max", "min"} : std::vector<std::string>{"sum"};
      for (const std::string& reduction : reductions) {
        for (std::size_t n : {1, 2, 7, 100}) {
          const std::string what = to_string(w.op) + " " + type + " " + reduction + " n " +
                                   std::to_string(n);
          EXPECT_FALSE(run_check(w.op, w.row.name, 13, n, type, reduction, 4)) << what;
          EXPECT_TRUE(run_check(w.op, w.right, 13, n, type, reduction, 4)) << what;
        }
      }
    }
    // The bitwise xor and the matrices (moved or reduced) too.
    EXPECT_FALSE(run_check(w.op, w.row.name, 13, 3, "int64", combining ? "bxor" : "sum"));
    EXPECT_FALSE(run_check(w.op, w.row.name, 13, 3, "int32", "matmul"));
  }
}

TEST(WrongBlock, VmcRunCheckCatchesItAtEveryNodeCount) {
  register_wrong_rows();
  // Every p where the shift moves a block (p = 5 maps every rank to itself).
  for (int p = 2; p <= 40; ++p) {
    if (kShift % p == 0) continue;
    for (const Wrong& w : wrong_rows()) {
      EXPECT_FALSE(run_check(w.op, w.row.name, p, 3, "int32", "sum", p / 2))
          << to_string(w.op) << " p " << p;
    }
  }
}

TEST(WrongBlock, VmcRunCheckCatchesAReductionOutOfRankOrder) {
  register_wrong_rows();
  for (int p : {2, 3, 6, 13, 16}) {
    // Right for a commutative op, wrong for the matrix product.
    EXPECT_TRUE(run_check(Operation::allreduce, "out_of_order", p, 5, "int64", "sum")) << p;
    EXPECT_TRUE(run_check(Operation::allreduce, "out_of_order", p, 5, "float", "sum")) << p;
    EXPECT_FALSE(run_check(Operation::allreduce, "out_of_order", p, 5, "int64", "matmul")) << p;
    EXPECT_TRUE(run_check(Operation::allreduce, "ring", p, 5, "int64", "sum")) << p;
    EXPECT_TRUE(run_check(Operation::allreduce, "recursive_doubling", p, 5, "int64", "matmul"))
        << p;
  }
}

TEST(WrongBlock, TheHarnessCatchesThemAtThirteenNodes) {
  for (const Wrong& w : wrong_rows()) {
    for (const std::string type : {"int32", "int64", "float", "double"}) {
      const harness::Case c =
          harness::parse_case("p=13 n=3 root=4 type=" + type + " op=sum topology=full");
      EXPECT_THAT(harness::run_case(w.op, w.row, c), HasSubstr("wrong result"))
          << to_string(w.op) << " " << type;
      EXPECT_EQ(harness::run_case(w.op, *find_algorithm(w.op, w.right), c), "")
          << to_string(w.op) << " " << type;
    }
  }
  const harness::Case mat = harness::parse_case("p=13 n=3 type=mat3 op=matmul topology=full");
  EXPECT_THAT(harness::run_case(Operation::allreduce, kOutOfOrder, mat), HasSubstr("wrong result"));
  const harness::Case sum = harness::parse_case("p=13 n=3 type=int64 op=sum topology=full");
  EXPECT_EQ(harness::run_case(Operation::allreduce, kOutOfOrder, sum), "");
  // The sweep finds them and shrinks to a p where the shift moves a block.
  harness::Settings s;
  s.max_p = 8;
  s.perturbation = false;
  const harness::Report r = harness::check(Operation::alltoall, wrong_rows()[2].row, s);
  ASSERT_FALSE(r.passed);
  EXPECT_EQ(r.failing->p, 2);
}

}  // namespace
}  // namespace vmc
