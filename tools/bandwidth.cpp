// nccl-tests' algorithm and bus bandwidths (bandwidth.hpp).
#include "tools/bandwidth.hpp"

namespace vmc::cli {

double bandwidth_bytes(Operation op, std::size_t n, std::size_t item_bytes, int p) {
  const double one = static_cast<double>(n) * static_cast<double>(item_bytes);
  switch (op) {
    case Operation::allreduce:
    case Operation::broadcast:
    case Operation::reduce:
    case Operation::scan:
    case Operation::exscan: return one;
    case Operation::barrier: return 0;
    default: return one * p;  // one block from or for every rank
  }
}

double bus_factor(Operation op, int p) {
  const double share = static_cast<double>(p - 1) / p;
  switch (op) {
    case Operation::allreduce: return 2 * share;
    case Operation::broadcast:
    case Operation::reduce:
    case Operation::scan:
    case Operation::exscan: return 1;
    case Operation::barrier: return 0;
    default: return share;
  }
}

std::optional<Bandwidth> bandwidth(Operation op, std::size_t n, std::size_t item_bytes, int p,
                                   double seconds) {
  if (op == Operation::barrier || seconds <= 0) return std::nullopt;
  const double algbw = bandwidth_bytes(op, n, item_bytes, p) / seconds;
  return Bandwidth{algbw, algbw * bus_factor(op, p)};
}

}  // namespace vmc::cli
