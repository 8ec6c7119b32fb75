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
  std::size_t s = 0;
  const int p = size();
  for (int i = 0; i < len; ++i) s += counts[(first + i) % p];
  return s;
}

Blocks Blocks::even(std::size_t n, int p) {
  std::vector<std::size_t> c(p);
  const std::size_t q = n / p, r = n % p;
  for (int b = 0; b < p; ++b) c[b] = q + (static_cast<std::size_t>(b) < r ? 1 : 0);
  return contiguous(c);
}

Blocks Blocks::contiguous(std::span<const std::size_t> counts) {
  Blocks b;
  b.counts.assign(counts.begin(), counts.end());
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
