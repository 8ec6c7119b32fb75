// Claim names (row.hpp).
#include "collectives/vocabulary/row.hpp"

namespace vmc {

std::string to_string(Claim c) {
  switch (c) {
    case Claim::exact: return "exact";
    case Claim::lower_bound: return "lower bound";
    case Claim::estimate: return "estimate";
  }
  return "?";
}

}  // namespace vmc
