// The hybrid global combine of 000 §3.4 (Fig. 4) and §5 (Fig. 6). See hybrid_combine.hpp.
//
// Cost (p = 2^d, n divisible by 2^d): T(S, n, d) of 000 §3.4, exactly, on a hypercube with
// exchange ports and wormhole routing (every exchange is between cube neighbours, one
// partner at a time) and under direct routing. Other p add the fold (see hybrid_combine.hpp).
#include "collectives/global_combine/hybrid_combine.hpp"

#include <cstring>
#include <vector>

#include "collectives/costs/claims.hpp"
#include "collectives/patterns/binomial.hpp"
#include "collectives/primitives/p2p.hpp"
#include "runtime/errors.hpp"
#include "runtime/scratch.hpp"

namespace vmc::global_combine {

int cube_dimension(int p) {
  int d = 0;
  while ((2 << d) <= p) ++d;
  return d;
}

Strategy strategy_for(Choice choice, const CostQuery& q, bool to_root) {
  const int d = cube_dimension(q.p);
  switch (choice) {
    case Choice::given: return Strategy(q.options.strategy.begin(), q.options.strategy.end());
    case Choice::optimal: return optimal_strategy(q.n, d, q.units, to_root);
    case Choice::section6:
      return section6_strategy(q.n, d, q.units, q.units.short_max_items, to_root);
  }
  return {};
}

bool applicable(Choice choice, const CostQuery& q) {
  if (!q.commutative) return false;
  if (choice != Choice::given) return true;
  if (static_cast<int>(q.options.strategy.size()) != cube_dimension(q.p)) return false;
  for (int s : q.options.strategy) {
    if (s != 0 && s != 1) return false;
  }
  return true;
}

namespace {

bool extras(int p) { return p != (1 << cube_dimension(p)); }

Picos fold_in(const CostQuery& q) {
  return q.n == 0 ? 0 : q.units.message(q.n) + q.units.combine(q.n);
}

}  // namespace

Picos allreduce_cost(Choice choice, const CostQuery& q) {
  Picos t = cost(strategy_for(choice, q, false), q.n, q.units);
  if (extras(q.p) && q.n > 0) t += fold_in(q) + q.units.message(q.n);
  return t;
}

Picos reduce_cost(Choice choice, const CostQuery& q) {
  Picos t = cost(strategy_for(choice, q, true), q.n, q.units, true);
  if (extras(q.p) && q.n > 0) t += fold_in(q);
  return t;
}

namespace {

// One node's view of a hybrid run on the cube of the nodes with virtual ranks 0..2^d-1.
class Cube {
 public:
  Cube(const Call& call, const Strategy& s, const patterns::Rooted& vr, bool to_root)
      : c_(*call.comm), op_(*call.op), size_(call.item_size), tag_(call.tag + 1), s_(s),
        vr_(vr), vme_(vr.to_virtual(call.comm->rank())), to_root_(to_root),
        scratch_(call.n * call.item_size) {}

  // Combines x[0, n) over directions j-1 .. 0 (000 Fig. 4, or Fig. 6 when to_root).
  // Returns false if this node left the computation (Fig. 6: it sent its vector away).
  bool combine(char* x, std::size_t n, int j) {
    if (j == 0) return true;
    const int dir = j - 1;
    const int partner = real(vme_ ^ (1 << dir));
    const bool upper = (vme_ >> dir) & 1;
    const Tag tag = tag_ + dir;
    if (s_[dir] == 0) {
      if (to_root_ && upper) {
        internal::send_items(c_, x, n, size_, partner, tag);
        return false;
      }
      if (to_root_) internal::recv_items(c_, scratch_.data(), n, size_, partner, tag);
      else internal::sendrecv_items(c_, x, n, partner, scratch_.data(), n, partner, size_, tag);
      apply(x, n, upper);
      return combine(x, n, dir);
    }
    // Halve: keep x0 (the first ceil(n/2) items) or x1, exchange the other half.
    const std::size_t n0 = upper_half(n), n1 = n / 2;
    char* x0 = x;
    char* x1 = x + n0 * size_;
    char* keep = upper ? x1 : x0;
    char* give = upper ? x0 : x1;
    const std::size_t nkeep = upper ? n1 : n0, ngive = upper ? n0 : n1;
    internal::sendrecv_items(c_, give, ngive, partner, scratch_.data(), nkeep, partner, size_,
                             tag);
    apply(keep, nkeep, upper);
    const bool holds = combine(keep, nkeep, dir);
    // Send back: each side sends the half it finished and receives the other. Toward a
    // root only the node whose lower bits are zero holds a finished half, and only the
    // upper one sends.
    const Tag back = tag_ + 64 + dir;
    if (!to_root_) {
      internal::sendrecv_items(c_, keep, nkeep, partner, give, ngive, partner, size_, back);
      return true;
    }
    if (!holds) return false;
    if (upper) {
      internal::send_items(c_, keep, nkeep, size_, partner, back);
      return false;
    }
    internal::recv_items(c_, give, ngive, size_, partner, back);
    return true;
  }

