// Reduction operators. An Op is type-erased over items of one size so that every algorithm
// is compiled once and sits in a registry table; ops::sum<T>() and friends make typed ones.
//
// Order: apply(a, b, out, n) computes out[i] = a[i] op b[i], with a the operand from the
// lower ranks. A non-commutative op is reduced in rank order x0 op x1 op ... op x(p-1) by
// every algorithm that accepts it; the others declare themselves not applicable.
#pragma once

#include <cstddef>
#include <cstring>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>

namespace vmc {

class Op {
 public:
  // out may alias a or b.
  using Fn = std::function<void(const void* a, const void* b, void* out, std::size_t n)>;

  Op(std::string name, bool commutative, std::size_t item_size, Fn fn)
      : name_(std::move(name)), commutative_(commutative), item_size_(item_size),
        fn_(std::move(fn)) {}

  const std::string& name() const { return name_; }
  bool commutative() const { return commutative_; }
  std::size_t item_size() const { return item_size_; }
  void apply(const void* a, const void* b, void* out, std::size_t n) const { fn_(a, b, out, n); }

 private:
  std::string name_;
  bool commutative_;
  std::size_t item_size_;
  Fn fn_;
};

namespace ops {

// A user op from an element function T f(const T& a, const T& b) meaning a op b.
template <class T, class F>
Op custom(std::string name, bool commutative, F f) {
  static_assert(std::is_trivially_copyable_v<T>);
  return Op(std::move(name), commutative, sizeof(T),
            [f](const void* a, const void* b, void* out, std::size_t n) {
              for (std::size_t i = 0; i < n; ++i) {
                T x, y;
                std::memcpy(&x, static_cast<const char*>(a) + i * sizeof(T), sizeof(T));
                std::memcpy(&y, static_cast<const char*>(b) + i * sizeof(T), sizeof(T));
                T r = f(x, y);
                std::memcpy(static_cast<char*>(out) + i * sizeof(T), &r, sizeof(T));
              }
            });
}

template <class T> Op sum() { return custom<T>("sum", true, [](T a, T b) { return T(a + b); }); }
template <class T> Op prod() { return custom<T>("prod", true, [](T a, T b) { return T(a * b); }); }
template <class T> Op min() { return custom<T>("min", true, [](T a, T b) { return b < a ? b : a; }); }
template <class T> Op max() { return custom<T>("max", true, [](T a, T b) { return a < b ? b : a; }); }
template <class T> Op land() { return custom<T>("land", true, [](T a, T b) { return T(a && b); }); }
template <class T> Op lor() { return custom<T>("lor", true, [](T a, T b) { return T(a || b); }); }
template <class T> Op lxor() { return custom<T>("lxor", true, [](T a, T b) { return T(!a != !b); }); }
template <class T> Op band() { return custom<T>("band", true, [](T a, T b) { return T(a & b); }); }
template <class T> Op bor() { return custom<T>("bor", true, [](T a, T b) { return T(a | b); }); }
template <class T> Op bxor() { return custom<T>("bxor", true, [](T a, T b) { return T(a ^ b); }); }

// The built-in op called `name` on items of type T (sum, prod, min, max, land, lor, lxor;
// band, bor and bxor on integers), or nothing.
template <class T>
std::optional<Op> named(std::string_view name) {
  if (name == "sum") return sum<T>();
  if (name == "prod") return prod<T>();
  if (name == "min") return min<T>();
  if (name == "max") return max<T>();
  if (name == "land") return land<T>();
  if (name == "lor") return lor<T>();
  if (name == "lxor") return lxor<T>();
  if constexpr (std::is_integral_v<T>) {
    if (name == "band") return band<T>();
    if (name == "bor") return bor<T>();
    if (name == "bxor") return bxor<T>();
  }
  return std::nullopt;
}

}  // namespace ops
}  // namespace vmc
