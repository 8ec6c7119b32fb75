#include "tools/runner.hpp"

#include <cmath>
#include <cstdint>
#include <stdexcept>

#include "collectives/collectives.hpp"

namespace vmc::cli {
namespace {

struct Mat3 {
  std::int64_t m[9];
};
Mat3 mul(const Mat3& a, const Mat3& b) {
  Mat3 c{};
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j)
      for (int k = 0; k < 3; ++k) c.m[i * 3 + j] += a.m[i * 3 + k] * b.m[k * 3 + j];
  for (auto& x : c.m) x %= 1000003;  // keeps products of many matrices bounded
  return c;
}

template <class T>
T item(int rank, std::size_t i) {
  if constexpr (std::is_same_v<T, Mat3>) {
    Mat3 a{};
    for (int k = 0; k < 9; ++k) a.m[k] = static_cast<std::int64_t>((rank * 3 + i + k * 5) % 4);
    return a;
  } else {
    return static_cast<T>((rank * 7 + i * 3) % 5 + 1);
  }
}

template <class T>
Op make_op(const std::string& name) {
  if constexpr (std::is_same_v<T, Mat3>) {
    if (name != "matmul") throw std::invalid_argument("--type matrix needs --reduction matmul");
    return ops::custom<Mat3>("matmul", false, mul);
  } else {
    if (std::optional<Op> op = ops::named<T>(name)) return *op;
    throw std::invalid_argument("reduction \"" + name + "\" is not defined for this --type " +
                                "(expected sum, prod, min, max, land, lor, lxor, band, bor, " +
                                "bxor (integers) or matmul)");
  }
}

template <class T>
bool same(const T& a, const T& b) {
  if constexpr (std::is_same_v<T, Mat3>) {
    for (int k = 0; k < 9; ++k)
      if (a.m[k] != b.m[k]) return false;
    return true;
  } else if constexpr (std::is_floating_point_v<T>) {
    if (std::isnan(a) || std::isnan(b)) return std::isnan(a) && std::isnan(b);
    if (a == b) return true;
    return std::fabs(a - b) <= 1e-5 * std::max(std::fabs(a), std::fabs(b));
  } else {
    return a == b;
  }
}

template <class T>
RunOutcome run_typed(Machine& m, const RunSpec& o, Operation operation) {
  const int p = m.size();
  const std::size_t n = o.n;
  const bool combines = operation == Operation::reduce || operation == Operation::allreduce ||
                        operation == Operation::scan || operation == Operation::exscan ||
                        operation == Operation::reduce_scatter;
  std::optional<Op> op;
  if (combines) op = make_op<T>(o.reduction);
  Options opts;
  opts.algorithm = o.algorithm;
  opts.segment_items = o.segment_items;
  opts.strategy = o.strategy;
  if (o.root < 0 || o.root >= p) {
    throw std::invalid_argument("--root " + std::to_string(o.root) + " is not a node of " +
                                m.topology().spec());
  }
  const int root = o.root;
  // The query the dispatcher will build, to name the algorithm and predict its time.
  CostQuery q = make_query(m.topology(), m.config().model, p,
                           operation == Operation::barrier ? 0 : n, root, sizeof(T),
                           !op || op->commutative(), opts);
  const bool vvariant = operation == Operation::scatterv || operation == Operation::gatherv ||
                        operation == Operation::allgatherv || operation == Operation::alltoallv;
  if (vvariant) q.counts.assign(p, n);
  const Algorithm& chosen = select_algorithm(operation, q);
  RunOutcome out;
  out.algorithm = chosen.name;
  out.predicted = chosen.cost(q);
  if (chosen.detail != nullptr) out.detail = chosen.detail(q);

  const std::size_t np = n * p;
  std::vector<std::size_t> counts(p, n), displs(p);
  for (int r = 0; r < p; ++r) displs[r] = r * n;
  auto input = [&](int r, std::size_t len) {
    std::vector<T> v(len);
    for (std::size_t i = 0; i < len; ++i) v[i] = item<T>(r, i);
    return v;
  };
  std::vector<std::vector<T>> results(p);
  out.result = m.run([&](Node& node) {
    const Comm& c = node.world();
    const int r = node.rank();
    std::vector<T> recv;
    switch (operation) {
      case Operation::broadcast: {
        recv = r == root ? input(r, n) : std::vector<T>(n);
        broadcast(c, std::span(recv), root, opts);
        break;
      }
      case Operation::reduce: {
        auto x = input(r, n);
        recv.resize(r == root ? n : 0);
        reduce(c, std::span<const T>(x), std::span(recv), *op, root, opts);
        break;
      }
      case Operation::allreduce:
      case Operation::scan:
      case Operation::exscan: {
        auto x = input(r, n);
        recv.resize(n);
        if (operation == Operation::allreduce) allreduce(c, std::span<const T>(x), std::span(recv), *op, opts);
        if (operation == Operation::scan) scan(c, std::span<const T>(x), std::span(recv), *op, opts);
        if (operation == Operation::exscan) exscan(c, std::span<const T>(x), std::span(recv), *op, opts);
        break;
      }
      case Operation::barrier: barrier(c, opts); break;
      case Operation::allgather:
      case Operation::allgatherv: {
        auto x = input(r, n);
        recv.resize(np);
        if (operation == Operation::allgather) allgather(c, std::span<const T>(x), std::span(recv), opts);
        else allgatherv(c, std::span<const T>(x), std::span(recv), counts, displs, opts);
        break;
      }
      case Operation::gather:
      case Operation::gatherv: {
        auto x = input(r, n);
        recv.resize(r == root ? np : 0);
        if (operation == Operation::gather) gather(c, std::span<const T>(x), std::span(recv), root, opts);
        else gatherv(c, std::span<const T>(x), std::span(recv), counts, displs, root, opts);
        break;
      }
      case Operation::scatter:
      case Operation::scatterv: {
        auto x = r == root ? input(r, np) : std::vector<T>();
        recv.resize(n);
        if (operation == Operation::scatter) scatter(c, std::span<const T>(x), std::span(recv), root, opts);
        else scatterv(c, std::span<const T>(x), counts, displs, std::span(recv), root, opts);
        break;
      }
      case Operation::reduce_scatter: {
        auto x = input(r, np);
        recv.resize(n);
        reduce_scatter(c, std::span<const T>(x), std::span(recv), *op, opts);
        break;
      }
      case Operation::alltoall:
      case Operation::alltoallv: {
        auto x = input(r, np);
        recv.resize(np);
        if (operation == Operation::alltoall) alltoall(c, std::span<const T>(x), std::span(recv), opts);
        else alltoallv(c, std::span<const T>(x), counts, displs, std::span(recv), counts, displs, opts);
        break;
      }
    }
    results[r] = std::move(recv);
  });
  if (!o.check) return out;

  // Sequential references.
  auto fold = [&](int first, int last, std::size_t offset, std::size_t len) {
    std::vector<T> acc = input(first, offset + len);
    acc.erase(acc.begin(), acc.begin() + offset);
    for (int r = first + 1; r <= last; ++r) {
      auto x = input(r, offset + len);
      op->apply(acc.data(), x.data() + offset, acc.data(), len);
    }
    return acc;
  };
  bool ok = true;
  auto expect = [&](int r, const std::vector<T>& want) {
    if (results[r].size() != want.size()) {
      ok = false;
      return;
    }
    for (std::size_t i = 0; i < want.size() && ok; ++i) ok = same(results[r][i], want[i]);
  };
  for (int r = 0; r < p && ok; ++r) {
    switch (operation) {
      case Operation::broadcast: expect(r, input(root, n)); break;
      case Operation::reduce:
        if (r == root) expect(r, fold(0, p - 1, 0, n));
        break;
      case Operation::allreduce: expect(r, fold(0, p - 1, 0, n)); break;
      case Operation::scan: expect(r, fold(0, r, 0, n)); break;
      case Operation::exscan:
        if (r > 0) expect(r, fold(0, r - 1, 0, n));
        break;
      case Operation::barrier: break;
      case Operation::allgather:
      case Operation::allgatherv:
      case Operation::gather:
      case Operation::gatherv: {
        if ((operation == Operation::gather || operation == Operation::gatherv) && r != root) break;
        std::vector<T> want;
        for (int s = 0; s < p; ++s) {
          auto x = input(s, n);
          want.insert(want.end(), x.begin(), x.end());
        }
        expect(r, want);
        break;
      }
      case Operation::scatter:
      case Operation::scatterv: {
        auto x = input(root, np);
        expect(r, std::vector<T>(x.begin() + r * n, x.begin() + (r + 1) * n));
        break;
      }
      case Operation::reduce_scatter: expect(r, fold(0, p - 1, r * n, n)); break;
      case Operation::alltoall:
      case Operation::alltoallv: {
        std::vector<T> want;
        for (int s = 0; s < p; ++s) {
          auto x = input(s, np);
          want.insert(want.end(), x.begin() + r * n, x.begin() + (r + 1) * n);
        }
        expect(r, want);
        break;
      }
    }
  }
  out.correct = ok;
  return out;
}

}  // namespace

