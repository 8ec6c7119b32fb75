// What a program may ask of a datatype and how it makes new ones: the constructors of derived
// datatypes (contiguous, vector, hvector, indexed, hindexed, indexed_block, hindexed_block,
// struct, resized, subarray, dup; MPI-1's hvector, hindexed and struct under their old names),
// commit and free, size, extent and true extent, envelope and contents, names, MPI_Pack,
// MPI_Unpack and MPI_Pack_size, and addresses.
//
// A derived datatype is its typemap (mpi/typemap.hpp), built when it is made from its old
// types' typemaps, so a datatype freed after it served to make another leaves that one whole.
// Its handle is the rank's own (VMC_MPI_FIRST_DERIVED_TYPE + its index in RankState's table);
// a freed one stays unusable for the rest of the run. The large-count constructors (_c) make
// the same types from MPI_Count arguments and record them as the int forms would (their
// envelope has no large counts). Errors of calls with no communicator go to MPI_COMM_SELF's
// handler.
//
// MPI_Pack writes the packed form a message carries (each element's extent bytes, in typemap
// order), so a message sent as MPI_PACKED is received by any type of its signature and the
// reverse. Packing or unpacking a type that is not contiguous charges the rank delta per
// element (the model's rearrangement time, Comm::charge_rearrange), as communication does.
#include <algorithm>
#include <climits>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "mpi/datatypes.hpp"
#include "mpi/include/mpi.h"
#include "mpi/state.hpp"

using namespace vmc;
using namespace vmc::mpi;

