#include "collectives/global_combine/strategy.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

namespace vmc::global_combine {

namespace {

// The cost of the step in direction j (the top one of d remaining) for n items.
// An empty exchange is skipped (no message, no startup).
Picos step_cost(int halve, std::size_t n, const CostUnits& u, bool to_root) {
  if (n == 0) return 0;
  if (halve == 0) return u.message(n) + u.combine(n);
  const std::size_t h = upper_half(n);
  if (to_root) return u.message(h) + u.combine(h) + (n / 2 > 0 ? u.message(n / 2) : 0);
  return 2 * u.message(h) + u.combine(h);
}

}  // namespace

namespace {

// Combine-to-root with uneven halves: the upper node of a halving step works on the smaller
// half and sends it back as soon as its subcube is done, so the step ends at the later of
// the root side finishing and the upper side's message arriving.
Picos root_cost(const Strategy& s, int j, std::size_t n, const CostUnits& u) {
  if (j == 0 || n == 0) return 0;
  if (s[j - 1] == 0) return step_cost(0, n, u, true) + root_cost(s, j - 1, n, u);
  const std::size_t c = upper_half(n), f = n / 2;
  const Picos lower = u.combine(c) + root_cost(s, j - 1, c, u);
  const Picos upper = f == 0 ? 0 : u.combine(f) + root_cost(s, j - 1, f, u) + u.message(f);
  return u.message(c) + std::max(lower, upper);
}

}  // namespace

Picos cost(const Strategy& s, std::size_t n, const CostUnits& u, bool to_root) {
  if (to_root) return root_cost(s, static_cast<int>(s.size()), n, u);
  Picos total = 0;
  for (int j = static_cast<int>(s.size()) - 1; j >= 0; --j) {
    total += step_cost(s[j], n, u, to_root);
    if (s[j] != 0) n = upper_half(n);
  }
  return total;
}

int theorem1_k(std::size_t n, int d, const CostUnits& u) {
  const double alpha = static_cast<double>(u.alpha);
  const double beta = static_cast<double>(u.beta);
  const double gamma = static_cast<double>(u.gamma);
  for (int k = 0; k <= d; ++k) {
    const double denominator = k * (beta + gamma) + gamma;
    if (denominator <= 0) continue;  // gamma = 0 and k = 0: the bound is infinite
    if (static_cast<double>(n) >= std::ldexp(1.0, d - k) * alpha / denominator) return k;
  }
  return d;
}

Strategy theorem1_strategy(std::size_t n, int d, const CostUnits& u) {
  const int k = theorem1_k(n, d, u);
  Strategy s(d);
  for (int i = 0; i < d; ++i) s[i] = i < k ? 0 : 1;
  return s;
}

Picos corollary4(std::size_t n, int d, const CostUnits& u) {
  const int k = std::min(theorem1_k(n, d, u), d);
  const double halvings = std::ldexp(1.0, -(d - k));
  const double a = static_cast<double>(u.alpha), b = static_cast<double>(u.beta),
               g = static_cast<double>(u.gamma), x = static_cast<double>(n);
  const double t = 2.0 * (d - k) * a + (1.0 - halvings) * x * (2 * b + g) +
                   k * (a + halvings * x * (b + g));
  return static_cast<Picos>(std::llround(t));
}

Strategy optimal_strategy(std::size_t n, int d, const CostUnits& u, bool to_root) {
  // best[j][h]: least cost of the steps in directions j-1 .. 0, starting with the length
  // reached after h halvings. Lengths along the way are n, ceil(n/2), ceil(ceil(n/2)/2) ...
  std::vector<std::size_t> length(d + 1);
  length[0] = n;
  for (int h = 1; h <= d; ++h) length[h] = upper_half(length[h - 1]);
  std::vector<std::vector<Picos>> best(d + 1, std::vector<Picos>(d + 1, 0));
  std::vector<std::vector<int>> choice(d + 1, std::vector<int>(d + 1, 0));
  for (int j = 1; j <= d; ++j) {          // j steps remain: directions j-1 .. 0
    for (int h = 0; h + j <= d; ++h) {    // h halvings made so far
      Picos whole = step_cost(0, length[h], u, to_root) + best[j - 1][h];
      Picos half = step_cost(1, length[h], u, to_root) + best[j - 1][h + 1];
      choice[j][h] = half < whole ? 1 : 0;
      best[j][h] = std::min(whole, half);
    }
  }
  Strategy s(d);
  int h = 0;
  for (int j = d; j >= 1; --j) {
    s[j - 1] = choice[j][h];
    h += s[j - 1];
  }
  return s;
}

Strategy brute_force_strategy(std::size_t n, int d, const CostUnits& u) {
  if (d > 20) throw std::invalid_argument("brute_force_strategy: d > 20 is too many strategies");
  Strategy best(d, 0);
  Picos best_cost = cost(best, n, u);
  for (std::uint64_t bits = 1; bits < (std::uint64_t{1} << d); ++bits) {
    Strategy s(d);
    for (int i = 0; i < d; ++i) s[i] = static_cast<int>((bits >> i) & 1);
    Picos c = cost(s, n, u);
    if (c < best_cost) {
      best_cost = c;
      best = s;
    }
  }
  return best;
}

Strategy section6_strategy(std::size_t n, int d, const CostUnits& u, std::size_t short_items,
                           bool to_root) {
  if (short_items == 0 || n > short_items * (std::size_t{1} << d)) {
    return optimal_strategy(n, d, u, to_root);
  }
  Strategy s(d, 0);
  std::size_t len = n;
  for (int j = d - 1; j >= 0 && len > short_items; --j) {
    s[j] = 1;
    len = upper_half(len);
  }
  return s;
}

std::string to_string(const Strategy& s) {
  std::string t;
  for (int x : s) t += x ? '1' : '0';
  return t;
}

Strategy parse_strategy(const std::string& text) {
  Strategy s;
  for (char c : text) {
    if (c == '0' || c == '1') s.push_back(c - '0');
    else if (c != ',' && c != ' ') {
      throw std::invalid_argument("bad strategy \"" + text +
                                  "\": expected 0s and 1s, S_0 first (e.g. 000111)");
    }
  }
  return s;
}

}  // namespace vmc::global_combine