 private:
  const Comm& c_;
  const Op& op_;
  std::size_t size_;
  Tag tag_;
  const Strategy& s_;
  patterns::Rooted vr_;
  int vme_;
  bool to_root_;
  Bytes scratch_;

  int real(int v) const { return vr_.to_real(v); }
  // x = (lower rank's operand) op (upper's); charge the combine.
  void apply(char* x, std::size_t n, bool upper) {
    if (n == 0) return;
    if (upper) op_.apply(scratch_.data(), x, x, n);
    else op_.apply(x, scratch_.data(), x, n);
    c_.charge_combine(n);
  }
};

void run(Choice choice, const Call& call, bool to_root) {
  const Comm& comm = *call.comm;
  const int p = comm.size();
  const std::size_t bytes = call.n * call.item_size;
  char* x = static_cast<char*>(call.recv);
  Bytes local;
  if (to_root && comm.rank() != call.root) {
    local.resize(bytes);  // non-roots combine in a buffer of their own
    x = local.data();
  }
  // In place (send == nullptr) the input is in recv on every node.
  const void* input = call.send != nullptr ? call.send : call.recv;
  copy_data(x, input, bytes);
  if (p == 1) return;

  const int d = cube_dimension(p);
  const int cube = 1 << d;
  // XOR on a cube, so a root other than 0 keeps every exchange on one cube link.
  const patterns::Rooted vr(p, to_root ? call.root : 0);
  const int vme = vr.to_virtual(comm.rank());
  const Tag fold = call.tag;

  CostQuery q;
  q.p = p;
  q.n = call.n;
  q.units = comm.units();
  q.options = *call.options;
  const Strategy s = strategy_for(choice, q, to_root);

  // Fold the nodes beyond the cube into it.
  if (vme >= cube) {
    internal::send_items(comm, x, call.n, call.item_size, vr.to_real(vme - cube), fold);
    if (!to_root) {
      internal::recv_items(comm, x, call.n, call.item_size, vr.to_real(vme - cube), fold);
    }
    return;
  }
  const bool has_extra = vme + cube < p;
  if (has_extra && call.n > 0) {
    Bytes y(bytes);
    internal::recv_items(comm, y.data(), call.n, call.item_size, vr.to_real(vme + cube),
                         fold);
    call.op->apply(x, y.data(), x, call.n);
    comm.charge_combine(call.n);
  }
  Cube(call, s, vr, to_root).combine(x, call.n, d);
  if (has_extra && !to_root) {
    internal::send_items(comm, x, call.n, call.item_size, vr.to_real(vme + cube), fold);
  }
}

}  // namespace

void allreduce(Choice choice, const Call& call) { run(choice, call, false); }
void reduce(Choice choice, const Call& call) { run(choice, call, true); }

namespace {

template <Choice C, bool ToRoot>
std::string detail(const CostQuery& q) {
  return "S = " + to_string(strategy_for(C, q, ToRoot)) + " (S_0 first; 1 halves)";
}

// Claims of the formulas (collectives/costs/claims.hpp). On p = 2^d nodes (no extras)
// and ports other than `half` the allreduce schedule is 000 §3.4's, exactly. The
// combine-to-root (000 Fig. 6) is exact when 2^d divides n; with uneven halves the eager
// send-backs of the smaller halves can take a busy node's port, either way (an estimate).
// With extras folded in, the optimal and §6 allreduce start their cube steps late (a lower
// bound when 2^d divides n; uneven halves make it an estimate), and a given S can also
// gain from early starts (an estimate).
bool divides_n(const CostQuery& q) {
  return q.n % (std::size_t{1} << cube_dimension(q.p)) == 0;
}
Claim claim_allreduce_given(const CostQuery& q) {
  using namespace internal;
  if (is_power_of_two(q.p) && q.model.port != Port::half) return on_machine(q, Claim::exact, true);
  return Claim::estimate;
}
Claim claim_allreduce_chosen(const CostQuery& q) {
  using namespace internal;
  if (is_power_of_two(q.p) && q.model.port != Port::half) return on_machine(q, Claim::exact, true);
  return divides_n(q) ? on_machine(q, Claim::lower_bound, true) : Claim::estimate;
}
Claim claim_reduce_given(const CostQuery& q) {
  using namespace internal;
  if (is_power_of_two(q.p) && q.model.port != Port::half && divides_n(q)) {
    return on_machine(q, Claim::exact, true);  // virtual ranks me XOR root
  }
  return Claim::estimate;
}
Claim claim_reduce_chosen(const CostQuery& q) {
  using namespace internal;
  if (is_power_of_two(q.p) && (q.model.port != Port::half || q.p <= 2) && divides_n(q)) {
    return on_machine(q, Claim::exact, true);  // virtual ranks me XOR root
  }
  return Claim::estimate;
}

constexpr const char* kRequires = "a commutative op";
constexpr const char* kRequiresGiven =
    "a commutative op and Options::strategy of log2(largest power of two <= p) digits";

}  // namespace

// Registry rows: allreduce `hybrid`, `hybrid_optimal`, `hybrid_section6` and reduce
// `hybrid`, `hybrid_optimal`, `hybrid_section6` (their tables' lines: below).
std::vector<Algorithm> allreduce_rows() {
  return {
      {"hybrid",
       "000 Fig. 4 hybridCOMB with a given strategy S: whole-vector (Version 2) or halving "
       "(Version 3) steps per cube direction; extra nodes folded in",
       kRequiresGiven, [](const CostQuery& q) { return applicable(Choice::given, q); },
       [](const CostQuery& q) { return allreduce_cost(Choice::given, q); },
       [](const Call& c) { allreduce(Choice::given, c); }, &detail<Choice::given, false>,
       claim_allreduce_given},
      {"hybrid_optimal",
       "000 Fig. 4 with the least-cost strategy (Theorem 1's, checked by dynamic programming)",
       kRequires, [](const CostQuery& q) { return applicable(Choice::optimal, q); },
       [](const CostQuery& q) { return allreduce_cost(Choice::optimal, q); },
       [](const Call& c) { allreduce(Choice::optimal, c); }, &detail<Choice::optimal, false>,
       claim_allreduce_chosen},
      {"hybrid_section6",
       "000 §6 modified strategy for a two-level startup: halve until the vector is short, "
       "then combine whole vectors",
       kRequires, [](const CostQuery& q) { return applicable(Choice::section6, q); },
       [](const CostQuery& q) { return allreduce_cost(Choice::section6, q); },
       [](const Call& c) { allreduce(Choice::section6, c); }, &detail<Choice::section6, false>,
       claim_allreduce_chosen},
  };
}

std::vector<Algorithm> reduce_rows() {
  return {
      {"hybrid",
       "000 Fig. 6 combine-to-root with a given strategy S; extra nodes folded in", kRequiresGiven,
       [](const CostQuery& q) { return applicable(Choice::given, q); },
       [](const CostQuery& q) { return reduce_cost(Choice::given, q); },
       [](const Call& c) { reduce(Choice::given, c); }, &detail<Choice::given, true>,
       claim_reduce_given},
      {"hybrid_optimal", "000 Fig. 6 combine-to-root with the least-cost strategy", kRequires,
       [](const CostQuery& q) { return applicable(Choice::optimal, q); },
       [](const CostQuery& q) { return reduce_cost(Choice::optimal, q); },
       [](const Call& c) { reduce(Choice::optimal, c); }, &detail<Choice::optimal, true>,
       claim_reduce_chosen},
      {"hybrid_section6", "000 §6 modified strategy, combine-to-root", kRequires,
       [](const CostQuery& q) { return applicable(Choice::section6, q); },
       [](const CostQuery& q) { return reduce_cost(Choice::section6, q); },
       [](const Call& c) { reduce(Choice::section6, c); }, &detail<Choice::section6, true>,
       claim_reduce_chosen},
  };
}

}  // namespace vmc::global_combine

namespace vmc::internal {

// The lines of 000's hybrid global combine in collectives/allreduce/table.cpp and
// collectives/reduce/table.cpp.
std::vector<Algorithm> allreduce_global_combine_rows() { return global_combine::allreduce_rows(); }
std::vector<Algorithm> reduce_global_combine_rows() { return global_combine::reduce_rows(); }

}  // namespace vmc::internal
