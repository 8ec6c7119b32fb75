// van de Geijn's hybrid global combine: strategies, their cost, and the optimal choice.
// Source: 000 §3.4 (the family of strategies S and the recursion T(S, n, d)), §4 (Theorem 1,
// Corollary 4), §6 (the modified strategy for a two-level startup). Pure functions.
//
// A strategy S = (S_0, ..., S_{d-1}) says, for each cube direction j, whether the step in
// direction j exchanges and combines whole vectors (S_j = 0, a Version 2 step) or halves
// them (S_j = 1, a Version 3 step). Steps go from direction d-1 down to 0.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "runtime/model.hpp"

namespace vmc::global_combine {

using Strategy = std::vector<int>;

// The larger half of n items: what the node keeping the first half holds after a halving
// step (x0 = x[0 .. ceil(n/2)-1] in 000 Fig. 4).
inline std::size_t upper_half(std::size_t n) { return n - n / 2; }

// 000 §3.4: T(S, n, d) in picoseconds, as the code runs it. For n divisible by 2^d it is
// exactly the paper's recursion:
//   T = T(S', n, d-1)   + alpha + n beta + n gamma          if S_{d-1} = 0
//   T = T(S', n/2, d-1) + 2 alpha + n beta + (n/2) gamma    if S_{d-1} = 1
// For other n a halving step carries ceil(n/2) items each way, so n is replaced by
// 2 ceil(n/2) in the second line. The cost is under the model's startup (two-level alpha
// included), each exchange being one message each way with one partner at once; a step
// with nothing to move (n = 0) is skipped and costs nothing.
//
// to_root (000 Fig. 6, combine-to-root): a halving step's last transfer goes one way only,
// carrying the upper node's floor(n/2) items as soon as its half is done, so the step costs
// (alpha + c beta) + max(c gamma + rest(c), f gamma + rest(f) + alpha + f beta) with
// c = ceil(n/2), f = floor(n/2): for even n the same as above, as 000 §5 says.
Picos cost(const Strategy& s, std::size_t n, const CostUnits& u, bool to_root = false);

// Theorem 1: the smallest k with n >= 2^(d-k) alpha / (k (beta + gamma) + gamma), capped at
// d; the strategy halves in directions >= k (the first d-k steps) and combines whole
// vectors in directions < k.
int theorem1_k(std::size_t n, int d, const CostUnits& u);
Strategy theorem1_strategy(std::size_t n, int d, const CostUnits& u);
// Corollary 4: 2(d-k) alpha + (1 - 2^-(d-k)) n (2 beta + gamma) + k (alpha + 2^-(d-k) n (beta
// + gamma)), in picoseconds (exact when 2^(d-k) divides n).
Picos corollary4(std::size_t n, int d, const CostUnits& u);

// The strategy of least cost(), by dynamic programming over the steps (the cost of the
// remaining steps depends only on the length they start with). Ties prefer whole-vector
// steps (fewer startups).
Strategy optimal_strategy(std::size_t n, int d, const CostUnits& u, bool to_root = false);
// Every strategy, tried one by one: the reference the tests hold the other two against.
Strategy brute_force_strategy(std::size_t n, int d, const CostUnits& u);

// 000 §6: with a short-message startup for at most `short_items` items, if n > short_items
// 2^d use the optimal strategy; otherwise halve while the vector is longer than
// short_items and combine whole vectors from then on.
Strategy section6_strategy(std::size_t n, int d, const CostUnits& u, std::size_t short_items,
                           bool to_root = false);

// "0011" style text, S_0 first; parse accepts the same, or comma-separated 0/1.
std::string to_string(const Strategy& s);
Strategy parse_strategy(const std::string& text);

}  // namespace vmc::global_combine
