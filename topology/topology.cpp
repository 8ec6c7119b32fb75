// The textual form of a topology: parse_topology and the table of families it accepts.
// Each family lives in its own file (full.cpp, grid.cpp, hypercube.cpp, tree.cpp); this
// file only reads "family:size" and reports precisely what was expected when it cannot.
#include <algorithm>
#include <array>
#include <atomic>
#include <cstdint>
#include <string>
#include <unordered_set>

#include "topology/detail.hpp"
#include "topology/full.hpp"
#include "topology/grid.hpp"
#include "topology/hypercube.hpp"
#include "topology/topology.hpp"
#include "topology/tree.hpp"

namespace vmc {

namespace detail {

void throw_out_of_range(const Topology& t, const char* what, long long index, long long count) {
  throw std::out_of_range(std::string(what) + " " + std::to_string(index) + " out of range 0.." +
                          std::to_string(count - 1) + " on " + t.spec());
}

int ceil_log2(long long n) {
  int d = 0;
  while ((1LL << d) < n) ++d;
  return d;
}

bool is_down(std::span<const LinkId> down, LinkId l) {
  return std::binary_search(down.begin(), down.end(), l);
}

bool first_open_order(int k, const std::function<bool(std::uint32_t, int)>& open,
                      std::vector<int>& order) {
  const std::uint32_t all = (std::uint32_t{1} << k) - 1;
  const std::size_t before = order.size();
  std::unordered_set<std::uint32_t> dead;  // masks from which no order completes
  std::function<bool(std::uint32_t)> from = [&](std::uint32_t done) {
    if (done == all) return true;
    if (dead.contains(done)) return false;
    for (int s = 0; s < k; ++s) {
      if ((done >> s & 1u) != 0 || !open(done, s)) continue;
      order.push_back(s);
      if (from(done | std::uint32_t{1} << s)) return true;
      order.pop_back();
    }
    dead.insert(done);
    return false;
  };
  if (from(0)) return true;
  order.resize(before);
  return false;
}

}  // namespace detail

int Topology::route_into(int a, int b, std::span<LinkId> out) const {
  thread_local std::vector<LinkId> links;
  links.clear();
  route(a, b, links);
  if (links.size() > out.size()) return -1;
  std::copy(links.begin(), links.end(), out.begin());
  return static_cast<int>(links.size());
}

bool Topology::route_around(int a, int b, std::span<const LinkId> down,
                            std::vector<LinkId>& out) const {
  const std::size_t before = out.size();
  route(a, b, out);
  for (std::size_t i = before; i < out.size(); ++i) {
    if (detail::is_down(down, out[i])) {
      out.resize(before);
      return false;
    }
  }
  return true;
}

LinkClass Topology::link_class(LinkId id) const {
  detail::check_link(*this, id, link_count());
  return {};
}

std::uint64_t Topology::next_identity() {
  static std::atomic<std::uint64_t> next{1};
  return next.fetch_add(1, std::memory_order_relaxed);
}

std::string Topology::family() const {
  const std::string s = spec();
  return s.substr(0, s.find(':'));
}

namespace {

using Built = std::shared_ptr<const Topology>;

[[noreturn]] void fail(std::string_view spec, const std::string& why) {
  throw TopologyError("bad topology \"" + std::string(spec) + "\": " + why);
}

// Counts and products saturate here instead of overflowing; every limit is far below.
constexpr std::int64_t kHuge = std::int64_t{1} << 40;

// A positive decimal count (saturated at kHuge), or empty when `text` is not one.
std::optional<std::int64_t> parse_count(std::string_view text) {
  if (text.empty()) return std::nullopt;
  std::int64_t value = 0;
  for (char c : text) {
    if (c < '0' || c > '9') return std::nullopt;
    value = std::min(value * 10 + (c - '0'), kHuge);
  }
  if (value == 0) return std::nullopt;
  return value;
}

std::string too_big(std::int64_t nodes, std::int64_t limit) {
  const std::string count =
      nodes >= kHuge ? "more than " + std::to_string(limit) : std::to_string(nodes);
  return "too big: " + count + " nodes, at most " + std::to_string(limit) + " allowed";
}

// "P" for the one-size families.
int parse_size(std::string_view spec, std::string_view size, std::string_view expected,
               std::int64_t limit) {
  const auto count = parse_count(size);
  if (!count) fail(spec, "expected " + std::string(expected));
  if (*count > limit) fail(spec, too_big(*count, limit));
  return static_cast<int>(*count);
}

// "AxBx..." with optional "w" after a length when `allow_wrap`.
void parse_lengths(std::string_view spec, std::string_view text, std::string_view expected,
                   bool allow_wrap, std::vector<int>& lengths, std::vector<bool>& wraps) {
  std::int64_t product = 1;
  while (true) {
    const std::size_t x = text.find('x');
    std::string_view item = text.substr(0, x);
    const bool wrap = allow_wrap && !item.empty() && item.back() == 'w';
    if (wrap) item.remove_suffix(1);
    const auto count = parse_count(item);
    if (!count) fail(spec, "expected " + std::string(expected));
    if (lengths.size() == static_cast<std::size_t>(kMaxGridDimensions))
      fail(spec, "too many dimensions: at most " + std::to_string(kMaxGridDimensions));
    product = *count > kHuge / product ? kHuge : std::min(product * *count, kHuge);
    lengths.push_back(static_cast<int>(std::min<std::int64_t>(*count, kMaxNodes + 1LL)));
    wraps.push_back(wrap);
    if (x == std::string_view::npos) break;
    text.remove_prefix(x + 1);
  }
  if (product > kMaxNodes) fail(spec, too_big(product, kMaxNodes));
}

struct Family {
  std::string_view name;
  std::string_view expected;  // what an error message says was expected
  Built (*build)(std::string_view spec, std::string_view size, std::string_view expected);
};

constexpr std::array<Family, 7> kFamilies{{
    {"full", "full:P with P a positive integer",
     [](std::string_view spec, std::string_view size, std::string_view expected) -> Built {
       return std::make_shared<FullyConnected>(parse_size(spec, size, expected, kMaxFullNodes));
     }},
    {"ring", "ring:P with P a positive integer",
     [](std::string_view spec, std::string_view size, std::string_view expected) -> Built {
       const int p = parse_size(spec, size, expected, kMaxNodes);
       return std::make_shared<Grid>(std::vector<int>{p}, std::vector<bool>{true},
                                     Grid::Style::ring);
     }},
    {"array", "array:P with P a positive integer",
     [](std::string_view spec, std::string_view size, std::string_view expected) -> Built {
       const int p = parse_size(spec, size, expected, kMaxNodes);
       return std::make_shared<Grid>(std::vector<int>{p}, std::vector<bool>{false},
                                     Grid::Style::array);
     }},
    {"mesh",
     "mesh:AxB[x...] with positive lengths (a length ending in w wraps around, e.g. "
     "mesh:4x5w)",
     [](std::string_view spec, std::string_view size, std::string_view expected) -> Built {
       std::vector<int> lengths;
       std::vector<bool> wraps;
       parse_lengths(spec, size, expected, true, lengths, wraps);
       return std::make_shared<Grid>(lengths, wraps, Grid::Style::mesh);
     }},
    {"torus", "torus:AxB[x...] with positive lengths",
     [](std::string_view spec, std::string_view size, std::string_view expected) -> Built {
       std::vector<int> lengths;
       std::vector<bool> wraps;
       parse_lengths(spec, size, expected, false, lengths, wraps);
       return std::make_shared<Grid>(lengths, std::vector<bool>(lengths.size(), true),
                                     Grid::Style::mesh);
     }},
    {"hypercube", "hypercube:P with P a positive integer (any P; not a power of two gives "
                  "an incomplete hypercube)",
     [](std::string_view spec, std::string_view size, std::string_view expected) -> Built {
       return std::make_shared<Hypercube>(parse_size(spec, size, expected, kMaxNodes));
     }},
    {"tree", "tree:P with P a positive integer (P leaves, P-1 switches)",
     [](std::string_view spec, std::string_view size, std::string_view expected) -> Built {
       return std::make_shared<Tree>(parse_size(spec, size, expected, kMaxNodes));
     }},
}};

std::string family_list() {
  return "full:P, ring:P, array:P, mesh:AxB[x...], torus:AxB[x...], hypercube:P or tree:P";
}

}  // namespace

std::shared_ptr<const Topology> parse_topology(std::string_view spec) {
  const std::size_t colon = spec.find(':');
  const std::string_view name = spec.substr(0, colon);
  for (const Family& family : kFamilies) {
    if (family.name != name) continue;
    if (colon == std::string_view::npos)
      fail(spec, "missing size: expected " + std::string(family.expected));
    return family.build(spec, spec.substr(colon + 1), family.expected);
  }
  if (spec.empty()) fail(spec, "empty; expected one of " + family_list());
  fail(spec, "unknown family \"" + std::string(name) + "\"; expected " + family_list());
}

}  // namespace vmc
