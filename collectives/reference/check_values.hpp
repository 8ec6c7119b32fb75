// Inputs for checking a collective: a value for every (rank, item) that no other (rank,
// item) shares over a large range, so that a block delivered to the wrong rank or put at
// the wrong place changes the result, and that every combination an op can make of them
// (any order, any grouping) computes exactly, in every item type. `vmc run --check`
// (tools/runner.cpp), the public harness (collectives/testing.cpp) and the tests fill their
// inputs with them; collectives/reference/reference.hpp computes what the call must return.
//
// How the values are built. Item i of rank r among p members has the number u = i p + r
// (every (rank, item) its own u), and its value is a bijection of the low w bits of u (the
// seed shifts u first): distinct for every (rank, item) with u < 2^w, pseudo-random (no
// two misplacements cancel by a pattern). What w is and how the bits become a value
// depends on what the values go through:
//   none, extremes (moved only; min, max): the whole exact range of the type: every bit
//     pattern of int32 and int64, the integers of [-2^24, 2^24) for float and
//     [-2^53, 2^53) for double (every one exactly representable).
//   bits (band, bor, bxor): every bit pattern (integers only); an item from the wrong
//     rank or place changes an xor.
//   sum: the integers 1 .. 2^w with p 2^w at most the type's exact limit L (2^24 float,
//     2^53 double, 2^31 - 1 int32, 2^63 - 1 int64): any sum of any of them, in any order
//     and grouping, is an integer in [1, L], so no float sum rounds and no integer sum
//     overflows. Positive, so no partial sum of a scan is 0: a prefix through the wrong
//     rank differs.
//   prod: +-1 and +-2, with 2 only on ranks below 30 (int32, float) or 62 (int64,
//     double): every product is +-2^k, k at most 30 or 62, exact and without overflow.
//   land, lor, lxor: 0 and 1 (land mostly 1, lor mostly 0, lxor either).
// Matrices (the non-commutative matmul): L U with L unit lower and U unit upper triangular,
// their six free entries from (rank, item), so the matrices are distinct (L and U are
// unique for a product of that form), invertible (determinant 1), and almost never
// commute: a product taken out of rank order differs.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string_view>

namespace vmc::reference {

// What the values go through (see above).
enum class Combining { none, sum, prod, extremes, bits, land, lor, lxor };

// The combining of the reduction named `op` (sum, prod, min, max, land, lor, lxor, band,
// bor, bxor); none for any other name (matmul: see check_matrix).
Combining combining_of(std::string_view op);

// Item `index` of rank `rank`'s input among `members` ranks, for T = std::int32_t,
// std::int64_t, float or double. Distinct over (rank, index) while index * members + rank
// stays below 2^w: w = 32 (int32), 64 (int64), 25 (float), 54 (double) when nothing is
// summed; for sums log2(L / members) rounded down (float at 13 members: 20 bits, a million
// distinct values; int64: 59 bits). Beyond that the values repeat, still exact.
template <class T>
class CheckValues {
 public:
  CheckValues(Combining c, int members, std::uint64_t seed = 0);
  T operator()(int rank, std::size_t index) const;

 private:
  Combining combining_;
  std::uint64_t members_, shift_;
  int bits_;  // w
};

// One value: CheckValues<T>(c, members, seed)(rank, index).
template <class T>
T check_value(Combining c, int members, int rank, std::size_t index, std::uint64_t seed = 0) {
  return CheckValues<T>(c, members, seed)(rank, index);
}

// The nine entries (row-major) of item `index` of rank `rank`'s 3x3 matrix among `members`
// ranks, reduced modulo `modulus` (2^32 for matrices of wrapping 32-bit entries). Distinct
// over (rank, index) while index * members + rank stays below the largest power of two
// below the modulus.
std::array<std::uint64_t, 9> check_matrix(int members, int rank, std::size_t index,
                                          std::uint64_t modulus, std::uint64_t seed = 0);

}  // namespace vmc::reference
