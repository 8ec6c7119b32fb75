// Failures on purpose: the parser of --fail and the failure report's text (failures.hpp,
// errors.hpp).
#include "runtime/failures.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <stdexcept>
#include <utility>

#include "runtime/errors.hpp"
#include "runtime/model.hpp"

namespace vmc {
namespace {

constexpr const char* kExpected =
    "expected node:K@TIME items or one random:count=K,before=TIME,seed=S (or "
    "random:rate=R,seed=S[,before=TIME]), separated by commas, e.g. node:3@2ms";

NodeFailure parse_node(const std::string& item) {
  const std::string rest = item.substr(5);
  const std::size_t at = rest.find('@');
  if (at == std::string::npos) {
    throw std::invalid_argument("\"" + item + "\" names no time (node:K@TIME; @0 fails it at "
                                "its first call)");
  }
  const std::string node = rest.substr(0, at), time = rest.substr(at + 1);
  if (node.empty() || node.size() > 9 || node.find_first_not_of("0123456789") != std::string::npos) {
    throw std::invalid_argument("\"" + item + "\": \"" + node + "\" is not a node number");
  }
  NodeFailure f;
  f.node = std::stoi(node);
  try {
    f.at = parse_duration(time);
  } catch (const std::exception& e) {
    throw std::invalid_argument("\"" + item + "\": " + e.what());
  }
  if (!(f.at >= 0)) throw std::invalid_argument("\"" + item + "\": the time is negative");
  return f;
}

bool whole_number(const std::string& s, std::size_t digits) {
  return !s.empty() && s.size() <= digits && s.find_first_not_of("0123456789") == std::string::npos;
}

// "random:count=1,before=5ms,seed=7" (its fields already joined back into one item).
RandomFailures parse_random(const std::string& item) {
  RandomFailures r;
  bool seeded = false, before = false;
  std::vector<std::string> seen;
  std::size_t from = 7;
  while (from <= item.size()) {
    const std::size_t comma = std::min(item.find(',', from), item.size());
    const std::string field = item.substr(from, comma - from);
    from = comma + 1;
    const std::size_t eq = field.find('=');
    const std::string key = field.substr(0, eq);
    const std::string value = eq == std::string::npos ? "" : field.substr(eq + 1);
    auto bad = [&](const std::string& why) {
      return std::invalid_argument("\"" + item + "\": " + key + ": " + why);
    };
    if (eq == std::string::npos || value.empty()) throw bad("gives no value (" + key + "=...)");
    if (std::find(seen.begin(), seen.end(), key) != seen.end()) throw bad("is given twice");
    seen.push_back(key);
    if (key == "count") {
      if (!whole_number(value, 9) || std::stoi(value) < 1) {
        throw bad("\"" + value + "\" is not a whole number of nodes of at least 1");
      }
      r.count = std::stoi(value);
    } else if (key == "rate") {
      std::size_t used = 0;
      try {
        r.rate = std::stod(value, &used);
      } catch (const std::exception&) {
        used = 0;
      }
      if (used != value.size() || !std::isfinite(r.rate) || !(r.rate > 0)) {
        throw bad("\"" + value + "\" is not a rate above 0 (failures per node per second)");
      }
    } else if (key == "before") {
      try {
        r.before = parse_duration(value);
      } catch (const std::exception& e) {
        throw bad(e.what());
      }
      if (to_picos(r.before) < 1000) throw bad("the time must be at least 1ns");
      before = true;
    } else if (key == "seed") {
      if (!whole_number(value, 19)) throw bad("\"" + value + "\" is not a whole number");
      r.seed = std::stoull(value);
      seeded = true;
    } else {
      throw std::invalid_argument("\"" + item + "\": \"" + field + "\" is not understood (" +
                                  "count=K, rate=R, before=TIME, seed=S)");
    }
  }
  auto missing = [&](const std::string& why) {
    return std::invalid_argument("\"" + item + "\": " + why);
  };
  if ((r.count > 0) == (r.rate > 0)) {
    throw missing("give either count=K (K nodes) or rate=R (failures per node per second)");
  }
  if (r.count > 0 && !before) {
    throw missing("count=K needs before=TIME, the end of the times drawn from");
  }
  if (!seeded) throw missing("give seed=S, the draw's seed (the same seed, the same failures)");
  return r;
}

// The time text --fail reads back to the same picosecond: "3.217456ms", "0", "5ns".
std::string exact_time(Picos ps) {
  if (ps == 0) return "0";
  struct Unit { Picos per; int digits; const char* name; };
  static constexpr Unit kUnits[] = {{1'000'000'000'000, 12, "s"}, {1'000'000'000, 9, "ms"},
                                    {1'000'000, 6, "us"},         {1'000, 3, "ns"},
                                    {1, 0, "ps"}};
  for (const Unit& u : kUnits) {
    if (ps < u.per && u.per != 1) continue;
    std::string text = std::to_string(ps / u.per);
    if (const Picos rest = ps % u.per; rest != 0) {
      std::string fraction = std::to_string(rest);
      fraction.insert(0, static_cast<std::size_t>(u.digits) - fraction.size(), '0');
      while (fraction.back() == '0') fraction.pop_back();
      text += "." + fraction;
    }
    return text + u.name;
  }
  return "0";
}

std::string time_text(long long ps) { return format_duration(to_seconds(ps)); }

// The shortest text that reads back as x ("100", "0.5").
std::string shortest(double x) {
  char text[32];
  const auto end = std::to_chars(text, text + sizeof text, x).ptr;
  return std::string(text, end);
}

// Streams of seeded_bits (model.hpp) of their own, apart from the stragglers' 1 and 2.
constexpr std::uint64_t kPickStream = 11, kTimeStream = 12;
constexpr Picos kNanosecond = 1000;
// The draws of the rate form end here (about 100 days): vmc's clock holds 2^63 ps.
constexpr Picos kLastDraw = 9'000'000 * kPicosPerSecond;

}  // namespace

std::string describe(const RandomFailures& r) {
  std::string s = "random:";
  s += r.count > 0 ? "count=" + std::to_string(r.count) : "rate=" + shortest(r.rate);
  if (r.before > 0) s += ",before=" + exact_time(to_picos(r.before));
  return s + ",seed=" + std::to_string(r.seed);
}

std::vector<NodeFailure> draw_failures(const RandomFailures& r, int nodes,
                                       const std::vector<NodeFailure>& given) {
  std::vector<int> left;
  for (int v = 0; v < nodes; ++v) {
    const bool has_own = std::any_of(given.begin(), given.end(),
                                     [v](const NodeFailure& f) { return f.node == v; });
    if (!has_own) left.push_back(v);
  }
  const Picos before = r.before > 0 ? to_picos(r.before) : 0;
  std::vector<std::pair<Picos, int>> drawn;  // (time, node)
  if (r.count > 0) {
    if (r.count > static_cast<int>(left.size())) {
      throw std::invalid_argument(describe(r) + ": asks for " + std::to_string(r.count) +
                                  " nodes, and the machine has " + std::to_string(left.size()) +
                                  " without a failure of their own");
    }
    if (before < kNanosecond) {
      throw std::invalid_argument(describe(r) + ": count=K needs before=TIME of at least 1ns");
    }
    // The first `count` places of a seeded Fisher-Yates shuffle of the nodes left.
    const auto times = static_cast<std::uint64_t>((before + kNanosecond - 1) / kNanosecond);
    for (int i = 0; i < r.count; ++i) {
      const std::uint64_t span = left.size() - static_cast<std::size_t>(i);
      std::swap(left[i], left[i + seeded_bits(r.seed, i, kPickStream) % span]);
      const auto ns = seeded_bits(r.seed, static_cast<std::uint64_t>(left[i]), kTimeStream) % times;
      drawn.emplace_back(static_cast<Picos>(ns) * kNanosecond, left[i]);
    }
  } else {
    if (!std::isfinite(r.rate) || !(r.rate > 0)) {
      throw std::invalid_argument(describe(r) + ": the rate must be above 0");
    }
    for (int v : left) {
      // An exponential draw by inversion, from 53 bits in (0, 1].
      const std::uint64_t bits = seeded_bits(r.seed, static_cast<std::uint64_t>(v), kTimeStream);
      const double u = static_cast<double>((bits >> 11) + 1) * 0x1p-53;
      const double seconds = -std::log(u) / r.rate;
      if (!(seconds < to_seconds(kLastDraw))) continue;
      const Picos at = static_cast<Picos>(seconds * 1e9) * kNanosecond;
      if (before == 0 || at < before) drawn.emplace_back(at, v);
    }
  }
  std::sort(drawn.begin(), drawn.end());
  std::vector<NodeFailure> out;
  for (const auto& [at, v] : drawn) out.push_back({.node = v, .at = to_seconds(at)});
  return out;
}

FailureSpec parse_failures(std::string_view text) {
  // Items are split at commas; a random: item's fields are commas too, so a piece that is not
  // an item of its own ("seed=4" after "random:count=1") joins the random: item before it.
  std::vector<std::string> items;
  std::size_t from = 0;
  while (from <= text.size()) {
    const std::size_t comma = std::min(text.find(',', from), text.size());
    std::string piece(text.substr(from, comma - from));
    from = comma + 1;
    if (piece.empty()) throw std::invalid_argument(std::string("an empty item; ") + kExpected);
    const bool field = piece.find(':') == std::string::npos && piece.find('=') != std::string::npos;
    if (field && !items.empty() && items.back().starts_with("random:")) {
      items.back() += "," + piece;
    } else {
      items.push_back(std::move(piece));
    }
  }
  FailureSpec out;
  for (const std::string& item : items) {
    if (item.starts_with("link:")) {
      throw std::invalid_argument(
          "\"" + item + "\": failed links are not supported yet (whether a message crossed "
          "the link before it failed is a virtual time the simulation decides after the "
          "data has moved: docs/model.md, \"Why failed links are not offered yet\"); " +
          kExpected);
    }
    if (item.starts_with("random:")) {
      if (out.random) throw std::invalid_argument("\"" + item + "\": random: is given twice");
      out.random = parse_random(item);
      continue;
    }
    if (!item.starts_with("node:")) throw std::invalid_argument("\"" + item + "\": " + kExpected);
    const NodeFailure f = parse_node(item);
    for (const NodeFailure& seen : out.nodes) {
      if (seen.node == f.node) {
        throw std::invalid_argument("\"" + item + "\": node " + std::to_string(f.node) +
                                    " is given twice");
      }
    }
    out.nodes.push_back(f);
  }
  return out;
}

std::string describe_failures(const std::vector<NodeFailure>& failures) {
  std::string s;
  for (const NodeFailure& f : failures) {
    if (!s.empty()) s += ",";
    s += "node:" + std::to_string(f.node) + "@" + exact_time(to_picos(f.at));
  }
  return s;
}

bool FailureReport::unhandled() const {
  for (const Stopped& s : stopped) {
    if (s.cause >= 0) return true;
  }
  return false;
}

std::string FailureReport::text() const {
  std::string s = drawn;
  for (const Stopped& x : stopped) {
    if (!s.empty()) s += "\n";
    s += "node " + std::to_string(x.node) + " stopped at " + time_text(x.at_ps);
    s += x.cause < 0 ? " (a failure it was given)"
                     : " (it ended on the error of a call that needed failed node " +
                           std::to_string(x.cause) + ")";
  }
  for (const Affected& a : affected) {
    s += "\nnode " + std::to_string(a.node) + ": " + a.call + " failed at " + time_text(a.at_ps) +
         ": node " + std::to_string(a.failed) + " has failed";
  }
  return s;
}

}  // namespace vmc
