// A datatype as its typemap: the predefined elements it is made of, in order, with their
// displacements, flattened into runs (a run is `count` elements of one predefined type back to
// back, each its type's extent after the one before), adjacent runs of one type merged. Every
// datatype the MPI calls move has one: a predefined type's is one run of one element
// (predefined_typemap), a derived type's is built by the constructors below from its old
// types' typemaps, so that moving a derived type never walks its constructors again.
//
// The bounds are MPI-4.1 section 5.1's: lb and ub span every element's extent (or the
// MPI_LB and MPI_UB markers of MPI_Type_create_struct, and MPI_Type_create_resized's bounds,
// which stick to every type made from this one), and a struct's extent is rounded up to its
// elements' largest alignment, as MPI implementations do; the true bounds span the data alone.
//
// Packed form: each element's `extent` bytes (a value-and-index pair's padding included, as a
// message of the predefined pairs carries), in typemap order. It is what a message carries,
// what MPI_Pack writes and what vmc's collectives move. A type whose packed form is its memory
// (`contiguous`: one run of bytes from displacement 0, extent equal to its packed size) moves
// in place, with no copy.
//
// Pure data and functions: no MPI state, no error handling (the MPI calls check their
// arguments first).
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "mpi/datatypes.hpp"
#include "mpi/include/mpi.h"

namespace vmc::mpi {

// `count` elements of predefined type `type`, the first at `offset`, each its type's extent
// after the one before.
struct Run {
  MPI_Aint offset = 0;
  MPI_Datatype type = MPI_DATATYPE_NULL;
  std::size_t count = 0;
};

struct Typemap {
  std::vector<Run> runs;
  MPI_Aint lb = 0, ub = 0;            // extent = ub - lb
  MPI_Aint true_lb = 0, true_ub = 0;  // of the data alone (0 and 0 when there is none)
  bool sticky_lb = false, sticky_ub = false;  // set by a marker or a resize
  std::size_t size = 0;       // bytes of data: MPI_Type_size
  std::size_t packed = 0;     // bytes of one item packed (elements' extents)
  std::size_t elements = 0;   // predefined elements of one item (a pair is one)
  std::size_t alignment = 1;  // the largest of its elements'
  // The one predefined type of all its elements; MPI_DATATYPE_NULL when they mix (or none).
  MPI_Datatype basic = MPI_DATATYPE_NULL;
  bool contiguous = false;  // its packed form is its memory: one run at 0, extent == packed

  MPI_Aint extent() const { return ub - lb; }
  MPI_Aint true_extent() const { return true_ub - true_lb; }
};

// The typemap of a predefined type (MPI_LB and MPI_UB: none, no bounds).
const Typemap& predefined_typemap(MPI_Datatype predefined);

// One block of a constructor: `length` items of `type` from byte displacement `displacement`
// (each the type's extent after the one before), or a marker (MPI_LB, MPI_UB) at it.
struct Block {
  MPI_Aint displacement = 0;
  std::size_t length = 0;
  const Typemap* type = nullptr;
  MPI_Datatype marker = MPI_DATATYPE_NULL;  // MPI_LB or MPI_UB, with type null
};

// The typemap of blocks in order (every constructor's), a struct's extent rounded up to its
// alignment when `align_extent` and no marker sets its upper bound.
Typemap from_blocks(const std::vector<Block>& blocks, bool align_extent);
// The same typemap with the bounds lb and lb + extent (MPI_Type_create_resized).
Typemap resized(const Typemap& old, MPI_Aint lb, MPI_Aint extent);

// "3 x MPI_INT" or "{2 x MPI_INT, 1 x MPI_DOUBLE}": the type signature, runs of one type
// merged.
std::string signature_text(const Typemap& t);

// Writes the packed form of `count` items from `buf` to `out` (count * packed bytes).
void pack(const Typemap& t, const void* buf, std::size_t count, unsigned char* out);
// Reads `bytes` bytes of packed form into items at `buf` (an item cut short is filled as far as
// its bytes go).
void unpack(const Typemap& t, const unsigned char* in, std::size_t bytes, void* buf);
// The predefined elements in `bytes` bytes of packed form (a pair counts two, as
// MPI_Get_elements counts them), or -1 when they end inside an element.
long long elements_in(const Typemap& t, std::size_t bytes);

}  // namespace vmc::mpi
