// Table lookup and registration (registry.hpp).
#include "collectives/registry/registry.hpp"

#include <array>
#include <atomic>
#include <deque>
#include <memory>
#include <mutex>
#include <stdexcept>

#include "collectives/costs/claims.hpp"
#include "collectives/registry/tables.hpp"

namespace vmc {

namespace {
const std::vector<Algorithm>& built_in(Operation op) {
  switch (op) {
    case Operation::broadcast: return tables::broadcast();
    case Operation::reduce: return tables::reduce();
    case Operation::allreduce: return tables::allreduce();
    case Operation::allgather: return tables::allgather();
    case Operation::reduce_scatter: return tables::reduce_scatter();
    case Operation::scan: return tables::scan();
    case Operation::exscan: return tables::exscan();
    case Operation::scatter: return tables::scatter();
    case Operation::gather: return tables::gather();
    case Operation::alltoall: return tables::alltoall();
    case Operation::barrier: return tables::barrier();
    case Operation::scatterv: return tables::scatterv();
    case Operation::gatherv: return tables::gatherv();
    case Operation::allgatherv: return tables::allgatherv();
    case Operation::alltoallv: return tables::alltoallv();
  }
  throw std::logic_error("unknown operation");
}

// The tables register_algorithm published: current[op] (null: the built-in one), and every
// table ever published, kept because readers may still hold one.
struct RegisteredTables {
  std::mutex mutex;
  std::array<std::atomic<const std::vector<Algorithm>*>,
             static_cast<std::size_t>(Operation::alltoallv) + 1>
      current{};
  std::atomic<std::uint64_t> registrations{0};
  std::deque<std::unique_ptr<const std::vector<Algorithm>>> kept;
};

RegisteredTables& registered_tables() {
  static RegisteredTables tables;
  return tables;
}
}  // namespace

const std::vector<Algorithm>& algorithms(Operation op) {
  const auto* table =
      registered_tables().current.at(static_cast<std::size_t>(op)).load(std::memory_order_acquire);
  return table != nullptr ? *table : built_in(op);
}

std::uint64_t registrations() {
  return registered_tables().registrations.load(std::memory_order_acquire);
}

bool runs_timing_only(Operation op, const Algorithm& a) {
  if (a.timing_only) return true;
  for (const Algorithm& row : built_in(op)) {
    if (row.name == a.name) return true;  // a built-in name cannot be registered again
  }
  return false;
}

void register_algorithm(Operation op, Algorithm algorithm) {
  const std::string where =
      to_string(op) + ": cannot register algorithm \"" + algorithm.name + "\": ";
  if (algorithm.name.empty() || algorithm.name == "auto") {
    throw std::invalid_argument(where + "it needs a name other than \"\" and \"auto\"");
  }
  if (algorithm.run == nullptr) throw std::invalid_argument(where + "its run function is null");
  if (algorithm.cost == nullptr) {
    throw std::invalid_argument(where + "its cost function is null (selection needs one)");
  }
  if (algorithm.applicable == nullptr) algorithm.applicable = applies_always;
  if (algorithm.requirements.empty()) algorithm.requirements = "nothing";
  RegisteredTables& tables = registered_tables();
  {
    std::lock_guard lock(tables.mutex);
    const std::vector<Algorithm>& now = algorithms(op);
    if (find_algorithm(op, algorithm.name) != nullptr) {
      throw std::invalid_argument(where + "the name is taken");
    }
    auto next = std::make_unique<std::vector<Algorithm>>(now);
    next->push_back(std::move(algorithm));
    tables.current.at(static_cast<std::size_t>(op)).store(next.get(), std::memory_order_release);
    tables.kept.push_back(std::move(next));
    tables.registrations.fetch_add(1, std::memory_order_release);
  }
}

bool is_member_row(Operation op, std::string_view name) {
  for (const Algorithm& a : algorithms(op)) {
    if (!a.member_row.empty() && a.member_row == name) return true;
  }
  return false;
}

const Algorithm* find_algorithm(Operation op, std::string_view name) {
  for (const Algorithm& a : algorithms(op)) {
    if (a.name == name) return &a;
  }
  return nullptr;
}

Claim claim_of(const Algorithm& a, const CostQuery& q) {
  // The rows' claims price every link at beta_net; per-class link rates degrade them.
  return internal::with_link_rates(q, a.claim != nullptr ? a.claim(q) : Claim::estimate);
}

}  // namespace vmc
