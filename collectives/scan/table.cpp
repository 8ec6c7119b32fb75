// The scan registry table.
#include "collectives/scan/algorithms.hpp"
#include "collectives/internal/claims.hpp"
#include "collectives/tables.hpp"

namespace vmc {

namespace {
// Claims of the formulas (collectives/internal/claims.hpp; each algorithm's file explains).
Claim claim_linear(const CostQuery& q) { return internal::on_machine(q, Claim::exact, false); }
Claim claim_hypercube(const CostQuery& q) { return internal::on_machine(q, Claim::exact, true); }
// Non-powers of two fold pairwise; under `half` the folded steps interleave (an estimate).
Claim claim_recursive_doubling(const CostQuery& q) {
  using namespace internal;
  if (q.model.port == Port::half && !is_power_of_two(q.p)) return Claim::estimate;
  return on_machine(q, Claim::exact, true);
}
}  // namespace

const std::vector<Algorithm>& tables::scan() {
  using namespace internal;
  static const std::vector<Algorithm> t = {
      {"linear", "chain in rank order: (p-1)(alpha + n beta + n gamma)", "nothing",
       applicable_scan_linear, cost_scan_linear, run_scan_linear, nullptr, claim_linear},
      {"hypercube", "hypercube prefix (001 prefix sums): log p exchanges", "p a power of two",
       applicable_scan_hypercube, cost_scan_hypercube, run_scan_hypercube, nullptr, claim_hypercube},
      {"recursive_doubling",
       "hypercube prefix for any p, non-powers of two folded pairwise (001)", "nothing",
       applicable_scan_recursive_doubling, cost_scan_recursive_doubling,
       run_scan_recursive_doubling, nullptr,
       claim_recursive_doubling},
  };
  return t;
}

}  // namespace vmc
