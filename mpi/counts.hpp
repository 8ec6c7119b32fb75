// The count and displacement arrays of the MPI calls, read alike whether an int form passed
// them or its large-count (_c) form.
#pragma once

#include <concepts>
#include <cstddef>

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

}  // namespace vmc::mpi
