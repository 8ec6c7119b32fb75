// Guarded result buffers; see guarded.hpp.
#include "collectives/reference/guarded.hpp"

#include <algorithm>

namespace vmc::reference {

GuardedBuffer::GuardedBuffer(std::size_t items, std::size_t item_size,
                             std::span<const unsigned char> preload)
    : items_(items), item_size_(item_size),
      storage_((items + 2 * kCanaryItems) * item_size, kCanary) {
  const std::size_t bytes = items * item_size;
  std::fill_n(data(), bytes, kPoison);
  std::copy_n(preload.begin(), std::min(bytes, preload.size()), data());
}

std::vector<unsigned char> GuardedBuffer::bytes() const {
  return std::vector<unsigned char>(data(), data() + items_ * item_size_);
}

bool GuardedBuffer::canaries_intact() const {
  auto canary = [](unsigned char b) { return b == kCanary; };
  const std::size_t guard = guard_bytes(), end = guard + items_ * item_size_;
  return std::all_of(storage_.begin(), storage_.begin() + guard, canary) &&
         std::all_of(storage_.begin() + end, storage_.end(), canary);
}

bool GuardedBuffer::untouched() const {
  return std::all_of(data(), data() + items_ * item_size_,
                     [](unsigned char b) { return b == kPoison; });
}

}  // namespace vmc::reference
