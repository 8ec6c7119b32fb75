// vmc's predefined MPI datatypes, one row per handle: a predefined handle (mpi.h, 1 to
// VMC_MPI_PREDEFINED_TYPES - 1) is its row's index, so a type's name, size, extent and kind
// are one lookup away. Size is the bytes of data, extent the span one item takes in an array,
// true extent the span from its first byte of data to its last (they differ for the
// value-and-index pairs, whose members are padded: MPI_SHORT_INT's 6 bytes of data span 8,
// and it takes 8). Every lower bound is 0. Kinds are the standard's groups of types for the
// reduction operations.
#pragma once

#include <array>
#include <complex>
#include <cstddef>

#include "mpi/include/mpi.h"

namespace vmc::mpi {

enum class TypeKind {
  none,             // MPI_DATATYPE_NULL
  character,        // MPI_CHAR, MPI_WCHAR, MPI_CHARACTER: text, no arithmetic
  c_integer,        // C's signed and unsigned integers
  fortran_integer,  // INTEGER and INTEGERn
  floating_point,   // C's and Fortran's reals
  logical,          // MPI_C_BOOL, MPI_CXX_BOOL, MPI_LOGICAL
  complex,          // C's, C++'s and Fortran's complex numbers
  byte,             // MPI_BYTE
  multi_language,   // MPI_AINT, MPI_OFFSET, MPI_COUNT
  packed,           // MPI_PACKED
  pair,             // a value and an index, for MPI_MAXLOC and MPI_MINLOC
  bound,            // MPI_LB, MPI_UB: markers of MPI-1's MPI_Type_struct, no data
};

struct PredefinedType {
  MPI_Datatype handle;
  const char* name;
  std::size_t size;
  std::size_t extent;
  TypeKind kind;
  std::size_t true_extent;
};

namespace detail {

template <class Value, class Index>
struct Pair {
  Value value;
  Index index;
};

template <class T>
constexpr PredefinedType plain(MPI_Datatype handle, const char* name, TypeKind kind) {
  return {handle, name, sizeof(T), sizeof(T), kind, sizeof(T)};
}
constexpr PredefinedType sized(MPI_Datatype handle, const char* name, std::size_t size,
                               TypeKind kind) {
  return {handle, name, size, size, kind, size};
}
template <class Value, class Index>
constexpr PredefinedType pair(MPI_Datatype handle, const char* name) {
  using Both = Pair<Value, Index>;
  return {handle, name, sizeof(Value) + sizeof(Index), sizeof(Both), TypeKind::pair,
          offsetof(Both, index) + sizeof(Index)};
}

}  // namespace detail

// Fortran's default INTEGER, REAL and LOGICAL are 4 bytes, DOUBLE PRECISION 8.
inline constexpr std::array<PredefinedType, VMC_MPI_PREDEFINED_TYPES> kPredefinedTypes = {{
    {MPI_DATATYPE_NULL, "MPI_DATATYPE_NULL", 0, 0, TypeKind::none, 0},
    detail::plain<char>(MPI_CHAR, "MPI_CHAR", TypeKind::character),
    detail::plain<signed char>(MPI_SIGNED_CHAR, "MPI_SIGNED_CHAR", TypeKind::c_integer),
    detail::plain<unsigned char>(MPI_UNSIGNED_CHAR, "MPI_UNSIGNED_CHAR", TypeKind::c_integer),
    detail::sized(MPI_BYTE, "MPI_BYTE", 1, TypeKind::byte),
    detail::plain<short>(MPI_SHORT, "MPI_SHORT", TypeKind::c_integer),
    detail::plain<unsigned short>(MPI_UNSIGNED_SHORT, "MPI_UNSIGNED_SHORT", TypeKind::c_integer),
    detail::plain<int>(MPI_INT, "MPI_INT", TypeKind::c_integer),
    detail::plain<unsigned>(MPI_UNSIGNED, "MPI_UNSIGNED", TypeKind::c_integer),
    detail::plain<long>(MPI_LONG, "MPI_LONG", TypeKind::c_integer),
    detail::plain<unsigned long>(MPI_UNSIGNED_LONG, "MPI_UNSIGNED_LONG", TypeKind::c_integer),
    detail::plain<long long>(MPI_LONG_LONG, "MPI_LONG_LONG", TypeKind::c_integer),
    detail::plain<unsigned long long>(MPI_UNSIGNED_LONG_LONG, "MPI_UNSIGNED_LONG_LONG",
                                      TypeKind::c_integer),
    detail::plain<float>(MPI_FLOAT, "MPI_FLOAT", TypeKind::floating_point),
    detail::plain<double>(MPI_DOUBLE, "MPI_DOUBLE", TypeKind::floating_point),
    detail::plain<long double>(MPI_LONG_DOUBLE, "MPI_LONG_DOUBLE", TypeKind::floating_point),
    detail::sized(MPI_INT8_T, "MPI_INT8_T", 1, TypeKind::c_integer),
    detail::sized(MPI_UINT8_T, "MPI_UINT8_T", 1, TypeKind::c_integer),
    detail::sized(MPI_INT16_T, "MPI_INT16_T", 2, TypeKind::c_integer),
    detail::sized(MPI_UINT16_T, "MPI_UINT16_T", 2, TypeKind::c_integer),
    detail::sized(MPI_INT32_T, "MPI_INT32_T", 4, TypeKind::c_integer),
    detail::sized(MPI_UINT32_T, "MPI_UINT32_T", 4, TypeKind::c_integer),
    detail::sized(MPI_INT64_T, "MPI_INT64_T", 8, TypeKind::c_integer),
    detail::sized(MPI_UINT64_T, "MPI_UINT64_T", 8, TypeKind::c_integer),
    detail::plain<bool>(MPI_C_BOOL, "MPI_C_BOOL", TypeKind::logical),
    detail::plain<wchar_t>(MPI_WCHAR, "MPI_WCHAR", TypeKind::character),
    detail::plain<MPI_Aint>(MPI_AINT, "MPI_AINT", TypeKind::multi_language),
    detail::plain<MPI_Offset>(MPI_OFFSET, "MPI_OFFSET", TypeKind::multi_language),
    detail::plain<MPI_Count>(MPI_COUNT, "MPI_COUNT", TypeKind::multi_language),
    detail::sized(MPI_PACKED, "MPI_PACKED", 1, TypeKind::packed),
    detail::plain<std::complex<float>>(MPI_C_FLOAT_COMPLEX, "MPI_C_FLOAT_COMPLEX",
                                       TypeKind::complex),
    detail::plain<std::complex<double>>(MPI_C_DOUBLE_COMPLEX, "MPI_C_DOUBLE_COMPLEX",
                                        TypeKind::complex),
    detail::plain<std::complex<long double>>(MPI_C_LONG_DOUBLE_COMPLEX,
                                             "MPI_C_LONG_DOUBLE_COMPLEX", TypeKind::complex),
    detail::plain<bool>(MPI_CXX_BOOL, "MPI_CXX_BOOL", TypeKind::logical),
    detail::plain<std::complex<float>>(MPI_CXX_FLOAT_COMPLEX, "MPI_CXX_FLOAT_COMPLEX",
                                       TypeKind::complex),
    detail::plain<std::complex<double>>(MPI_CXX_DOUBLE_COMPLEX, "MPI_CXX_DOUBLE_COMPLEX",
                                        TypeKind::complex),
    detail::plain<std::complex<long double>>(MPI_CXX_LONG_DOUBLE_COMPLEX,
                                             "MPI_CXX_LONG_DOUBLE_COMPLEX", TypeKind::complex),
    detail::pair<float, int>(MPI_FLOAT_INT, "MPI_FLOAT_INT"),
    detail::pair<double, int>(MPI_DOUBLE_INT, "MPI_DOUBLE_INT"),
    detail::pair<long, int>(MPI_LONG_INT, "MPI_LONG_INT"),
    detail::pair<int, int>(MPI_2INT, "MPI_2INT"),
    detail::pair<short, int>(MPI_SHORT_INT, "MPI_SHORT_INT"),
    detail::pair<long double, int>(MPI_LONG_DOUBLE_INT, "MPI_LONG_DOUBLE_INT"),
    detail::sized(MPI_CHARACTER, "MPI_CHARACTER", 1, TypeKind::character),
    detail::sized(MPI_LOGICAL, "MPI_LOGICAL", 4, TypeKind::logical),
    detail::sized(MPI_INTEGER, "MPI_INTEGER", 4, TypeKind::fortran_integer),
    detail::sized(MPI_REAL, "MPI_REAL", 4, TypeKind::floating_point),
    detail::sized(MPI_DOUBLE_PRECISION, "MPI_DOUBLE_PRECISION", 8, TypeKind::floating_point),
    detail::sized(MPI_COMPLEX, "MPI_COMPLEX", 8, TypeKind::complex),
    detail::sized(MPI_DOUBLE_COMPLEX, "MPI_DOUBLE_COMPLEX", 16, TypeKind::complex),
    detail::sized(MPI_2REAL, "MPI_2REAL", 8, TypeKind::pair),
    detail::sized(MPI_2DOUBLE_PRECISION, "MPI_2DOUBLE_PRECISION", 16, TypeKind::pair),
    detail::sized(MPI_2INTEGER, "MPI_2INTEGER", 8, TypeKind::pair),
    detail::sized(MPI_INTEGER1, "MPI_INTEGER1", 1, TypeKind::fortran_integer),
    detail::sized(MPI_INTEGER2, "MPI_INTEGER2", 2, TypeKind::fortran_integer),
    detail::sized(MPI_INTEGER4, "MPI_INTEGER4", 4, TypeKind::fortran_integer),
    detail::sized(MPI_INTEGER8, "MPI_INTEGER8", 8, TypeKind::fortran_integer),
    detail::sized(MPI_INTEGER16, "MPI_INTEGER16", 16, TypeKind::fortran_integer),
    detail::sized(MPI_REAL2, "MPI_REAL2", 2, TypeKind::floating_point),
    detail::sized(MPI_REAL4, "MPI_REAL4", 4, TypeKind::floating_point),
    detail::sized(MPI_REAL8, "MPI_REAL8", 8, TypeKind::floating_point),
    detail::sized(MPI_REAL16, "MPI_REAL16", 16, TypeKind::floating_point),
    detail::sized(MPI_COMPLEX4, "MPI_COMPLEX4", 4, TypeKind::complex),
    detail::sized(MPI_COMPLEX8, "MPI_COMPLEX8", 8, TypeKind::complex),
    detail::sized(MPI_COMPLEX16, "MPI_COMPLEX16", 16, TypeKind::complex),
    detail::sized(MPI_COMPLEX32, "MPI_COMPLEX32", 32, TypeKind::complex),
    {MPI_LB, "MPI_LB", 0, 0, TypeKind::bound, 0},
    {MPI_UB, "MPI_UB", 0, 0, TypeKind::bound, 0},
}};

// Every row sits at its handle.
constexpr bool rows_at_their_handles() {
  for (std::size_t i = 0; i < kPredefinedTypes.size(); ++i) {
    if (kPredefinedTypes[i].handle != static_cast<MPI_Datatype>(i)) return false;
  }
  return true;
}
static_assert(rows_at_their_handles(), "kPredefinedTypes: a row is not at its handle");

// The row of a predefined datatype, or null for any other handle.
constexpr const PredefinedType* predefined_type(MPI_Datatype datatype) {
  if (datatype <= MPI_DATATYPE_NULL || datatype >= VMC_MPI_PREDEFINED_TYPES) return nullptr;
  return &kPredefinedTypes[static_cast<std::size_t>(datatype)];
}

}  // namespace vmc::mpi
