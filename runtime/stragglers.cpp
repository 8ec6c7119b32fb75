// Stragglers: per-node start delays (skew), slow nodes and system noise (model.hpp, Skew and
// Noise; docs/model.md, "Skew, slow nodes and noise"). The draws, the detour arithmetic in
// picoseconds, the checks, the parsers and the one-line description.
#include <cmath>
#include <cstdio>
#include <stdexcept>
#include <string>

#include "runtime/model.hpp"

namespace vmc {
namespace {

// A draw in [0, bound] from (seed, node, stream) alone.
Picos draw(std::uint64_t seed, int node, std::uint64_t stream, Picos bound) {
  if (bound <= 0) return 0;
  return static_cast<Picos>(seeded_bits(seed, static_cast<std::uint64_t>(node), stream) %
                            (static_cast<std::uint64_t>(bound) + 1));
}

constexpr std::uint64_t kSkewStream = 1, kNoiseStream = 2;

bool noisy(const Model& m) { return m.noise.every > 0 && m.noise.length > 0; }

// "K" of a "node:K=..." or "K=..." item: a node number (checked against the machine later).
int node_of(const std::string& item, const std::string& key) {
  const bool digits = !key.empty() && key.size() <= 9 &&
                      key.find_first_not_of("0123456789") == std::string::npos;
  if (!digits) {
    throw std::invalid_argument("\"" + item + "\": \"" + key + "\" is not a node number");
  }
  return std::stoi(key);
}

// Splits "a,b,c" into its items, refusing an empty one.
std::vector<std::string> items_of(std::string_view text, const char* expected) {
  std::vector<std::string> out;
  std::size_t at = 0;
  while (at <= text.size()) {
    const std::size_t comma = std::min(text.find(',', at), text.size());
    out.emplace_back(text.substr(at, comma - at));
    if (out.back().empty()) throw std::invalid_argument(std::string("empty item; ") + expected);
    at = comma + 1;
  }
  return out;
}

double duration_of(const std::string& item, const std::string& text) {
  try {
    return parse_duration(text);
  } catch (const std::exception& e) {
    throw std::invalid_argument("\"" + item + "\": " + e.what());
  }
}

// "node:K=V" or "K=V": the node and the value's text.
std::pair<int, std::string> node_item(const std::string& item, const char* expected) {
  std::string rest = item.starts_with("node:") ? item.substr(5) : item;
  const std::size_t eq = rest.find('=');
  if (eq == std::string::npos) {
    throw std::invalid_argument("\"" + item + "\" is not node:K=VALUE; " + expected);
  }
  return {node_of(item, rest.substr(0, eq)), rest.substr(eq + 1)};
}

void add_node_value(std::vector<NodeValue>& out, const std::string& item, NodeValue v,
                    const char* what) {
  for (const NodeValue& seen : out) {
    if (seen.node == v.node) {
      throw std::invalid_argument("\"" + item + "\": node " + std::to_string(v.node) + "'s " +
                                  what + " is given twice");
    }
  }
  out.push_back(v);
}

}  // namespace

bool perturbed(const Model& m) {
  return m.skew.uniform > 0 || !m.skew.nodes.empty() || !m.slow.empty() || noisy(m);
}

Model steady(Model m) {
  m.skew = {};
  m.slow.clear();
  m.noise = {};
  return m;
}

Picos start_delay(const Model& m, int node) {
  for (const NodeValue& v : m.skew.nodes) {
    if (v.node == node) return to_picos(v.value);
  }
  return draw(m.skew.seed, node, kSkewStream, to_picos(m.skew.uniform));
}

double slow_factor(const Model& m, int node) {
  for (const NodeValue& v : m.slow) {
    if (v.node == node) return v.value;
  }
  return 1.0;
}

Picos slowed(const Model& m, int node, Picos work) {
  const double factor = slow_factor(m, node);
  if (factor == 1.0) return work;
  const double stretched = std::round(static_cast<double>(work) * factor);
  if (!(stretched < 9.2e18)) {
    throw std::overflow_error("node " + std::to_string(node) + ": local work of " +
                              format_duration(to_seconds(work)) + " slowed " +
                              std::to_string(factor) + " times does not fit in vmc's clock");
  }
  return static_cast<Picos>(stretched);
}

Picos noise_phase(const Noise& n, int node) {
  const Picos every = to_picos(n.every);
  if (n.at) return to_picos(*n.at) % std::max<Picos>(every, 1);
  return draw(n.seed, node, kNoiseStream, every - 1);
}

// Node `node`'s detours start at phase + k every (k = 0, 1, ...) and last `length`.
Picos noise_clear(const Model& m, int node, Picos t) {
  if (!noisy(m)) return t;
  const Picos every = to_picos(m.noise.every), length = to_picos(m.noise.length);
  const Picos phase = noise_phase(m.noise, node);
  if (t < phase) return t;
  const Picos start = phase + (t - phase) / every * every;
  return t < start + length ? start + length : t;
}

Picos noisy_end(const Model& m, int node, Picos t, Picos work) {
  if (!noisy(m) || work <= 0) return checked_add(t, work, "local work's end");
  const Picos every = to_picos(m.noise.every), length = to_picos(m.noise.length);
  const Picos phase = noise_phase(m.noise, node);
  Picos x = noise_clear(m, node, t);
  // The next detour after x, and the work done before it.
  const Picos next = x < phase ? phase : phase + ((x - phase) / every + 1) * every;
  if (work <= next - x) return x + work;
  work -= next - x;
  x = next + length;
  // From the end of a detour on, each period holds every - length of work.
  const Picos per = every - length;
  const std::uint64_t periods = static_cast<std::uint64_t>(work / per);
  const Picos rest = work % per;
  const Picos whole = checked_mul(every, periods, "noisy local work's end");
  // Work that ends just as a detour begins is not held up by it.
  return rest == 0 ? checked_add(x, whole - length, "noisy local work's end")
                   : checked_add(checked_add(x, whole, "noisy local work's end"), rest,
                                 "noisy local work's end");
}

void check_stragglers(const Model& m, int p) {
  auto check_node = [p](const char* what, int node) {
    if (node < 0 || node >= p) {
      throw std::invalid_argument(std::string(what) + " names node " + std::to_string(node) +
                                  ", outside the machine (nodes 0.." + std::to_string(p - 1) +
                                  ")");
    }
  };
  if (!(m.skew.uniform >= 0) || !std::isfinite(m.skew.uniform)) {
    throw std::invalid_argument("skew: the uniform width must be a duration of at least 0");
  }
  for (const NodeValue& v : m.skew.nodes) {
    check_node("skew", v.node);
    if (!(v.value >= 0) || !std::isfinite(v.value)) {
      throw std::invalid_argument("skew: node " + std::to_string(v.node) +
                                  "'s delay must be a duration of at least 0");
    }
  }
  for (const NodeValue& v : m.slow) {
    check_node("slow", v.node);
    if (!(v.value >= 1) || !std::isfinite(v.value)) {
      throw std::invalid_argument("slow: node " + std::to_string(v.node) + "'s factor " +
                                  std::to_string(v.value) +
                                  " must be at least 1 (a slow node's work takes factor times "
                                  "as long)");
    }
  }
  const Noise& n = m.noise;
  if (n.every < 0 || n.length < 0 || (n.at && *n.at < 0)) {
    throw std::invalid_argument("noise: its times must not be negative");
  }
  if ((n.every > 0) != (n.length > 0)) {
    throw std::invalid_argument("noise: give both a period (every) and a detour length (for)");
  }
  if (n.every > 0 && to_picos(n.length) >= to_picos(n.every)) {
    throw std::invalid_argument("noise: a detour (for " + format_duration(n.length) +
                                ") must be shorter than its period (every " +
                                format_duration(n.every) + ")");
  }
}

void parse_skew(std::string_view text, Skew& into) {
  const char* expected =
      "expected uniform:TIME or node:K=TIME items separated by commas, e.g. uniform:100us or "
      "node:3=2ms,5=1ms";
  for (const std::string& item : items_of(text, expected)) {
    if (item.starts_with("uniform:")) {
      into.uniform = duration_of(item, item.substr(8));
      continue;
    }
    auto [node, time] = node_item(item, expected);
    add_node_value(into.nodes, item, {node, duration_of(item, time)}, "delay");
  }
}

std::vector<NodeValue> parse_slow(std::string_view text) {
  const char* expected = "expected node:K=F items separated by commas, e.g. node:3=4x,5=2x";
  std::vector<NodeValue> out;
  for (const std::string& item : items_of(text, expected)) {
    auto [node, factor] = node_item(item, expected);
    if (factor.ends_with('x')) factor.pop_back();
    double f = 0;
    std::size_t used = 0;
    try {
      f = std::stod(factor, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (used == 0 || used != factor.size() || !std::isfinite(f)) {
      throw std::invalid_argument("\"" + item + "\": \"" + factor + "\" is not a factor (4 or 4x)");
    }
    if (f < 1) {
      throw std::invalid_argument("\"" + item + "\": a factor must be at least 1 (node " +
                                  std::to_string(node) + "'s work takes F times as long)");
    }
    add_node_value(out, item, {node, f}, "factor");
  }
  return out;
}

Noise parse_noise(std::string_view text) {
  const char* expected = "expected every:TIME,for:TIME[,at:TIME][,seed:N], e.g. every:1ms,for:50us";
  Noise n;
  for (const std::string& item : items_of(text, expected)) {
    const std::size_t colon = item.find(':');
    const std::string key = item.substr(0, colon), value = colon == std::string::npos
                                                               ? std::string()
                                                               : item.substr(colon + 1);
    if (key == "every") n.every = duration_of(item, value);
    else if (key == "for") n.length = duration_of(item, value);
    else if (key == "at") n.at = duration_of(item, value);
    else if (key == "seed") {
      if (value.empty() || value.size() > 19 ||
          value.find_first_not_of("0123456789") != std::string::npos) {
        throw std::invalid_argument("\"" + item + "\": the seed must be a whole number");
      }
      n.seed = std::stoull(value);
    } else {
      throw std::invalid_argument("\"" + item + "\" is not understood; " + expected);
    }
  }
  if (!(n.every > 0) || !(n.length > 0)) {
    throw std::invalid_argument(std::string("give a period and a detour length of more than "
                                            "0; ") + expected);
  }
  return n;
}

std::uint64_t seeded_bits(std::uint64_t seed, std::uint64_t index, std::uint64_t stream) {
  std::uint64_t z = seed + 0x9E3779B97F4A7C15ull * (index + 1) + 0xD1B54A32D192ED03ull * stream;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

std::string describe_stragglers(const Model& m) {
  std::string s;
  auto part = [&s](const std::string& text) { s += (s.empty() ? "" : "; ") + text; };
  if (m.skew.uniform > 0 || !m.skew.nodes.empty()) {
    std::string t = "skew";
    if (m.skew.uniform > 0) {
      t += " uniform " + format_duration(m.skew.uniform) + " (seed " +
           std::to_string(m.skew.seed) + ")";
    }
    for (const NodeValue& v : m.skew.nodes) {
      t += (t == "skew" ? " node " : ", node ") + std::to_string(v.node) + " " +
           format_duration(v.value);
    }
    part(t);
  }
  if (!m.slow.empty()) {
    std::string t = "slow";
    for (const NodeValue& v : m.slow) {
      char f[32];
      std::snprintf(f, sizeof f, "%gx", v.value);
      t += (t == "slow" ? " node " : ", node ") + std::to_string(v.node) + " " + f;
    }
    part(t);
  }
  if (noisy(m)) {
    std::string t = "noise " + format_duration(m.noise.length) + " every " +
                    format_duration(m.noise.every);
    t += m.noise.at ? " at " + format_duration(*m.noise.at) + " on every node"
                    : " (seed " + std::to_string(m.noise.seed) + ")";
    part(t);
  }
  return s;
}

}  // namespace vmc
