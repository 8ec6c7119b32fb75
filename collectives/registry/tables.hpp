// The per-operation registry tables, each defined in collectives/<operation>/table.cpp: the
// rows in the order `vmc list` prints them, one line per algorithm file, which defines its
// row (a hybrid family's file, 004's, and 000's hybrid global combine define several).
#pragma once

#include <initializer_list>
#include <vector>

#include "collectives/vocabulary/row.hpp"

namespace vmc::tables {

const std::vector<Algorithm>& broadcast();
const std::vector<Algorithm>& reduce();
const std::vector<Algorithm>& allreduce();
const std::vector<Algorithm>& scan();
const std::vector<Algorithm>& exscan();
const std::vector<Algorithm>& allgather();
const std::vector<Algorithm>& reduce_scatter();
const std::vector<Algorithm>& scatter();
const std::vector<Algorithm>& gather();
const std::vector<Algorithm>& alltoall();
const std::vector<Algorithm>& barrier();
const std::vector<Algorithm>& scatterv();
const std::vector<Algorithm>& gatherv();
const std::vector<Algorithm>& allgatherv();
const std::vector<Algorithm>& alltoallv();

// The rows of every part, in order.
inline std::vector<Algorithm> joined(std::initializer_list<std::vector<Algorithm>> parts) {
  std::vector<Algorithm> rows;
  for (const std::vector<Algorithm>& part : parts) {
    rows.insert(rows.end(), part.begin(), part.end());
  }
  return rows;
}

}  // namespace vmc::tables

// A table is a list of lines ROW(type, function), one per algorithm file, in the order `vmc
// list` prints them: the function the file defines in vmc::internal that makes its row (type
// Algorithm) or its rows (std::vector<Algorithm>: a family of 004's hybrids, 000's hybrid
// global combine). VMC_DECLARE_ROWS(TABLE) declares the functions, VMC_JOIN_ROWS(TABLE) is
// the rows of every line in order: adding an algorithm is its file and its line.
#define VMC_ROW_DECLARATION(type, function) type function();
#define VMC_ROW_PART(type, function) std::vector<::vmc::Algorithm>{::vmc::internal::function()},
#define VMC_DECLARE_ROWS(TABLE) \
  namespace internal {          \
  TABLE(VMC_ROW_DECLARATION)    \
  }
#define VMC_JOIN_ROWS(TABLE) ::vmc::tables::joined({TABLE(VMC_ROW_PART)})