std::size_t item_bytes(const RunSpec& o) {
  if (o.reduction == "matmul") return sizeof(Mat3);
  if (o.type == "int32" || o.type == "float") return 4;
  if (o.type == "int64" || o.type == "double") return 8;
  throw std::invalid_argument("unknown --type \"" + o.type +
                              "\": expected int32, int64, float or double");
}

bool commutative(const RunSpec& o) { return o.reduction != "matmul"; }

std::size_t data_bytes(const RunSpec& o, int p) {
  // Items of the input and the result summed over the nodes, as run_typed above allocates
  // them (the root's np for rooted gathers and scatters is counted on every node: a bound).
  const auto P = static_cast<std::size_t>(p);
  std::size_t blocks_per_node = 0;  // in units of n items
  switch (o.op) {
    case Operation::barrier: blocks_per_node = 0; break;
    case Operation::broadcast:
    case Operation::reduce:
    case Operation::allreduce:
    case Operation::scan:
    case Operation::exscan: blocks_per_node = 2; break;
    case Operation::allgather:
    case Operation::allgatherv:
    case Operation::gather:
    case Operation::gatherv:
    case Operation::scatter:
    case Operation::scatterv:
    case Operation::reduce_scatter:
      if (P > SIZE_MAX / 2) return SIZE_MAX;
      blocks_per_node = P + 1;
      break;
    case Operation::alltoall:
    case Operation::alltoallv:
      if (P > SIZE_MAX / 2) return SIZE_MAX;
      blocks_per_node = 2 * P;
      break;
  }
  if (blocks_per_node == 0) return 0;
  const std::size_t per_item = item_bytes(o);
  if (o.n > SIZE_MAX / per_item / blocks_per_node / P) return SIZE_MAX;
  return o.n * per_item * blocks_per_node * P;
}

