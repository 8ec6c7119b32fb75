// Typemaps: building them from blocks, packing and unpacking (typemap.hpp).
#include "mpi/typemap.hpp"

#include <algorithm>
#include <array>
#include <cstring>
#include <limits>

namespace vmc::mpi {
namespace {

const PredefinedType& row(MPI_Datatype t) { return kPredefinedTypes[static_cast<std::size_t>(t)]; }

// The bytes one element of predefined type t takes, in memory and packed.
MPI_Aint element_extent(MPI_Datatype t) { return static_cast<MPI_Aint>(row(t).extent); }

// The alignment C gives a predefined type: a complex number its part's, a pair its larger
// member's, any other its size (to 16 bytes).
std::size_t alignment_of(MPI_Datatype t) {
  switch (t) {
    case MPI_FLOAT_INT: case MPI_2INT: case MPI_SHORT_INT: return alignof(int);
    case MPI_DOUBLE_INT: return alignof(double);
    case MPI_LONG_INT: return alignof(long);
    case MPI_LONG_DOUBLE_INT: return alignof(long double);
    default: break;
  }
  const PredefinedType& p = row(t);
  std::size_t a = p.kind == TypeKind::complex || p.kind == TypeKind::pair ? p.size / 2 : p.size;
  a = std::min<std::size_t>(a, 16);
  while (a > 1 && (a & (a - 1)) != 0) --a;  // a power of two
  return std::max<std::size_t>(a, 1);
}

// Basic elements in one predefined element (MPI_Get_elements counts a pair's two).
std::size_t basic_in(MPI_Datatype t) { return row(t).kind == TypeKind::pair ? 2 : 1; }

void append(std::vector<Run>& runs, MPI_Aint offset, MPI_Datatype type, std::size_t count) {
  if (count == 0) return;
  if (!runs.empty()) {
    Run& last = runs.back();
    if (last.type == type &&
        last.offset + static_cast<MPI_Aint>(last.count) * element_extent(type) == offset) {
      last.count += count;
      return;
    }
  }
  runs.push_back({offset, type, count});
}

// The true bounds, the basic type and `contiguous`, from the runs and the bounds. A type
// with no elements keeps the basic type it was given (what it is made of, from_blocks).
void finish(Typemap& t) {
  if (t.runs.empty()) {
    t.true_lb = t.true_ub = 0;
  } else {
    t.true_lb = std::numeric_limits<MPI_Aint>::max();
    t.true_ub = std::numeric_limits<MPI_Aint>::min();
    t.basic = t.runs.front().type;
    for (const Run& r : t.runs) {
      const MPI_Aint e = element_extent(r.type);
      const auto last = r.offset + static_cast<MPI_Aint>(r.count - 1) * e;
      t.true_lb = std::min(t.true_lb, r.offset);
      t.true_ub = std::max(t.true_ub, last + static_cast<MPI_Aint>(row(r.type).true_extent));
      if (r.type != t.basic) t.basic = MPI_DATATYPE_NULL;
    }
  }
  const auto packed = static_cast<MPI_Aint>(t.packed);
  t.contiguous = t.extent() == packed &&
                 (t.runs.empty() || (t.runs.size() == 1 && t.runs.front().offset == 0));
}

}  // namespace

const Typemap& predefined_typemap(MPI_Datatype predefined) {
  static const std::array<Typemap, VMC_MPI_PREDEFINED_TYPES> table = [] {
    std::array<Typemap, VMC_MPI_PREDEFINED_TYPES> out{};
    for (std::size_t i = 0; i < out.size(); ++i) {
      const PredefinedType& p = kPredefinedTypes[i];
      Typemap& t = out[i];
      if (p.kind == TypeKind::bound || p.kind == TypeKind::none) {  // no data, no bounds
        finish(t);
        continue;
      }
      t.runs.push_back({0, p.handle, 1});
      t.ub = static_cast<MPI_Aint>(p.extent);
      t.size = p.size;
      t.packed = p.extent;
      t.elements = 1;
      t.alignment = alignment_of(p.handle);
      finish(t);
    }
    return out;
  }();
  return table.at(static_cast<std::size_t>(predefined));
}

Typemap from_blocks(const std::vector<Block>& blocks, bool align_extent) {
  Typemap t;
  constexpr MPI_Aint kMax = std::numeric_limits<MPI_Aint>::max();
  constexpr MPI_Aint kMin = std::numeric_limits<MPI_Aint>::min();
  MPI_Aint sticky_lb = kMax, sticky_ub = kMin, data_lb = kMax, data_ub = kMin;
  for (const Block& b : blocks) {
    if (b.marker == MPI_LB) {
      sticky_lb = std::min(sticky_lb, b.displacement);
      t.sticky_lb = true;
      continue;
    }
    if (b.marker == MPI_UB) {
      sticky_ub = std::max(sticky_ub, b.displacement);
      t.sticky_ub = true;
      continue;
    }
    if (b.length == 0 || b.type == nullptr) continue;
    const Typemap& old = *b.type;
    const MPI_Aint ext = old.extent();
    const MPI_Aint span = static_cast<MPI_Aint>(b.length - 1) * ext;
    const MPI_Aint lo = b.displacement + old.lb + std::min<MPI_Aint>(0, span);
    const MPI_Aint hi = b.displacement + old.ub + std::max<MPI_Aint>(0, span);
    if (old.sticky_lb) {
      sticky_lb = std::min(sticky_lb, lo);
      t.sticky_lb = true;
    } else {
      data_lb = std::min(data_lb, lo);
    }
    if (old.sticky_ub) {
      sticky_ub = std::max(sticky_ub, hi);
      t.sticky_ub = true;
    } else {
      data_ub = std::max(data_ub, hi);
    }
    // The old type's runs, once per item; one run when its items lie back to back.
    if (old.runs.size() == 1 &&
        static_cast<MPI_Aint>(old.runs[0].count) * element_extent(old.runs[0].type) == ext) {
      append(t.runs, b.displacement + old.runs[0].offset, old.runs[0].type,
             old.runs[0].count * b.length);
    } else {
      for (std::size_t k = 0; k < b.length; ++k) {
        for (const Run& r : old.runs) {
          append(t.runs, b.displacement + static_cast<MPI_Aint>(k) * ext + r.offset, r.type,
                 r.count);
        }
      }
    }
    t.size += b.length * old.size;
    t.packed += b.length * old.packed;
    t.elements += b.length * old.elements;
    t.alignment = std::max(t.alignment, old.alignment);
  }
  // A type of no elements (a count or every block length 0) moves nothing, but it still
  // moves as the type it is made of, so that a rank's empty MPI_Type_contiguous(0, MPI_INT)
  // meets another rank's MPI_INT in one collective (MPI matches signatures, and an empty
  // one matches any empty one): the one basic type of its blocks' types, if they have one.
  if (t.runs.empty()) {
    bool first = true;
    for (const Block& b : blocks) {
      if (b.type == nullptr || b.marker == MPI_LB || b.marker == MPI_UB) continue;
      const MPI_Datatype of = b.type->basic;
      t.basic = first || t.basic == of ? of : MPI_DATATYPE_NULL;
      first = false;
    }
  }
  t.lb = t.sticky_lb ? sticky_lb : (data_lb == kMax ? 0 : data_lb);
  t.ub = t.sticky_ub ? sticky_ub : (data_ub == kMin ? t.lb : data_ub);
  if (align_extent && !t.sticky_ub && t.alignment > 1) {
    const auto a = static_cast<MPI_Aint>(t.alignment);
    const MPI_Aint rem = ((t.extent() % a) + a) % a;
    if (rem != 0) t.ub += a - rem;
  }
  finish(t);
  return t;
}

Typemap resized(const Typemap& old, MPI_Aint lb, MPI_Aint extent) {
  Typemap t = old;
  t.lb = lb;
  t.ub = lb + extent;
  t.sticky_lb = t.sticky_ub = true;
  finish(t);
  return t;
}

std::string signature_text(const Typemap& t) {
  std::vector<std::pair<MPI_Datatype, std::size_t>> groups;
  for (const Run& r : t.runs) {
    if (!groups.empty() && groups.back().first == r.type) {
      groups.back().second += r.count;
    } else {
      groups.emplace_back(r.type, r.count);
    }
  }
  if (groups.empty()) return "no data";
  auto text = [](const std::pair<MPI_Datatype, std::size_t>& g) {
    return std::to_string(g.second) + " x " + row(g.first).name;
  };
  if (groups.size() == 1) return text(groups[0]);
  std::string s = "{";
  for (std::size_t i = 0; i < groups.size(); ++i) {
    if (i == 6) {
      s += ", ... (" + std::to_string(groups.size()) + " runs)";
      break;
    }
    s += (i == 0 ? "" : ", ") + text(groups[i]);
  }
  return s + "}";
}

void pack(const Typemap& t, const void* buf, std::size_t count, unsigned char* out) {
  const auto* base = static_cast<const unsigned char*>(buf);
  if (t.contiguous) {
    if (count * t.packed > 0) std::memcpy(out, base, count * t.packed);
    return;
  }
  for (std::size_t k = 0; k < count; ++k) {
    const unsigned char* item = base + static_cast<MPI_Aint>(k) * t.extent();
    for (const Run& r : t.runs) {
      const std::size_t n = r.count * static_cast<std::size_t>(element_extent(r.type));
      std::memcpy(out, item + r.offset, n);
      out += n;
    }
  }
}

void unpack(const Typemap& t, const unsigned char* in, std::size_t bytes, void* buf) {
  auto* base = static_cast<unsigned char*>(buf);
  if (t.contiguous) {
    if (bytes > 0) std::memcpy(base, in, bytes);
    return;
  }
  for (std::size_t k = 0; bytes > 0; ++k) {
    unsigned char* item = base + static_cast<MPI_Aint>(k) * t.extent();
    for (const Run& r : t.runs) {
      const std::size_t n =
          std::min(bytes, r.count * static_cast<std::size_t>(element_extent(r.type)));
      std::memcpy(item + r.offset, in, n);
      in += n;
      bytes -= n;
      if (bytes == 0) return;
    }
  }
}

long long elements_in(const Typemap& t, std::size_t bytes) {
  if (t.packed == 0) return bytes == 0 ? 0 : -1;
  std::size_t per_item = 0;
  for (const Run& r : t.runs) per_item += r.count * basic_in(r.type);
  auto n = static_cast<long long>(bytes / t.packed * per_item);
  std::size_t rem = bytes % t.packed;
  for (const Run& r : t.runs) {
    if (rem == 0) break;
    const auto e = static_cast<std::size_t>(element_extent(r.type));
    const std::size_t m = std::min(rem / e, r.count);
    n += static_cast<long long>(m * basic_in(r.type));
    rem -= m * e;
    if (m < r.count) break;
  }
  return rem == 0 ? n : -1;
}

}  // namespace vmc::mpi
