#include "collectives/primitives/blocks.hpp"

#include <algorithm>
#include <numeric>

namespace vmc::internal {

std::size_t Blocks::total() const {
  return std::accumulate(counts.begin(), counts.end(), std::size_t{0});
}

std::size_t Blocks::max() const {
  return counts.empty() ? 0 : *std::max_element(counts.begin(), counts.end());
}

std::size_t Blocks::range_total(int first, int len) const {
  const int p = size();
  if (len <= 0) return 0;
  if (prefix.size() != counts.size() + 1) {
    std::size_t s = 0;
    for (int i = 0; i < len; ++i) s += counts[(first + i) % p];
    return s;
  }
  const std::size_t laps = static_cast<std::size_t>(len / p);
  const int f = first % p, rest = len % p;
  std::size_t s = laps * prefix[p];
  if (f + rest <= p) return s + prefix[f + rest] - prefix[f];
  return s + prefix[p] - prefix[f] + prefix[f + rest - p];
}

namespace {
std::vector<std::size_t> prefix_sums(std::span<const std::size_t> counts) {
  std::vector<std::size_t> out(counts.size() + 1, 0);
  for (std::size_t i = 0; i < counts.size(); ++i) out[i + 1] = out[i] + counts[i];
  return out;
}
}  // namespace

Blocks Blocks::even(std::size_t n, int p) {
  std::vector<std::size_t> c(p);
  const std::size_t q = n / p, r = n % p;
  for (int b = 0; b < p; ++b) c[b] = q + (static_cast<std::size_t>(b) < r ? 1 : 0);
  return contiguous(c);
}

Blocks Blocks::contiguous(std::span<const std::size_t> counts) {
  Blocks b;
  b.counts.assign(counts.begin(), counts.end());
  b.prefix = prefix_sums(counts);
  b.displs.resize(counts.size());
  std::size_t d = 0;
  for (std::size_t i = 0; i < counts.size(); ++i) {
    b.displs[i] = d;
    d += counts[i];
  }
  return b;
}

Blocks Blocks::explicit_layout(std::span<const std::size_t> counts,
                               std::span<const std::size_t> displs) {
  Blocks b;
  b.counts.assign(counts.begin(), counts.end());
  b.displs.assign(displs.begin(), displs.end());
  b.prefix = prefix_sums(counts);
  return b;
}

Blocks Blocks::equal(std::size_t n, int p) {
  std::vector<std::size_t> c(p, n);
  return contiguous(c);
}

std::vector<std::size_t> counts_of(const CostQuery& q) {
  if (!q.counts.empty()) return q.counts;
  return std::vector<std::size_t>(q.p, q.n);
}

std::size_t pack_blocks(const void* buf, std::size_t item_size, const Blocks& blocks, int first,
                        int len, void* out) {
  std::size_t pos = 0;
  const int p = blocks.size();
  for (int i = 0; i < len; ++i) {
    const int b = (first + i) % p;
    copy_items(at(out, pos, item_size), at(buf, blocks.displs[b], item_size), blocks.counts[b],
               item_size);
    pos += blocks.counts[b];
  }
  return pos;
}

std::size_t unpack_blocks(const void* in, std::size_t item_size, const Blocks& blocks,
                          int first, int len, void* buf) {
  std::size_t pos = 0;
  const int p = blocks.size();
  for (int i = 0; i < len; ++i) {
    const int b = (first + i) % p;
    copy_items(at(buf, blocks.displs[b], item_size), at(in, pos, item_size), blocks.counts[b],
               item_size);
    pos += blocks.counts[b];
  }
  return pos;
}

}  // namespace vmc::internal