CostQuery run_query(const Topology& topology, const Model& model, const RunSpec& o) {
  const int p = topology.nodes();
  Options opts;
  opts.algorithm = o.algorithm;
  opts.segment_items = o.segment_items;
  opts.strategy = o.strategy;
  CostQuery q = make_query(topology, model, p, o.op == Operation::barrier ? 0 : o.n, o.root,
                           item_bytes(o), commutative(o), opts);
  if (o.op == Operation::scatterv || o.op == Operation::gatherv ||
      o.op == Operation::allgatherv || o.op == Operation::alltoallv) {
    q.counts.assign(p, o.n);
  }
  return q;
}

RunOutcome run_collective(Machine& m, const RunSpec& o) {
  if (o.reduction == "matmul" && o.type != "int64" && o.type != "int32") {
    throw std::invalid_argument("--reduction matmul runs on its own 3x3 integer matrix type; "
                                "leave --type at int32 or int64");
  }
  if (o.reduction == "matmul") return run_typed<Mat3>(m, o, o.op);
  if (o.type == "int32") return run_typed<std::int32_t>(m, o, o.op);
  if (o.type == "int64") return run_typed<std::int64_t>(m, o, o.op);
  if (o.type == "float") return run_typed<float>(m, o, o.op);
  if (o.type == "double") return run_typed<double>(m, o, o.op);
  throw std::invalid_argument("unknown --type \"" + o.type +
                              "\": expected int32, int64, float or double");
}

}  // namespace vmc::cli