namespace {

// The calling rank's state, checked to be in its session.
RankState& types_state(const char* fn) { return session_state(fn); }

// A query's datatype: a predefined one answers without the session (as it did before derived
// types), a derived one is the calling rank's.
const Typemap& query_typemap(const char* fn, MPI_Datatype t) {
  if (t != MPI_DATATYPE_NULL && predefined_type(t) != nullptr) return predefined_typemap(t);
  if (t == MPI_DATATYPE_NULL) fail(fn, MPI_ERR_TYPE, "MPI_DATATYPE_NULL is not a datatype");
  return any_typemap(fn, types_state(fn), t);
}

// A new derived datatype's handle.
MPI_Datatype add_datatype(RankState& s, Typemap map, int combiner, std::vector<int> ints,
                          std::vector<MPI_Aint> addresses, std::vector<MPI_Datatype> types) {
  DatatypeEntry e;
  e.map = std::make_shared<const Typemap>(std::move(map));
  e.combiner = combiner;
  e.ints = std::move(ints);
  e.addresses = std::move(addresses);
  e.types = std::move(types);
  s.datatypes.push_back(std::move(e));
  return static_cast<MPI_Datatype>(VMC_MPI_FIRST_DERIVED_TYPE + s.datatypes.size() - 1);
}

DatatypeEntry& entry_of(RankState& s, MPI_Datatype t) {
  return s.datatypes[static_cast<std::size_t>(t - VMC_MPI_FIRST_DERIVED_TYPE)];
}

// An old type of a constructor: any live datatype but the bound markers (which only
// MPI_Type_create_struct takes) and MPI_DATATYPE_NULL.
const Typemap& old_type(const char* fn, const RankState& s, MPI_Datatype t, bool markers = false) {
  if (!markers && (t == MPI_LB || t == MPI_UB)) {
    fail(fn, MPI_ERR_TYPE,
         std::string(kPredefinedTypes[static_cast<std::size_t>(t)].name) +
             " is a marker of MPI_Type_create_struct (MPI-1's MPI_Type_struct) only");
  }
  return any_typemap(fn, s, t);
}

template <class Int>
std::size_t count_arg(const char* fn, Int v, const char* what) {
  if (v < 0) {
    fail(fn, MPI_ERR_COUNT, std::string(what) + " " + std::to_string(v) + " is negative");
  }
  return static_cast<std::size_t>(v);
}

template <class Int>
void check_array(const char* fn, const Int* a, std::size_t n, const char* what) {
  if (n > 0 && a == nullptr) fail(fn, MPI_ERR_ARG, std::string(what) + " is a null pointer");
}

// The call's steps: check, build the typemap, record the new handle.
template <class Build>
int construct(const char* fn, MPI_Datatype* newtype, Build&& build) {
  return mpi_call(MPI_COMM_SELF, [&] {
    RankState& s = types_state(fn);
    check_arg(fn, newtype, "newtype");
    *newtype = build(s);
    return MPI_SUCCESS;
  });
}

template <class Int>
std::vector<int> ints_of(std::initializer_list<Int> head, const Int* tail = nullptr,
                         std::size_t n = 0, const Int* tail2 = nullptr, std::size_t n2 = 0) {
  std::vector<int> out;
  for (Int v : head) out.push_back(static_cast<int>(v));
  for (std::size_t i = 0; i < n; ++i) out.push_back(static_cast<int>(tail[i]));
  for (std::size_t i = 0; i < n2; ++i) out.push_back(static_cast<int>(tail2[i]));
  return out;
}

// --- the constructors, for int and MPI_Count arguments -------------------------------------

template <class Int>
int contiguous(const char* fn, Int count, MPI_Datatype oldtype, MPI_Datatype* newtype) {
  return construct(fn, newtype, [&](RankState& s) {
    const std::size_t n = count_arg(fn, count, "count");
    const Typemap& old = old_type(fn, s, oldtype);
    return add_datatype(s, from_blocks({Block{0, n, &old}}, false), MPI_COMBINER_CONTIGUOUS,
                        ints_of<Int>({count}), {}, {oldtype});
  });
}

// vector (stride in items of the old type) and hvector (in bytes).
template <class Int, class Stride>
int vector(const char* fn, Int count, Int blocklength, Stride stride, MPI_Datatype oldtype,
           MPI_Datatype* newtype, bool bytes) {
  return construct(fn, newtype, [&](RankState& s) {
    const std::size_t n = count_arg(fn, count, "count");
    const std::size_t len = count_arg(fn, blocklength, "blocklength");
    const Typemap& old = old_type(fn, s, oldtype);
    const MPI_Aint step = bytes ? static_cast<MPI_Aint>(stride)
                                : static_cast<MPI_Aint>(stride) * old.extent();
    std::vector<Block> blocks;
    for (std::size_t i = 0; i < n; ++i) {
      blocks.push_back({static_cast<MPI_Aint>(i) * step, len, &old});
    }
    if (bytes) {
      return add_datatype(s, from_blocks(blocks, false), MPI_COMBINER_HVECTOR,
                          ints_of<Int>({count, blocklength}), {static_cast<MPI_Aint>(stride)},
                          {oldtype});
    }
    return add_datatype(s, from_blocks(blocks, false), MPI_COMBINER_VECTOR,
                        ints_of<Int>({count, blocklength, static_cast<Int>(stride)}), {},
                        {oldtype});
  });
}

// indexed (displacements in items of the old type) and hindexed (in bytes), a length per
// block; with `one_length`, the _block forms: `blocklength` for every block (`lengths` unused).
template <class Int, class Disp>
int indexed(const char* fn, Int count, const Int* lengths, Int blocklength, const Disp* displs,
            MPI_Datatype oldtype, MPI_Datatype* newtype, bool bytes, bool one_length) {
  return construct(fn, newtype, [&](RankState& s) {
    const std::size_t n = count_arg(fn, count, "count");
    if (one_length) {
      count_arg(fn, blocklength, "blocklength");
    } else {
      check_array(fn, lengths, n, "array_of_blocklengths");
    }
    check_array(fn, displs, n, "array_of_displacements");
    const Typemap& old = old_type(fn, s, oldtype);
    std::vector<Block> blocks;
    for (std::size_t i = 0; i < n; ++i) {
      const std::size_t len = one_length
                                  ? static_cast<std::size_t>(blocklength)
                                  : count_arg(fn, lengths[i], "array_of_blocklengths[i]");
      const MPI_Aint at = bytes ? static_cast<MPI_Aint>(displs[i])
                                : static_cast<MPI_Aint>(displs[i]) * old.extent();
      blocks.push_back({at, len, &old});
    }
    Typemap map = from_blocks(blocks, false);
    std::vector<MPI_Aint> addresses;
    std::vector<int> ints;
    const int combiner =
        one_length ? (bytes ? MPI_COMBINER_HINDEXED_BLOCK : MPI_COMBINER_INDEXED_BLOCK)
                   : (bytes ? MPI_COMBINER_HINDEXED : MPI_COMBINER_INDEXED);
    ints.push_back(static_cast<int>(count));
    if (one_length) {
      ints.push_back(static_cast<int>(blocklength));
    } else {
      for (std::size_t i = 0; i < n; ++i) ints.push_back(static_cast<int>(lengths[i]));
    }
    for (std::size_t i = 0; i < n; ++i) {
      if (bytes) {
        addresses.push_back(static_cast<MPI_Aint>(displs[i]));
      } else {
        ints.push_back(static_cast<int>(displs[i]));
      }
    }
    return add_datatype(s, std::move(map), combiner, std::move(ints), std::move(addresses),
                        {oldtype});
  });
}

template <class Int, class Disp>
int structure(const char* fn, Int count, const Int* lengths, const Disp* displs,
              const MPI_Datatype* types, MPI_Datatype* newtype) {
  return construct(fn, newtype, [&](RankState& s) {
    const std::size_t n = count_arg(fn, count, "count");
    check_array(fn, lengths, n, "array_of_blocklengths");
    check_array(fn, displs, n, "array_of_displacements");
    check_array(fn, types, n, "array_of_types");
    std::vector<Block> blocks;
    std::vector<int> ints{static_cast<int>(count)};
    std::vector<MPI_Aint> addresses;
    for (std::size_t i = 0; i < n; ++i) {
      const std::size_t len = count_arg(fn, lengths[i], "array_of_blocklengths[i]");
      const auto at = static_cast<MPI_Aint>(displs[i]);
      if (types[i] == MPI_LB || types[i] == MPI_UB) {
        blocks.push_back({at, 0, nullptr, types[i]});
      } else {
        blocks.push_back({at, len, &old_type(fn, s, types[i], true)});
      }
      ints.push_back(static_cast<int>(lengths[i]));
      addresses.push_back(at);
    }
    return add_datatype(s, from_blocks(blocks, true), MPI_COMBINER_STRUCT, std::move(ints),
                        std::move(addresses), std::vector<MPI_Datatype>(types, types + n));
  });
}

template <class Aint>
int resize(const char* fn, MPI_Datatype oldtype, Aint lb, Aint extent, MPI_Datatype* newtype) {
  return construct(fn, newtype, [&](RankState& s) {
    const Typemap& old = old_type(fn, s, oldtype);
    return add_datatype(s, resized(old, static_cast<MPI_Aint>(lb), static_cast<MPI_Aint>(extent)),
                        MPI_COMBINER_RESIZED, {},
                        {static_cast<MPI_Aint>(lb), static_cast<MPI_Aint>(extent)}, {oldtype});
  });
}

// An ndims-dimensional subarray of an array of old-type items, in C or Fortran order: the
// selected items at their places in the whole array, whose extent the type takes.
template <class Int>
int subarray(const char* fn, int ndims, const Int* sizes, const Int* subsizes, const Int* starts,
             int order, MPI_Datatype oldtype, MPI_Datatype* newtype) {
  return construct(fn, newtype, [&](RankState& s) {
    if (ndims <= 0) fail(fn, MPI_ERR_DIMS, "ndims " + std::to_string(ndims) + " is not positive");
    const auto nd = static_cast<std::size_t>(ndims);
    check_array(fn, sizes, nd, "array_of_sizes");
    check_array(fn, subsizes, nd, "array_of_subsizes");
    check_array(fn, starts, nd, "array_of_starts");
    if (order != MPI_ORDER_C && order != MPI_ORDER_FORTRAN) {
      fail(fn, MPI_ERR_ARG, "order " + std::to_string(order) +
                                " is neither MPI_ORDER_C nor MPI_ORDER_FORTRAN");
    }
    for (std::size_t d = 0; d < nd; ++d) {
      if (sizes[d] <= 0 || subsizes[d] <= 0 || starts[d] < 0 ||
          starts[d] + subsizes[d] > sizes[d]) {
        fail(fn, MPI_ERR_ARG,
             "dimension " + std::to_string(d) + ": size " + std::to_string(sizes[d]) +
                 ", subsize " + std::to_string(subsizes[d]) + ", start " +
                 std::to_string(starts[d]) + " (want 0 < subsize, 0 <= start, start + subsize "
                 "<= size)");
      }
    }
    const Typemap& old = old_type(fn, s, oldtype);
    // From the fastest-varying dimension out: each a vector of the one inside it.
    Typemap inner = old;
    MPI_Aint stride = old.extent(), offset = 0;
    for (std::size_t k = 0; k < nd; ++k) {
      const std::size_t d = order == MPI_ORDER_C ? nd - 1 - k : k;
      std::vector<Block> blocks;
      for (Int i = 0; i < subsizes[d]; ++i) blocks.push_back({i * stride, 1, &inner});
      inner = from_blocks(blocks, false);
      offset += static_cast<MPI_Aint>(starts[d]) * stride;
      stride *= static_cast<MPI_Aint>(sizes[d]);
    }
    const Typemap placed = from_blocks({Block{offset, 1, &inner}}, false);
    std::vector<int> ints{ndims};
    for (const Int* a : {sizes, subsizes, starts}) {
      for (std::size_t d = 0; d < nd; ++d) ints.push_back(static_cast<int>(a[d]));
    }
    ints.push_back(order);
    return add_datatype(s, resized(placed, 0, stride), MPI_COMBINER_SUBARRAY, std::move(ints),
                        {}, {oldtype});
  });
}

// --- queries -------------------------------------------------------------------------------

template <class Int>
int size_of(const char* fn, MPI_Datatype datatype, Int* size) {
  // A predefined type's size is its row's: programs that ask for it in their inner loops pay
  // an index, not the typemap's lookup and the error handling's frame.
  if (const PredefinedType* row = predefined_type(datatype); row != nullptr && size != nullptr) {
    *size = static_cast<Int>(row->size);
    return MPI_SUCCESS;
  }
  return mpi_call(MPI_COMM_SELF, [&] {
    const Typemap& t = query_typemap(fn, datatype);
    check_arg(fn, size, "size");
    if (t.size > static_cast<std::size_t>(std::numeric_limits<Int>::max())) {
      *size = static_cast<Int>(MPI_UNDEFINED);
      return MPI_SUCCESS;
    }
    *size = static_cast<Int>(t.size);
    return MPI_SUCCESS;
  });
}

// The lower bound and extent (true: of the data alone) of a datatype, as Int.
template <class Int>
int extent_of(const char* fn, MPI_Datatype datatype, Int* lb, Int* extent, bool true_extent) {
  return mpi_call(MPI_COMM_SELF, [&] {
    const Typemap& t = query_typemap(fn, datatype);
    check_arg(fn, lb, "lb");
    check_arg(fn, extent, "extent");
    *lb = static_cast<Int>(true_extent ? t.true_lb : t.lb);
    *extent = static_cast<Int>(true_extent ? t.true_extent() : t.extent());
    return MPI_SUCCESS;
  });
}

// The bytes MPI_Pack makes of `incount` items: their packed form's (which is also what a
// message of them carries, so that a buffer for MPI_Bsend sized by it with MPI_BSEND_OVERHEAD
// per message holds them).
template <class Int>
int pack_size(const char* fn, MPI_Count incount, MPI_Datatype datatype, MPI_Comm comm,
              Int* size, MPI_Count largest) {
  return mpi_call(comm, [&] {
    RankState& s = session_state(fn);
    comm_or_fail(fn, s, comm);
    if (incount < 0) fail(fn, MPI_ERR_COUNT, "negative count " + std::to_string(incount));
    const Typemap& t = any_typemap(fn, s, datatype);
    check_arg(fn, size, "size");
    const auto packed = static_cast<MPI_Count>(t.packed);
    if (packed > 0 && incount > largest / packed) {
      fail(fn, MPI_ERR_VALUE_TOO_LARGE,
           std::to_string(incount) + " items of " + type_label(s, datatype) +
               " take more than " + std::to_string(largest) + " bytes");
    }
    *size = static_cast<Int>(incount * packed);
    return MPI_SUCCESS;
  });
}

template <class Int>
int pack(const char* fn, const void* inbuf, MPI_Count incount, MPI_Datatype datatype,
         void* outbuf, MPI_Count outsize, Int* position, MPI_Comm comm) {
  return mpi_call(comm, [&] {
    RankState& s = session_state(fn);
    const CommEntry& e = comm_or_fail(fn, s, comm);
    if (incount < 0) fail(fn, MPI_ERR_COUNT, "negative count " + std::to_string(incount));
    const Typemap& t = moved_typemap(fn, s, datatype, incount);
    check_arg(fn, position, "position");
    const auto n = static_cast<std::size_t>(incount);
    const MPI_Count bytes = static_cast<MPI_Count>(n * t.packed);
    if (*position < 0 || *position + bytes > outsize) {
      fail(fn, MPI_ERR_TRUNCATE,
           std::to_string(incount) + " items of " + type_label(s, datatype) + " take " +
               std::to_string(bytes) + " bytes packed; the output buffer has " +
               std::to_string(outsize - *position) + " from position " +
               std::to_string(*position));
    }
    if (bytes > 0) {
      check_arg(fn, inbuf, "inbuf");
      check_arg(fn, outbuf, "outbuf");
      vmc::mpi::pack(t, inbuf, n, static_cast<unsigned char*>(outbuf) + *position);
      if (!t.contiguous) e.comm.charge_rearrange(n * t.elements);
    }
    *position += static_cast<Int>(bytes);
    return MPI_SUCCESS;
  });
}

template <class Int>
int unpack(const char* fn, const void* inbuf, MPI_Count insize, Int* position, void* outbuf,
           MPI_Count outcount, MPI_Datatype datatype, MPI_Comm comm) {
  return mpi_call(comm, [&] {
    RankState& s = session_state(fn);
    const CommEntry& e = comm_or_fail(fn, s, comm);
    if (outcount < 0) fail(fn, MPI_ERR_COUNT, "negative count " + std::to_string(outcount));
    const Typemap& t = moved_typemap(fn, s, datatype, outcount);
    check_arg(fn, position, "position");
    const auto n = static_cast<std::size_t>(outcount);
    const MPI_Count bytes = static_cast<MPI_Count>(n * t.packed);
    if (*position < 0 || *position + bytes > insize) {
      fail(fn, MPI_ERR_TRUNCATE,
           std::to_string(outcount) + " items of " + type_label(s, datatype) + " take " +
               std::to_string(bytes) + " bytes packed; the input buffer has " +
               std::to_string(insize - *position) + " from position " +
               std::to_string(*position));
    }
    if (bytes > 0) {
      check_arg(fn, inbuf, "inbuf");
      check_arg(fn, outbuf, "outbuf");
      vmc::mpi::unpack(t, static_cast<const unsigned char*>(inbuf) + *position,
                       static_cast<std::size_t>(bytes), outbuf);
      if (!t.contiguous) e.comm.charge_rearrange(n * t.elements);
    }
    *position += static_cast<Int>(bytes);
    return MPI_SUCCESS;
  });
}

int envelope(const char* fn, MPI_Datatype datatype, int* num_integers, int* num_addresses,
             int* num_large_counts, int* num_datatypes, int* combiner) {
  return mpi_call(MPI_COMM_SELF, [&] {
    RankState& s = types_state(fn);
    const DatatypeEntry* e = derived_entry(fn, s, datatype);
    for (const void* p : {static_cast<const void*>(num_integers),
                          static_cast<const void*>(num_addresses),
                          static_cast<const void*>(num_datatypes),
                          static_cast<const void*>(combiner)}) {
      check_arg(fn, p, "an output argument");
    }
    *num_integers = e != nullptr ? static_cast<int>(e->ints.size()) : 0;
    *num_addresses = e != nullptr ? static_cast<int>(e->addresses.size()) : 0;
    *num_datatypes = e != nullptr ? static_cast<int>(e->types.size()) : 0;
    if (num_large_counts != nullptr) *num_large_counts = 0;
    *combiner = e != nullptr ? e->combiner : MPI_COMBINER_NAMED;
    return MPI_SUCCESS;
  });
}

// The old types of a derived type, as the standard returns them: a predefined one itself, a
// derived one a new handle of it (MPI_Type_dup's: the program frees it).
int contents(const char* fn, MPI_Datatype datatype, MPI_Count max_integers,
             MPI_Count max_addresses, MPI_Count max_datatypes, int* integers,
             MPI_Aint* addresses, MPI_Datatype* datatypes) {
  return mpi_call(MPI_COMM_SELF, [&] {
    RankState& s = types_state(fn);
    const DatatypeEntry* e = derived_entry(fn, s, datatype);
    if (e == nullptr) {
      fail(fn, MPI_ERR_TYPE, type_label(s, datatype) +
                                 " is predefined (MPI_COMBINER_NAMED): it has no contents");
    }
    const DatatypeEntry copy = *e;  // the table may grow below
    if (max_integers < static_cast<MPI_Count>(copy.ints.size()) ||
        max_addresses < static_cast<MPI_Count>(copy.addresses.size()) ||
        max_datatypes < static_cast<MPI_Count>(copy.types.size())) {
      fail(fn, MPI_ERR_ARG,
           "the arrays are too small: the type has " + std::to_string(copy.ints.size()) +
               " integers, " + std::to_string(copy.addresses.size()) + " addresses and " +
               std::to_string(copy.types.size()) + " datatypes (MPI_Type_get_envelope)");
    }
    check_array(fn, integers, copy.ints.size(), "array_of_integers");
    check_array(fn, addresses, copy.addresses.size(), "array_of_addresses");
    check_array(fn, datatypes, copy.types.size(), "array_of_datatypes");
    std::copy(copy.ints.begin(), copy.ints.end(), integers);
    std::copy(copy.addresses.begin(), copy.addresses.end(), addresses);
    for (std::size_t i = 0; i < copy.types.size(); ++i) {
      const MPI_Datatype old = copy.types[i];
      const DatatypeEntry* oe = derived_entry(fn, s, old);
      if (oe == nullptr) {
        datatypes[i] = old;
        continue;
      }
      DatatypeEntry dup = *oe;
      dup.name.clear();
      s.datatypes.push_back(std::move(dup));
      datatypes[i] =
          static_cast<MPI_Datatype>(VMC_MPI_FIRST_DERIVED_TYPE + s.datatypes.size() - 1);
    }
    return MPI_SUCCESS;
  });
}

int get_address(const char* fn, const void* location, MPI_Aint* address) {
  return mpi_call(MPI_COMM_SELF, [&] {
    check_arg(fn, address, "address");
    *address = static_cast<MPI_Aint>(reinterpret_cast<std::uintptr_t>(location));
    return MPI_SUCCESS;
  });
}

}  // namespace

