// Failures on purpose: the parser of --fail and the failure report's text (failures.hpp,
// errors.hpp).
#include "runtime/failures.hpp"

#include <algorithm>
#include <charconv>
#include <cctype>
#include <cmath>
#include <stdexcept>
#include <utility>

#include "runtime/enum_names.hpp"
#include "runtime/errors.hpp"
#include "runtime/model.hpp"

namespace vmc {
namespace {

constexpr const char* kExpected =
    "expected node:K@TIME and link:A-B@TIME items or one random:count=K,before=TIME,seed=S "
    "(or random:rate=R,seed=S[,before=TIME]), separated by commas, e.g. node:3@2ms";

bool whole_number(const std::string& s, std::size_t digits) {
  return !s.empty() && s.size() <= digits && s.find_first_not_of("0123456789") == std::string::npos;
}

int parse_node_number(const std::string& item, const std::string& node) {
  if (!whole_number(node, 9)) {
    throw std::invalid_argument("\"" + item + "\": \"" + node + "\" is not a node number");
  }
  return std::stoi(node);
}

// A time of --fail's text: with a unit, as every time of the command line, but 0 ("node:3@1"
// is far more likely a forgotten "ms" than one second). Throws std::invalid_argument.
double parse_failure_time(const std::string& text) {
  const double t = parse_duration(text);
  const bool has_unit = !text.empty() && std::isalpha(static_cast<unsigned char>(text.back()));
  if (!has_unit && t != 0) {
    throw std::invalid_argument("the time \"" + text + "\" has no unit; write it with one, e.g. " +
                                text + "us, " + text + "ms or " + text + "s");
  }
  return t;
}

// The time after the '@' of a node: or link: item (its kind's `form` names it when missing).
double parse_item_time(const std::string& item, std::size_t at, const char* form) {
  if (at == std::string::npos) {
    throw std::invalid_argument("\"" + item + "\" names no time (" + form + ")");
  }
  double t = 0;
  try {
    t = parse_failure_time(item.substr(at + 1));
  } catch (const std::exception& e) {
    throw std::invalid_argument("\"" + item + "\": " + e.what());
  }
  if (!(t >= 0)) throw std::invalid_argument("\"" + item + "\": the time is negative");
  return t;
}

NodeFailure parse_node(const std::string& item) {
  const std::size_t at = item.find('@');
  NodeFailure f;
  f.at = parse_item_time(item, at, "node:K@TIME; @0 fails it at its first call");
  f.node = parse_node_number(item, item.substr(5, at - 5));
  return f;
}

// "link:3-7@1ms": the link between nodes 3 and 7, down from 1 ms on.
LinkFailure parse_link(const std::string& item) {
  const std::size_t at = item.find('@');
  LinkFailure f;
  f.at = parse_item_time(item, at, "link:A-B@TIME; @0 fails it before the first message");
  const std::string ends = item.substr(5, at - 5);
  const std::size_t dash = ends.find('-');
  if (dash == std::string::npos) {
    throw std::invalid_argument("\"" + item + "\": \"" + ends + "\" names no link (link:A-B@TIME, "
                                "A and B neighbours)");
  }
  f.a = parse_node_number(item, ends.substr(0, dash));
  f.b = parse_node_number(item, ends.substr(dash + 1));
  if (f.a == f.b) {
    throw std::invalid_argument("\"" + item + "\": a link joins two nodes (node " +
                                std::to_string(f.a) + " is given twice)");
  }
  return f;
}

bool same_link(const LinkFailure& x, const LinkFailure& y) {
  return (x.a == y.a && x.b == y.b) || (x.a == y.b && x.b == y.a);
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
        r.before = parse_failure_time(value);
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

constexpr detail::EnumNames<FailRoutes, 2> kFailRoutes{
    {{FailRoutes::around, "around"}, {FailRoutes::fixed, "fixed"}}};

std::string to_string(FailRoutes r) { return detail::name_of(r, kFailRoutes); }

FailRoutes parse_fail_routes(std::string_view s) {
  return detail::value_of(s, "--fail-routes", kFailRoutes);
}

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
      const LinkFailure f = parse_link(item);
      for (const LinkFailure& seen : out.links) {
        if (same_link(seen, f)) {
          throw std::invalid_argument("\"" + item + "\": " + link_name(f) + " is given twice");
        }
      }
      out.links.push_back(f);
      continue;
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

std::string describe_failures(const std::vector<LinkFailure>& failures) {
  std::string s;
  for (const LinkFailure& f : failures) {
    if (!s.empty()) s += ",";
    s += "link:" + std::to_string(f.a) + "-" + std::to_string(f.b) + "@" +
         exact_time(to_picos(f.at));
  }
  return s;
}

std::string link_name(const LinkFailure& f) {
  return "link " + std::to_string(f.a) + "-" + std::to_string(f.b);
}

std::string FailureReport::link_name(int k) const {
  const Link& l = links.at(static_cast<std::size_t>(k));
  return "link " + std::to_string(l.a) + "-" + std::to_string(l.b);
}

std::string FailureReport::link_outcome(int k) const {
  const Link& l = links.at(static_cast<std::size_t>(k));
  auto count = [](int n, const char* none) {
    return n == 0 ? std::string(none) : counted(static_cast<unsigned>(n), "message");
  };
  if (!reroutes) return "lost " + count(l.lost, "no message");
  return "rerouted " + count(l.rerouted, "none") + ", lost " + count(l.lost, "none");
}

bool FailureReport::unhandled() const {
  for (const Stopped& s : stopped) {
    if (s.cause >= 0 || s.cause_link >= 0) return true;
  }
  return false;
}

std::string FailureReport::headline() const {
  const bool nodes = std::any_of(stopped.begin(), stopped.end(), [](const Stopped& x) {
    return x.cause < 0 && x.cause_link < 0;
  });
  const bool lost_messages = !lost.empty();
  if (lost_messages && !nodes) {
    return "links failed, and calls whose messages they lost ended their nodes";
  }
  if (lost_messages) return "nodes and links failed, and calls that needed them ended their nodes";
  return "nodes failed, and calls that needed them ended their nodes";
}

std::string FailureReport::text() const {
  std::string s = drawn;
  auto line = [&s](const std::string& text) {
    if (!s.empty()) s += "\n";
    s += text;
  };
  for (std::size_t k = 0; k < links.size(); ++k) {
    const Link& l = links[k];
    line(link_name(static_cast<int>(k)) + " down at " + time_text(l.at_ps) + " " +
         link_outcome(static_cast<int>(k)));
  }
  for (const Lost& x : lost) {
    line("message lost: node " + std::to_string(x.sender) + " to node " +
         std::to_string(x.receiver) + " " + tag_text(x.tag) +
         (x.comm != 0 ? " on comm " + std::to_string(x.comm) : std::string()) + ", sent at " +
         time_text(x.sent_ps) + ", on " + link_name(x.link));
  }
  for (const Stopped& x : stopped) {
    std::string t = "node " + std::to_string(x.node) + " stopped at " + time_text(x.at_ps);
    if (x.cause_link >= 0) {
      t += " (it ended on the error of a receive whose message was lost on " +
           link_name(x.cause_link) + ")";
    } else {
      t += x.cause < 0 ? " (a failure it was given)"
                       : " (it ended on the error of a call that needed failed node " +
                             std::to_string(x.cause) + ")";
    }
    line(t);
  }
  for (const Affected& a : affected) {
    std::string t = "node " + std::to_string(a.node) + ": " + a.call + " failed at " +
                    time_text(a.at_ps) + ": ";
    t += a.link >= 0 ? "the message was lost on " + link_name(a.link)
                     : "node " + std::to_string(a.failed) + " has failed";
    line(t);
  }
  return s;
}

}  // namespace vmc
