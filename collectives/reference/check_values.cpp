// Check values; see check_values.hpp for how they are built and why they are exact.
#include "collectives/reference/check_values.hpp"

#include <limits>
#include <type_traits>

namespace vmc::reference {

namespace {

std::uint64_t low_bits(int w) { return w >= 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << w) - 1; }

// A bijection of [0, 2^w): multiplications by odd constants and right xor-shifts, each a
// bijection modulo 2^w, mixing the high bits into the low ones.
std::uint64_t scramble(std::uint64_t x, int w) {
  if (w <= 0) return 0;
  const std::uint64_t mask = low_bits(w);
  const int shift = (w + 1) / 2;
  x &= mask;
  for (std::uint64_t odd : {0x9E3779B97F4A7C15ull, 0xD6E8FEB86659FD93ull, 0x94D049BB133111EBull}) {
    x = (x * odd) & mask;
    x ^= x >> shift;
  }
  return x;
}

// floor(log2(x)) for x >= 1.
int log2_floor(std::uint64_t x) {
  int w = -1;
  while (x != 0) {
    x >>= 1;
    ++w;
  }
  return w;
}

// The largest integer L such that every integer of [-L, L] is exact in T, and T(L) fits.
template <class T>
std::uint64_t exact_limit() {
  if constexpr (std::is_floating_point_v<T>) {
    return std::uint64_t{1} << std::numeric_limits<T>::digits;  // 2^24, 2^53
  } else {
    return std::uint64_t(std::numeric_limits<T>::max());  // 2^31 - 1, 2^63 - 1
  }
}

// Bits of a value that only moves (or meets min and max): the whole exact range.
template <class T>
int moved_bits() {
  if constexpr (std::is_floating_point_v<T>) return std::numeric_limits<T>::digits + 1;
  return int(sizeof(T) * 8);
}

}  // namespace

Combining combining_of(std::string_view op) {
  if (op == "sum") return Combining::sum;
  if (op == "prod") return Combining::prod;
  if (op == "min" || op == "max") return Combining::extremes;
  if (op == "band" || op == "bor" || op == "bxor") return Combining::bits;
  if (op == "land") return Combining::land;
  if (op == "lor") return Combining::lor;
  if (op == "lxor") return Combining::lxor;
  return Combining::none;
}

template <class T>
CheckValues<T>::CheckValues(Combining c, int members, std::uint64_t seed)
    : combining_(c), members_(std::uint64_t(members > 0 ? members : 1)),
      shift_(seed * 0x632BE59BD9B4E019ull), bits_(moved_bits<T>()) {
  // Sums: 1 .. 2^w with members * 2^w <= L, so that every sum of them is exact.
  if (c == Combining::sum) bits_ = log2_floor(exact_limit<T>() / members_);
}

template <class T>
T CheckValues<T>::operator()(int rank, std::size_t index) const {
  const std::uint64_t u = std::uint64_t(index) * members_ + std::uint64_t(rank) + shift_;
  switch (combining_) {
    case Combining::sum: return static_cast<T>(1 + scramble(u, bits_));
    case Combining::prod: {
      // +-1, +-2; 2 only on ranks below 30 or 62: products are +-2^k, k <= 30 or 62.
      const int twos = sizeof(T) == 4 ? 30 : 62;
      const std::uint64_t h = scramble(u, 64);
      const T magnitude = rank < twos && h % 4 == 0 ? T(2) : T(1);
      return (h >> 8) % 2 != 0 ? magnitude : T(-magnitude);
    }
    case Combining::land: return T(scramble(u, 64) % 8 != 0);
    case Combining::lor: return T(scramble(u, 64) % 8 == 0);
    case Combining::lxor: return T(scramble(u, 64) % 2);
    case Combining::bits:
    case Combining::extremes:
    case Combining::none: break;
  }
  const std::uint64_t x = scramble(u, bits_);
  if constexpr (std::is_floating_point_v<T>) {
    // The integers of [-2^(w-1), 2^(w-1)): 2^24 and 2^53 are the exact limits.
    return static_cast<T>(static_cast<std::int64_t>(x) - (std::int64_t{1} << (bits_ - 1)));
  } else {
    return static_cast<T>(x);  // every bit pattern (modulo 2^bits, as C++20 defines it)
  }
}

template class CheckValues<std::int32_t>;
template class CheckValues<std::int64_t>;
template class CheckValues<float>;
template class CheckValues<double>;

std::array<std::uint64_t, 9> check_matrix(int members, int rank, std::size_t index,
                                          std::uint64_t modulus, std::uint64_t seed) {
  const std::uint64_t u = std::uint64_t(index) * std::uint64_t(members > 0 ? members : 1) +
                          std::uint64_t(rank) + seed * 0x632BE59BD9B4E019ull;
  const int w = log2_floor(modulus - 1);  // 2^w < modulus
  // The six free entries: a (distinct per (rank, index)), then five from a second hash.
  std::uint64_t e[6];
  e[0] = scramble(u, w);
  std::uint64_t h = scramble(u ^ 0xA0761D6478BD642Full, 64);
  for (int k = 1; k < 6; ++k) {
    h = scramble(h + std::uint64_t(k), 64);
    e[k] = h % modulus;
  }
  const std::uint64_t a = e[0], b = e[1], c = e[2], d = e[3], f = e[4], g = e[5];
  // L = [1 0 0; a 1 0; b c 1], U = [1 d f; 0 1 g; 0 0 1]; L U entry by entry, each product
  // reduced before the next (entries stay below 2^32 or 1000003: no overflow of 64 bits).
  auto mod = [modulus](std::uint64_t x) { return x % modulus; };
  auto mul = [&](std::uint64_t x, std::uint64_t y) { return mod(mod(x) * mod(y)); };
  return {1,
          d,
          f,
          a,
          mod(mul(a, d) + 1),
          mod(mul(a, f) + g),
          b,
          mod(mul(b, d) + c),
          mod(mul(b, f) + mul(c, g) + 1)};
}

}  // namespace vmc::reference