extern "C" {

// --- constructors --------------------------------------------------------------------------

int MPI_Type_contiguous(int count, MPI_Datatype oldtype, MPI_Datatype* newtype) {
  return contiguous("MPI_Type_contiguous", count, oldtype, newtype);
}
int MPI_Type_contiguous_c(MPI_Count count, MPI_Datatype oldtype, MPI_Datatype* newtype) {
  return contiguous("MPI_Type_contiguous_c", count, oldtype, newtype);
}

int MPI_Type_vector(int count, int blocklength, int stride, MPI_Datatype oldtype,
                    MPI_Datatype* newtype) {
  return vector("MPI_Type_vector", count, blocklength, stride, oldtype, newtype, false);
}
int MPI_Type_vector_c(MPI_Count count, MPI_Count blocklength, MPI_Count stride,
                      MPI_Datatype oldtype, MPI_Datatype* newtype) {
  return vector("MPI_Type_vector_c", count, blocklength, stride, oldtype, newtype, false);
}

int MPI_Type_create_hvector(int count, int blocklength, MPI_Aint stride, MPI_Datatype oldtype,
                            MPI_Datatype* newtype) {
  return vector("MPI_Type_create_hvector", count, blocklength, stride, oldtype, newtype, true);
}
int MPI_Type_create_hvector_c(MPI_Count count, MPI_Count blocklength, MPI_Count stride,
                              MPI_Datatype oldtype, MPI_Datatype* newtype) {
  return vector("MPI_Type_create_hvector_c", count, blocklength, stride, oldtype, newtype, true);
}

int MPI_Type_indexed(int count, const int array_of_blocklengths[],
                     const int array_of_displacements[], MPI_Datatype oldtype,
                     MPI_Datatype* newtype) {
  return indexed("MPI_Type_indexed", count, array_of_blocklengths, 0, array_of_displacements,
                 oldtype, newtype, false, false);
}
int MPI_Type_indexed_c(MPI_Count count, const MPI_Count array_of_blocklengths[],
                       const MPI_Count array_of_displacements[], MPI_Datatype oldtype,
                       MPI_Datatype* newtype) {
  return indexed("MPI_Type_indexed_c", count, array_of_blocklengths, MPI_Count{0},
                 array_of_displacements, oldtype, newtype, false, false);
}

int MPI_Type_create_hindexed(int count, const int array_of_blocklengths[],
                             const MPI_Aint array_of_displacements[], MPI_Datatype oldtype,
                             MPI_Datatype* newtype) {
  return indexed("MPI_Type_create_hindexed", count, array_of_blocklengths, 0,
                 array_of_displacements, oldtype, newtype, true, false);
}
int MPI_Type_create_hindexed_c(MPI_Count count, const MPI_Count array_of_blocklengths[],
                               const MPI_Count array_of_displacements[], MPI_Datatype oldtype,
                               MPI_Datatype* newtype) {
  return indexed("MPI_Type_create_hindexed_c", count, array_of_blocklengths, MPI_Count{0},
                 array_of_displacements, oldtype, newtype, true, false);
}

int MPI_Type_create_indexed_block(int count, int blocklength, const int array_of_displacements[],
                                  MPI_Datatype oldtype, MPI_Datatype* newtype) {
  return indexed("MPI_Type_create_indexed_block", count, static_cast<const int*>(nullptr),
                 blocklength, array_of_displacements, oldtype, newtype, false, true);
}
int MPI_Type_create_indexed_block_c(MPI_Count count, MPI_Count blocklength,
                                    const MPI_Count array_of_displacements[],
                                    MPI_Datatype oldtype, MPI_Datatype* newtype) {
  return indexed("MPI_Type_create_indexed_block_c", count,
                 static_cast<const MPI_Count*>(nullptr), blocklength, array_of_displacements,
                 oldtype, newtype, false, true);
}

int MPI_Type_create_hindexed_block(int count, int blocklength,
                                   const MPI_Aint array_of_displacements[], MPI_Datatype oldtype,
                                   MPI_Datatype* newtype) {
  return indexed("MPI_Type_create_hindexed_block", count, static_cast<const int*>(nullptr),
                 blocklength, array_of_displacements, oldtype, newtype, true, true);
}
int MPI_Type_create_hindexed_block_c(MPI_Count count, MPI_Count blocklength,
                                     const MPI_Count array_of_displacements[],
                                     MPI_Datatype oldtype, MPI_Datatype* newtype) {
  return indexed("MPI_Type_create_hindexed_block_c", count,
                 static_cast<const MPI_Count*>(nullptr), blocklength, array_of_displacements,
                 oldtype, newtype, true, true);
}

int MPI_Type_create_struct(int count, const int array_of_blocklengths[],
                           const MPI_Aint array_of_displacements[],
                           const MPI_Datatype array_of_types[], MPI_Datatype* newtype) {
  return structure("MPI_Type_create_struct", count, array_of_blocklengths,
                   array_of_displacements, array_of_types, newtype);
}
int MPI_Type_create_struct_c(MPI_Count count, const MPI_Count array_of_blocklengths[],
                             const MPI_Count array_of_displacements[],
                             const MPI_Datatype array_of_types[], MPI_Datatype* newtype) {
  return structure("MPI_Type_create_struct_c", count, array_of_blocklengths,
                   array_of_displacements, array_of_types, newtype);
}

int MPI_Type_create_resized(MPI_Datatype oldtype, MPI_Aint lb, MPI_Aint extent,
                            MPI_Datatype* newtype) {
  return resize("MPI_Type_create_resized", oldtype, lb, extent, newtype);
}
int MPI_Type_create_resized_c(MPI_Datatype oldtype, MPI_Count lb, MPI_Count extent,
                              MPI_Datatype* newtype) {
  return resize("MPI_Type_create_resized_c", oldtype, lb, extent, newtype);
}

int MPI_Type_create_subarray(int ndims, const int array_of_sizes[], const int array_of_subsizes[],
                             const int array_of_starts[], int order, MPI_Datatype oldtype,
                             MPI_Datatype* newtype) {
  return subarray("MPI_Type_create_subarray", ndims, array_of_sizes, array_of_subsizes,
                  array_of_starts, order, oldtype, newtype);
}
int MPI_Type_create_subarray_c(int ndims, const MPI_Count array_of_sizes[],
                               const MPI_Count array_of_subsizes[],
                               const MPI_Count array_of_starts[], int order, MPI_Datatype oldtype,
                               MPI_Datatype* newtype) {
  return subarray("MPI_Type_create_subarray_c", ndims, array_of_sizes, array_of_subsizes,
                  array_of_starts, order, oldtype, newtype);
}

int MPI_Type_dup(MPI_Datatype oldtype, MPI_Datatype* newtype) {
  const char* fn = "MPI_Type_dup";
  return construct(fn, newtype, [&](RankState& s) {
    const Typemap& old = old_type(fn, s, oldtype);
    const DatatypeEntry* e = derived_entry(fn, s, oldtype);
    const bool committed = e == nullptr || e->committed;
    const MPI_Datatype h = add_datatype(s, old, MPI_COMBINER_DUP, {}, {}, {oldtype});
    entry_of(s, h).committed = committed;  // a dup is committed when its old type is
    copy_type_attributes(fn, s, oldtype, h, [&] {
      entry_of(s, h).freed = true;
      entry_of(s, h).map.reset();
    });
    return h;
  });
}

// MPI-1's, removed in MPI-3.0 (include/vmc_mpi_removed_functions.h).
int MPI_Type_hvector(int count, int blocklength, MPI_Aint stride, MPI_Datatype oldtype,
                     MPI_Datatype* newtype) {
  return vector("MPI_Type_hvector", count, blocklength, stride, oldtype, newtype, true);
}
int MPI_Type_hindexed(int count, const int array_of_blocklengths[],
                      const MPI_Aint array_of_displacements[], MPI_Datatype oldtype,
                      MPI_Datatype* newtype) {
  return indexed("MPI_Type_hindexed", count, array_of_blocklengths, 0, array_of_displacements,
                 oldtype, newtype, true, false);
}
int MPI_Type_struct(int count, const int array_of_blocklengths[],
                    const MPI_Aint array_of_displacements[], const MPI_Datatype array_of_types[],
                    MPI_Datatype* newtype) {
  return structure("MPI_Type_struct", count, array_of_blocklengths, array_of_displacements,
                   array_of_types, newtype);
}

int MPI_Type_commit(MPI_Datatype* datatype) {
  const char* fn = "MPI_Type_commit";
  return mpi_call(MPI_COMM_SELF, [&] {
    RankState& s = types_state(fn);
    check_arg(fn, datatype, "datatype");
    if (derived_entry(fn, s, *datatype) != nullptr) entry_of(s, *datatype).committed = true;
    return MPI_SUCCESS;
  });
}

int MPI_Type_free(MPI_Datatype* datatype) {
  const char* fn = "MPI_Type_free";
  return mpi_call(MPI_COMM_SELF, [&] {
    RankState& s = types_state(fn);
    check_arg(fn, datatype, "datatype");
    if (derived_entry(fn, s, *datatype) == nullptr) {
      fail(fn, MPI_ERR_TYPE, type_label(s, *datatype) + " is predefined: it cannot be freed");
    }
    delete_type_attributes(fn, s, *datatype);
    DatatypeEntry& e = entry_of(s, *datatype);
    e.freed = true;
    e.map.reset();  // requests in flight keep theirs
    *datatype = MPI_DATATYPE_NULL;
    return MPI_SUCCESS;
  });
}

// --- queries -------------------------------------------------------------------------------

int MPI_Type_size(MPI_Datatype datatype, int* size) {
  return size_of("MPI_Type_size", datatype, size);
}
int MPI_Type_size_x(MPI_Datatype datatype, MPI_Count* size) {
  return size_of("MPI_Type_size_x", datatype, size);
}
int MPI_Type_size_c(MPI_Datatype datatype, MPI_Count* size) {
  return size_of("MPI_Type_size_c", datatype, size);
}

int MPI_Type_get_extent(MPI_Datatype datatype, MPI_Aint* lb, MPI_Aint* extent) {
  return extent_of("MPI_Type_get_extent", datatype, lb, extent, false);
}
int MPI_Type_get_extent_x(MPI_Datatype datatype, MPI_Count* lb, MPI_Count* extent) {
  return extent_of("MPI_Type_get_extent_x", datatype, lb, extent, false);
}
int MPI_Type_get_extent_c(MPI_Datatype datatype, MPI_Count* lb, MPI_Count* extent) {
  return extent_of("MPI_Type_get_extent_c", datatype, lb, extent, false);
}

int MPI_Type_get_true_extent(MPI_Datatype datatype, MPI_Aint* true_lb, MPI_Aint* true_extent) {
  return extent_of("MPI_Type_get_true_extent", datatype, true_lb, true_extent, true);
}
int MPI_Type_get_true_extent_x(MPI_Datatype datatype, MPI_Count* true_lb,
                               MPI_Count* true_extent) {
  return extent_of("MPI_Type_get_true_extent_x", datatype, true_lb, true_extent, true);
}
int MPI_Type_get_true_extent_c(MPI_Datatype datatype, MPI_Count* true_lb,
                               MPI_Count* true_extent) {
  return extent_of("MPI_Type_get_true_extent_c", datatype, true_lb, true_extent, true);
}

int MPI_Type_get_envelope(MPI_Datatype datatype, int* num_integers, int* num_addresses,
                          int* num_datatypes, int* combiner) {
  return envelope("MPI_Type_get_envelope", datatype, num_integers, num_addresses, nullptr,
                  num_datatypes, combiner);
}
int MPI_Type_get_envelope_c(MPI_Datatype datatype, MPI_Count* num_integers,
                            MPI_Count* num_addresses, MPI_Count* num_large_counts,
                            MPI_Count* num_datatypes, int* combiner) {
  int i = 0, a = 0, l = 0, d = 0;
  const int err =
      envelope("MPI_Type_get_envelope_c", datatype, &i, &a, &l, &d, combiner);
  if (err != MPI_SUCCESS) return err;
  if (num_integers != nullptr) *num_integers = i;
  if (num_addresses != nullptr) *num_addresses = a;
  if (num_large_counts != nullptr) *num_large_counts = l;
  if (num_datatypes != nullptr) *num_datatypes = d;
  return MPI_SUCCESS;
}

int MPI_Type_get_contents(MPI_Datatype datatype, int max_integers, int max_addresses,
                          int max_datatypes, int array_of_integers[],
                          MPI_Aint array_of_addresses[], MPI_Datatype array_of_datatypes[]) {
  return contents("MPI_Type_get_contents", datatype, max_integers, max_addresses, max_datatypes,
                  array_of_integers, array_of_addresses, array_of_datatypes);
}
int MPI_Type_get_contents_c(MPI_Datatype datatype, MPI_Count max_integers,
                            MPI_Count max_addresses, MPI_Count max_large_counts,
                            MPI_Count max_datatypes, int array_of_integers[],
                            MPI_Aint array_of_addresses[], MPI_Count array_of_large_counts[],
                            MPI_Datatype array_of_datatypes[]) {
  (void)max_large_counts;
  (void)array_of_large_counts;
  return contents("MPI_Type_get_contents_c", datatype, max_integers, max_addresses,
                  max_datatypes, array_of_integers, array_of_addresses, array_of_datatypes);
}

int MPI_Type_get_name(MPI_Datatype datatype, char* type_name, int* resultlen) {
  const char* fn = "MPI_Type_get_name";
  return mpi_call(MPI_COMM_SELF, [&] {
    const RankState& s = session_state(fn);
    const DatatypeEntry* e = derived_entry(fn, s, datatype);
    check_arg(fn, type_name, "type_name");
    check_arg(fn, resultlen, "resultlen");
    std::string name;
    if (e != nullptr) {
      name = e->name;
    } else {
      const auto given = s.type_names.find(datatype);
      name = given != s.type_names.end() ? given->second : predefined_type(datatype)->name;
    }
    std::memcpy(type_name, name.c_str(), name.size() + 1);
    *resultlen = static_cast<int>(name.size());
    return MPI_SUCCESS;
  });
}

int MPI_Type_set_name(MPI_Datatype datatype, const char* type_name) {
  const char* fn = "MPI_Type_set_name";
  return mpi_call(MPI_COMM_SELF, [&] {
    RankState& s = session_state(fn);
    const DatatypeEntry* e = derived_entry(fn, s, datatype);
    check_arg(fn, type_name, "type_name");
    std::string name(type_name, strnlen(type_name, MPI_MAX_OBJECT_NAME - 1));
    if (e != nullptr) {
      entry_of(s, datatype).name = std::move(name);
    } else {
      s.type_names[datatype] = std::move(name);
    }
    return MPI_SUCCESS;
  });
}

// --- packing -------------------------------------------------------------------------------

int MPI_Pack(const void* inbuf, int incount, MPI_Datatype datatype, void* outbuf, int outsize,
             int* position, MPI_Comm comm) {
  return pack("MPI_Pack", inbuf, incount, datatype, outbuf, outsize, position, comm);
}
int MPI_Pack_c(const void* inbuf, MPI_Count incount, MPI_Datatype datatype, void* outbuf,
               MPI_Count outsize, MPI_Count* position, MPI_Comm comm) {
  return pack("MPI_Pack_c", inbuf, incount, datatype, outbuf, outsize, position, comm);
}

int MPI_Unpack(const void* inbuf, int insize, int* position, void* outbuf, int outcount,
               MPI_Datatype datatype, MPI_Comm comm) {
  return unpack("MPI_Unpack", inbuf, insize, position, outbuf, outcount, datatype, comm);
}
int MPI_Unpack_c(const void* inbuf, MPI_Count insize, MPI_Count* position, void* outbuf,
                 MPI_Count outcount, MPI_Datatype datatype, MPI_Comm comm) {
  return unpack("MPI_Unpack_c", inbuf, insize, position, outbuf, outcount, datatype, comm);
}

int MPI_Pack_size(int incount, MPI_Datatype datatype, MPI_Comm comm, int* size) {
  return pack_size("MPI_Pack_size", incount, datatype, comm, size, INT_MAX);
}
int MPI_Pack_size_c(MPI_Count incount, MPI_Datatype datatype, MPI_Comm comm, MPI_Count* size) {
  return pack_size("MPI_Pack_size_c", incount, datatype, comm, size, LLONG_MAX);
}

int MPI_Get_address(const void* location, MPI_Aint* address) {
  return get_address("MPI_Get_address", location, address);
}

// --- MPI-1's, removed in MPI-3.0 (include/vmc_mpi_removed_functions.h) -------------------

int MPI_Address(const void* location, MPI_Aint* address) {
  return get_address("MPI_Address", location, address);
}

int MPI_Type_extent(MPI_Datatype datatype, MPI_Aint* extent) {
  MPI_Aint lb = 0;
  return extent_of("MPI_Type_extent", datatype, &lb, extent, false);
}

int MPI_Type_lb(MPI_Datatype datatype, MPI_Aint* displacement) {
  MPI_Aint extent = 0;
  return extent_of("MPI_Type_lb", datatype, displacement, &extent, false);
}

int MPI_Type_ub(MPI_Datatype datatype, MPI_Aint* displacement) {
  const char* fn = "MPI_Type_ub";
  return mpi_call(MPI_COMM_SELF, [&] {
    const Typemap& t = query_typemap(fn, datatype);
    check_arg(fn, displacement, "displacement");
    *displacement = t.ub;
    return MPI_SUCCESS;
  });
}

}  // extern "C"
