#include "tools/mpi_compare.hpp"

#include <mpi.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <numeric>
#include <stdexcept>

#include "collectives/collectives.hpp"
#include "collectives/selection/members.hpp"

namespace vmc::cli {
namespace {

template <class T>
MPI_Datatype mpi_type() {
  if constexpr (std::is_same_v<T, std::int32_t>) return MPI_INT32_T;
  if constexpr (std::is_same_v<T, std::int64_t>) return MPI_INT64_T;
  if constexpr (std::is_same_v<T, float>) return MPI_FLOAT;
  if constexpr (std::is_same_v<T, double>) return MPI_DOUBLE;
}

MPI_Op mpi_op(const std::string& name) {
  static const std::pair<const char*, MPI_Op> table[] = {
      {"sum", MPI_SUM},   {"prod", MPI_PROD}, {"min", MPI_MIN},   {"max", MPI_MAX},
      {"land", MPI_LAND}, {"lor", MPI_LOR},   {"lxor", MPI_LXOR}, {"band", MPI_BAND},
      {"bor", MPI_BOR},   {"bxor", MPI_BXOR}};
  for (const auto& [n, op] : table) {
    if (name == n) return op;
  }
  throw std::invalid_argument("--reduction " + name +
                              " has no MPI counterpart (the MPI transport compares with MPI's "
                              "built-in ops: sum, prod, min, max, land, lor, lxor, band, bor, "
                              "bxor)");
}

std::uint64_t mix(std::uint64_t x) {  // splitmix64's finaliser
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

// Item i of rank r's input: exact under every combining order (see the header).
template <class T>
T item(const std::string& reduction, int rank, std::size_t i) {
  const std::uint64_t h = mix((std::uint64_t(rank) << 40) ^ i);
  if (reduction == "prod") return static_cast<T>(h % 3 + 1 == 3 ? -1 : h % 3 + 1);
  if (reduction == "land" || reduction == "lor" || reduction == "lxor") {
    return static_cast<T>(h % 4 == 0 ? 0 : h % 3);
  }
  if constexpr (std::is_integral_v<T>) {
    if (reduction != "sum") return static_cast<T>(h);  // min, max, bitwise: every bit
  }
  return static_cast<T>(static_cast<std::int64_t>(h % 2001) - 1000);
}

const char* mpi_call_name(Operation op, bool irregular) {
  switch (op) {
    case Operation::broadcast: return "MPI_Bcast";
    case Operation::reduce: return "MPI_Reduce";
    case Operation::allreduce: return "MPI_Allreduce";
    case Operation::scan: return "MPI_Scan";
    case Operation::exscan: return "MPI_Exscan";
    case Operation::barrier: return "MPI_Barrier";
    case Operation::allgather: return "MPI_Allgather";
    case Operation::allgatherv: return "MPI_Allgatherv";
    case Operation::gather: return "MPI_Gather";
    case Operation::gatherv: return "MPI_Gatherv";
    case Operation::scatter: return "MPI_Scatter";
    case Operation::scatterv: return "MPI_Scatterv";
    case Operation::reduce_scatter:
      return irregular ? "MPI_Reduce_scatter" : "MPI_Reduce_scatter_block";
    case Operation::alltoall: return "MPI_Alltoall";
    case Operation::alltoallv: return "MPI_Alltoallv";
  }
  return "?";
}

// One process's buffers of one call: input, result, and the counts and displacements.
template <class T>
struct Buffers {
  std::vector<T> in, out;
  std::vector<std::size_t> counts, displs;            // per rank (v-variants, reduce_scatter)
  std::vector<std::size_t> send_counts, send_displs;  // alltoallv: this rank's blocks out
  std::vector<std::size_t> recv_counts, recv_displs;  //            and in
};

std::vector<std::size_t> prefix(const std::vector<std::size_t>& c) {
  std::vector<std::size_t> d(c.size(), 0);
  for (std::size_t k = 1; k < c.size(); ++k) d[k] = d[k - 1] + c[k - 1];
  return d;
}

std::vector<int> ints(const std::vector<std::size_t>& v) { return {v.begin(), v.end()}; }

template <class T>
Buffers<T> make_buffers(const RunSpec& s, Operation op, int p, int r, bool irregular) {
  Buffers<T> b;
  const std::size_t n = s.n;
  // Block sizes by rank: n, or irregular ones (some 0) that every rank computes alike.
  auto count_of = [&](int k) { return irregular ? (n + 3 * std::size_t(k)) % (n + 2) : n; };
  auto count_from_to = [&](int from, int to) {
    return irregular ? (n + std::size_t(from) * 5 + std::size_t(to) * 3) % (n + 2) : n;
  };
  b.counts.resize(p);
  for (int k = 0; k < p; ++k) b.counts[k] = count_of(k);
  b.displs = prefix(b.counts);
  const std::size_t total = std::accumulate(b.counts.begin(), b.counts.end(), std::size_t{0});
  auto input = [&](std::size_t len) {
    std::vector<T> v(len);
    for (std::size_t i = 0; i < len; ++i) v[i] = item<T>(s.reduction, r, i);
    return v;
  };
  const std::size_t np = n * p;
  switch (op) {
    case Operation::broadcast:
      b.out = r == s.root ? input(n) : std::vector<T>(n);
      break;
    case Operation::reduce:
      b.in = input(n);
      b.out.assign(r == s.root ? n : 0, T{});
      break;
    case Operation::allreduce:
    case Operation::scan:
    case Operation::exscan:
      b.in = input(n);
      b.out.assign(n, T{});
      break;
    case Operation::barrier: break;
    case Operation::allgather:
      b.in = input(n);
      b.out.assign(np, T{});
      break;
    case Operation::allgatherv:
      b.in = input(b.counts[r]);
      b.out.assign(total, T{});
      break;
    case Operation::gather:
      b.in = input(n);
      b.out.assign(r == s.root ? np : 0, T{});
      break;
    case Operation::gatherv:
      b.in = input(b.counts[r]);
      b.out.assign(r == s.root ? total : 0, T{});
      break;
    case Operation::scatter:
      b.in = input(r == s.root ? np : 0);
      b.out.assign(n, T{});
      break;
    case Operation::scatterv:
      b.in = input(r == s.root ? total : 0);
      b.out.assign(b.counts[r], T{});
      break;
    case Operation::reduce_scatter:
      b.in = input(irregular ? total : np);
      b.out.assign(irregular ? b.counts[r] : n, T{});
      break;
    case Operation::alltoall:
      b.in = input(np);
      b.out.assign(np, T{});
      break;
    case Operation::alltoallv:
      for (int k = 0; k < p; ++k) {
        b.send_counts.push_back(count_from_to(r, k));
        b.recv_counts.push_back(count_from_to(k, r));
      }
      b.send_displs = prefix(b.send_counts);
      b.recv_displs = prefix(b.recv_counts);
      b.in = input(std::accumulate(b.send_counts.begin(), b.send_counts.end(), std::size_t{0}));
      b.out.assign(std::accumulate(b.recv_counts.begin(), b.recv_counts.end(), std::size_t{0}),
                   T{});
      break;
  }
  return b;
}

template <class T>
void call_vmc(const Comm& c, Operation operation, Buffers<T>& b, const Op* op, int root,
              bool irregular, const Options& opts) {
  auto in = std::span<const T>(b.in);
  auto out = std::span<T>(b.out);
  switch (operation) {
    case Operation::broadcast: broadcast(c, out, root, opts); break;
    case Operation::reduce: reduce(c, in, out, *op, root, opts); break;
    case Operation::allreduce: allreduce(c, in, out, *op, opts); break;
    case Operation::scan: scan(c, in, out, *op, opts); break;
    case Operation::exscan: exscan(c, in, out, *op, opts); break;
    case Operation::barrier: barrier(c, opts); break;
    case Operation::allgather: allgather(c, in, out, opts); break;
    case Operation::allgatherv: allgatherv(c, in, out, b.counts, b.displs, opts); break;
    case Operation::gather: gather(c, in, out, root, opts); break;
    case Operation::gatherv: gatherv(c, in, out, b.counts, b.displs, root, opts); break;
    case Operation::scatter: scatter(c, in, out, root, opts); break;
    case Operation::scatterv: scatterv(c, in, b.counts, b.displs, out, root, opts); break;
    case Operation::reduce_scatter:
      if (irregular) {
        reduce_scatter(c, in, out, std::span<const std::size_t>(b.counts), *op, opts);
      } else {
        reduce_scatter(c, in, out, *op, opts);
      }
      break;
    case Operation::alltoall: alltoall(c, in, out, opts); break;
    case Operation::alltoallv:
      alltoallv(c, in, b.send_counts, b.send_displs, out, b.recv_counts, b.recv_displs, opts);
      break;
  }
}

template <class T>
void call_mpi(MPI_Comm c, Operation operation, Buffers<T>& b, MPI_Op op, int root, std::size_t n,
              bool irregular) {
  const MPI_Datatype t = mpi_type<T>();
  const int cn = static_cast<int>(n);
  T* in = b.in.data();
  T* out = b.out.data();
  switch (operation) {
    case Operation::broadcast: MPI_Bcast(out, cn, t, root, c); break;
    case Operation::reduce: MPI_Reduce(in, out, cn, t, op, root, c); break;
    case Operation::allreduce: MPI_Allreduce(in, out, cn, t, op, c); break;
    case Operation::scan: MPI_Scan(in, out, cn, t, op, c); break;
    case Operation::exscan: MPI_Exscan(in, out, cn, t, op, c); break;
    case Operation::barrier: MPI_Barrier(c); break;
    case Operation::allgather: MPI_Allgather(in, cn, t, out, cn, t, c); break;
    case Operation::allgatherv: {
      const auto counts = ints(b.counts), displs = ints(b.displs);
      MPI_Allgatherv(in, static_cast<int>(b.in.size()), t, out, counts.data(), displs.data(), t,
                     c);
      break;
    }
    case Operation::gather: MPI_Gather(in, cn, t, out, cn, t, root, c); break;
    case Operation::gatherv: {
      const auto counts = ints(b.counts), displs = ints(b.displs);
      MPI_Gatherv(in, static_cast<int>(b.in.size()), t, out, counts.data(), displs.data(), t,
                  root, c);
      break;
    }
    case Operation::scatter: MPI_Scatter(in, cn, t, out, cn, t, root, c); break;
    case Operation::scatterv: {
      const auto counts = ints(b.counts), displs = ints(b.displs);
      MPI_Scatterv(in, counts.data(), displs.data(), t, out, static_cast<int>(b.out.size()), t,
                   root, c);
      break;
    }
    case Operation::reduce_scatter:
      if (irregular) {
        const auto counts = ints(b.counts);
        MPI_Reduce_scatter(in, out, counts.data(), t, op, c);
      } else {
        MPI_Reduce_scatter_block(in, out, cn, t, op, c);
      }
      break;
    case Operation::alltoall: MPI_Alltoall(in, cn, t, out, cn, t, c); break;
    case Operation::alltoallv: {
      const auto sc = ints(b.send_counts), sd = ints(b.send_displs);
      const auto rc = ints(b.recv_counts), rd = ints(b.recv_displs);
      MPI_Alltoallv(in, sc.data(), sd.data(), t, out, rc.data(), rd.data(), t, c);
      break;
    }
  }
}

// The fastest and the median of the times of the repetitions (each already the slowest
// process's).
std::pair<double, double> fastest_and_median(std::vector<double> slowest) {
  if (slowest.empty()) return {0, 0};
  std::sort(slowest.begin(), slowest.end());
  return {slowest.front(), slowest[slowest.size() / 2]};
}

template <class T>
MpiComparison compare_typed(Machine& m, const RunSpec& s, int repeats, bool irregular,
                            bool comm_reversed) {
  const Operation operation = s.op;
  const int p = m.size();
  std::optional<Op> op;
  MPI_Op mop = MPI_OP_NULL;
  if (traits(operation).combines) {
    op = ops::named<T>(s.reduction);
    if (!op) {
      throw std::invalid_argument("reduction \"" + s.reduction + "\" is not defined for --type " +
                                  s.type);
    }
    mop = mpi_op(s.reduction);
  }
  if (s.root < 0 || s.root >= p) {
    throw std::invalid_argument("--root " + std::to_string(s.root) + " is not a node of " +
                                m.topology().spec());
  }
  Options opts;
  opts.algorithm = s.algorithm;
  opts.segment_items = s.segment_items;
  opts.strategy = s.strategy;
  opts.hybrid = s.hybrid;
  opts.dopl_steps = s.dopl_steps;

  MpiComparison result;
  result.mpi_call = mpi_call_name(operation, irregular);
  {
    CostQuery q = make_query(m.topology(), m.config().model, p,
                             operation == Operation::barrier ? 0 : s.n, s.root, sizeof(T),
                             true, opts);
    if (traits(operation).rank_counts) q.counts.assign(p, s.n);
    const Algorithm& chosen = *choose(operation, q).row;
    result.algorithm = chosen.name;
    result.predicted = chosen.cost(row_query(operation, chosen, q));
  }

  int world_rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
  // The communicator MPI's collective runs on: the world, or the world reversed.
  MPI_Comm mpi_comm = MPI_COMM_WORLD;
  if (comm_reversed) MPI_Comm_split(MPI_COMM_WORLD, 0, p - 1 - world_rank, &mpi_comm);
  const int r = comm_reversed ? p - 1 - world_rank : world_rank;

  Buffers<T> mine = make_buffers<T>(s, operation, p, r, irregular);
  Buffers<T> theirs = mine;
  std::vector<double> vmc_times, mpi_times;
  m.run([&](Node& node) {
    const Comm c = comm_reversed ? node.world().split(0, p - 1 - node.rank()) : node.world();
    for (int k = 0; k < repeats; ++k) {
      Buffers<T> b = make_buffers<T>(s, operation, p, r, irregular);
      MPI_Barrier(MPI_COMM_WORLD);
      const double t0 = MPI_Wtime();
      call_vmc(c, operation, b, op ? &*op : nullptr, s.root, irregular, opts);
      vmc_times.push_back(MPI_Wtime() - t0);
      if (k == 0) mine = std::move(b);
    }
  });
  for (int k = 0; k < repeats; ++k) {
    Buffers<T> b = make_buffers<T>(s, operation, p, r, irregular);
    MPI_Barrier(MPI_COMM_WORLD);
    const double t0 = MPI_Wtime();
    call_mpi(mpi_comm, operation, b, mop, s.root, s.n, irregular);
    mpi_times.push_back(MPI_Wtime() - t0);
    if (k == 0) theirs = std::move(b);
  }
  if (comm_reversed) MPI_Comm_free(&mpi_comm);

  // Compare bit for bit (exscan: rank 0's result is undefined in MPI).
  std::string difference;
  const bool skip = operation == Operation::exscan && r == 0;
  if (!skip) {
    if (mine.out.size() != theirs.out.size()) {
      difference = "rank " + std::to_string(r) + ": " + std::to_string(mine.out.size()) +
                   " items, MPI's " + std::to_string(theirs.out.size());
    }
    for (std::size_t i = 0; difference.empty() && i < mine.out.size(); ++i) {
      if (std::memcmp(&mine.out[i], &theirs.out[i], sizeof(T)) != 0) {
        difference = "rank " + std::to_string(r) + " item " + std::to_string(i) + ": vmc " +
                     std::to_string(mine.out[i]) + ", " + result.mpi_call + " " +
                     std::to_string(theirs.out[i]);
      }
    }
  }
  // One allreduce (max) tells every process each repetition's slowest time and the first
  // process that found a difference (as minus its rank, -p for none).
  std::vector<double> mine_all = vmc_times;
  mine_all.insert(mine_all.end(), mpi_times.begin(), mpi_times.end());
  mine_all.push_back(difference.empty() ? -double(p) : -double(world_rank));
  std::vector<double> all(mine_all.size());
  MPI_Allreduce(mine_all.data(), all.data(), static_cast<int>(all.size()), MPI_DOUBLE, MPI_MAX,
                MPI_COMM_WORLD);
  const auto k = static_cast<std::ptrdiff_t>(repeats);
  std::tie(result.vmc_fastest, result.vmc_median) =
      fastest_and_median({all.begin(), all.begin() + k});
  std::tie(result.mpi_fastest, result.mpi_median) =
      fastest_and_median({all.begin() + k, all.begin() + 2 * k});
  const int first = static_cast<int>(-all.back());
  if (first < p) {
    int len = static_cast<int>(difference.size());
    MPI_Bcast(&len, 1, MPI_INT, first, MPI_COMM_WORLD);
    difference.resize(static_cast<std::size_t>(len));
    MPI_Bcast(difference.data(), len, MPI_CHAR, first, MPI_COMM_WORLD);
    result.difference = difference;
  }
  return result;
}

}  // namespace

MpiComparison compare_with_mpi(Machine& m, const RunSpec& spec, int repeats, bool irregular,
                               bool comm_reversed) {
  if (m.config().transport != Transport::mpi) {
    throw std::invalid_argument("compare_with_mpi: the machine does not use the MPI transport");
  }
  if (m.config().mpi_communicator) {
    throw std::invalid_argument("compare_with_mpi: the machine runs on a communicator of its "
                                "own; the comparison runs on MPI_COMM_WORLD's processes");
  }
  if (repeats < 1) throw std::invalid_argument("--repeat must be at least 1");
  if (spec.reduction == "matmul") mpi_op(spec.reduction);  // throws: no counterpart
  if (spec.type == "int32") return compare_typed<std::int32_t>(m, spec, repeats, irregular, comm_reversed);
  if (spec.type == "int64") return compare_typed<std::int64_t>(m, spec, repeats, irregular, comm_reversed);
  if (spec.type == "float") return compare_typed<float>(m, spec, repeats, irregular, comm_reversed);
  if (spec.type == "double") return compare_typed<double>(m, spec, repeats, irregular, comm_reversed);
  throw std::invalid_argument("unknown --type \"" + spec.type +
                              "\": expected int32, int64, float or double");
}

}  // namespace vmc::cli
