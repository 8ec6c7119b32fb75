// The count and displacement arrays of the MPI calls, read alike whether an int form passed
// them or its large-count (_c) form.
#pragma once

#include <concepts>
#include <cstddef>
#include <limits>
#include <vector>

#include "mpi/include/mpi.h"

namespace vmc::mpi {

// An array argument of counts or displacements as an int form passes it (int) or its
// large-count form (MPI_Count counts, MPI_Aint displacements): the one implementation of a call
// reads either.
class CountArray {
 public:
  CountArray() = default;
  CountArray(std::nullptr_t) {}
  template <std::integral T>
  CountArray(const T* v)
      : data_(v), at_([](const void* d, std::size_t i) {
          return static_cast<MPI_Count>(static_cast<const T*>(d)[i]);
        }) {}
  MPI_Count operator[](std::size_t i) const { return at_(data_, i); }
  const void* data() const { return data_; }

 private:
  const void* data_ = nullptr;
  MPI_Count (*at_)(const void*, std::size_t) = nullptr;
};

// The items a buffer reaches, as check_span (mpi/state.hpp) takes them: an end in items past
// the largest MPI_Count is taken as the largest (no buffer spans that far: check_span rejects
// it for any item of data).
inline MPI_Count count_of_items(std::size_t items) {
  constexpr MPI_Count most = std::numeric_limits<MPI_Count>::max();
  return items > static_cast<std::size_t>(most) ? most : static_cast<MPI_Count>(items);
}

// The items `blocks` blocks of `count` items back to back reach (a gather's buffer at the
// root, an allgather's or an alltoall's), saturated as count_of_items saturates.
inline MPI_Count blocks_span(MPI_Count count, std::size_t blocks) {
  constexpr MPI_Count most = std::numeric_limits<MPI_Count>::max();
  if (count <= 0 || blocks == 0) return 0;
  const auto b = static_cast<MPI_Count>(blocks);
  return count > most / b ? most : count * b;
}

// The items of blocks back to back (a reduce_scatter's send buffer), saturated likewise.
inline MPI_Count items_total(const std::vector<std::size_t>& counts) {
  constexpr MPI_Count most = std::numeric_limits<MPI_Count>::max();
  MPI_Count total = 0;
  for (std::size_t n : counts) {
    const MPI_Count k = count_of_items(n);
    if (k > most - total) return most;
    total += k;
  }
  return total;
}

}  // namespace vmc::mpi
