// The names of an enum's values, one table per enum, and the one printer and parser every
// enum of a machine's configuration uses (model.cpp: port, routing, contention, protocol,
// worm, clock; names.cpp: engine, data, transport). Internal.
//
//   constexpr EnumNames<Data, 2> kData{{{Data::full, "full"}, {Data::none, "none"}}};
//   name_of(Data::none, kData)          // "none"
//   value_of("full", "data mode", kData)  // Data::full; otherwise std::invalid_argument
//                                         // "unknown data mode "x": expected full or none"
#pragma once

#include <array>
#include <cstddef>
#include <stdexcept>
#include <string>
#include <string_view>

namespace vmc::detail {

template <class E>
struct EnumName {
  E value;
  const char* name;
  bool alias = false;  // another spelling the parser takes; never printed, nor listed in errors
};
// In the order of the enum's values; an alias after the name it stands for.
template <class E, std::size_t N>
using EnumNames = std::array<EnumName<E>, N>;

// The name of e, or "?" for a value the table does not hold.
template <class E, std::size_t N>
std::string name_of(E e, const EnumNames<E, N>& names) {
  for (const EnumName<E>& n : names) {
    if (n.value == e && !n.alias) return n.name;
  }
  return "?";
}

// The value named s; std::invalid_argument naming `what` and the names otherwise.
template <class E, std::size_t N>
E value_of(std::string_view s, const char* what, const EnumNames<E, N>& names) {
  std::size_t listed = 0;
  for (const EnumName<E>& n : names) {
    if (s == n.name) return n.value;
    listed += n.alias ? 0 : 1;
  }
  std::string expected;
  std::size_t k = 0;
  for (const EnumName<E>& n : names) {
    if (n.alias) continue;
    expected += (k == 0 ? "" : k + 1 == listed ? " or " : ", ") + std::string(n.name);
    ++k;
  }
  throw std::invalid_argument("unknown " + std::string(what) + " \"" + std::string(s) +
                              "\": expected " + expected);
}

}  // namespace vmc::detail
