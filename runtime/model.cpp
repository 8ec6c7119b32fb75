#include "runtime/model.hpp"

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <stdexcept>
#include <string>

#include "runtime/enum_names.hpp"

namespace vmc {

Picos to_picos(double seconds) {
  if (!std::isfinite(seconds) || seconds < 0 || seconds > 9.0e6) {
    throw std::invalid_argument("time " + std::to_string(seconds) +
                                " s is out of range (0 to 9e6 seconds)");
  }
  return static_cast<Picos>(std::llround(seconds * static_cast<double>(kPicosPerSecond)));
}

void throw_add_overflow(Picos a, Picos b, const char* what) {
  throw std::overflow_error(std::string(what) + ": " + std::to_string(to_seconds(a)) + " s + " +
                            std::to_string(to_seconds(b)) +
                            " s does not fit in vmc's picosecond clock (at most about 9.2e6 s)");
}

void throw_mul_overflow(Picos a, std::uint64_t n, const char* what) {
  throw std::overflow_error(std::string(what) + ": " + std::to_string(n) + " x " +
                            std::to_string(to_seconds(a)) +
                            " s does not fit in vmc's picosecond clock (at most about 9.2e6 s)");
}

double to_seconds(Picos t) { return static_cast<double>(t) / static_cast<double>(kPicosPerSecond); }

Model weighted_model(Model m, std::size_t weight) {
  const auto w = static_cast<double>(weight);
  m.beta *= w;
  if (m.beta_net) *m.beta_net *= w;
  for (LinkRate& r : m.link_rates) r.beta_net *= w;
  m.gamma *= w;
  m.delta *= w;
  m.short_max_items /= weight;
  return m;
}

CostUnits::CostUnits(const Model& m)
    : alpha(to_picos(m.alpha)),
      beta(to_picos(m.beta)),
      beta_net(m.beta_net ? to_picos(*m.beta_net) : beta),
      gamma(to_picos(m.gamma)),
      delta(to_picos(m.delta)),
      short_alpha(to_picos(m.short_alpha)),
      short_max_items(m.short_max_items) {}

namespace {

constexpr detail::EnumNames<Port, 4> kPorts{{{Port::exchange, "exchange"},
                                             {Port::duplex, "duplex"},
                                             {Port::half, "half"},
                                             {Port::all, "all"}}};
constexpr detail::EnumNames<Routing, 4> kRoutings{
    {{Routing::direct, "direct"},
     {Routing::wormhole, "wormhole"},
     {Routing::store_and_forward, "store_and_forward"},
     {Routing::store_and_forward, "saf", true}}};
constexpr detail::EnumNames<Contention, 2> kContentions{
    {{Contention::exclusive, "exclusive"}, {Contention::shared, "shared"}}};
constexpr detail::EnumNames<Protocol, 2> kProtocols{
    {{Protocol::eager, "eager"}, {Protocol::rendezvous, "rendezvous"}}};
constexpr detail::EnumNames<Worm, 2> kWorms{
    {{Worm::atomic, "atomic"}, {Worm::blocking, "blocking"}}};
constexpr detail::EnumNames<Clock, 2> kClocks{
    {{Clock::virtual_time, "virtual"}, {Clock::real_time, "real"}}};

}  // namespace

std::string to_string(Port p) { return detail::name_of(p, kPorts); }
std::string to_string(Routing r) { return detail::name_of(r, kRoutings); }
std::string to_string(Contention c) { return detail::name_of(c, kContentions); }
std::string to_string(Protocol p) { return detail::name_of(p, kProtocols); }
std::string to_string(Worm w) { return detail::name_of(w, kWorms); }
std::string to_string(Clock c) { return detail::name_of(c, kClocks); }

Port parse_port(std::string_view s) { return detail::value_of(s, "port model", kPorts); }
Routing parse_routing(std::string_view s) { return detail::value_of(s, "routing", kRoutings); }
Contention parse_contention(std::string_view s) {
  return detail::value_of(s, "contention", kContentions);
}
Protocol parse_protocol(std::string_view s) { return detail::value_of(s, "protocol", kProtocols); }
Worm parse_worm(std::string_view s) { return detail::value_of(s, "worm behaviour", kWorms); }
Clock parse_clock(std::string_view s) { return detail::value_of(s, "clock", kClocks); }

double parse_duration(std::string_view s) {
  std::string text(s);
  std::size_t used = 0;
  double value = 0;
  try {
    value = std::stod(text, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used == 0) {
    throw std::invalid_argument("bad duration \"" + text +
                                "\": expected a number with an optional unit s, ms, us, ns or ps");
  }
  std::string unit = text.substr(used);
  double scale = 0;
  if (unit.empty() || unit == "s") scale = 1;
  else if (unit == "ms") scale = 1e-3;
  else if (unit == "us") scale = 1e-6;
  else if (unit == "ns") scale = 1e-9;
  else if (unit == "ps") scale = 1e-12;
  else {
    throw std::invalid_argument("bad duration \"" + text + "\": unknown unit \"" + unit +
                                "\" (expected s, ms, us, ns or ps)");
  }
  double seconds = value * scale;
  if (!std::isfinite(seconds) || seconds < 0) {
    throw std::invalid_argument("bad duration \"" + text + "\": must be finite and not negative");
  }
  return seconds;
}

std::string to_string(const LinkRate& r) {
  if (r.kind == LinkRate::Kind::dimension) return "dimension " + std::to_string(r.index);
  std::string s = r.index >= 0 ? "level " + std::to_string(r.index) + " " : "";
  switch (r.direction) {
    case LinkRate::Direction::both: return r.index >= 0 ? s + "links" : "tree links";
    case LinkRate::Direction::up: return s + "up links";
    case LinkRate::Direction::down: return s + "down links";
  }
  return s;
}

std::vector<LinkRate> parse_link_rates(LinkRate::Kind kind, LinkRate::Direction direction,
                                       std::string_view text) {
  const std::string expected =
      kind == LinkRate::Kind::dimension
          ? "expected DIMENSION=TIME items separated by commas, e.g. 0=2us,5=8us"
          : "expected TIME (every level) or LEVEL=TIME items separated by commas, e.g. "
            "1=8us,2=4us (level 1: the links at the root)";
  std::vector<LinkRate> out;
  if (text.empty()) throw std::invalid_argument("empty list; " + expected);
  std::size_t at = 0;
  while (at <= text.size()) {
    const std::size_t comma = std::min(text.find(',', at), text.size());
    const std::string item(text.substr(at, comma - at));
    at = comma + 1;
    const std::size_t eq = item.find('=');
    LinkRate r{.kind = kind, .index = -1, .direction = direction};
    std::string time = item;
    if (eq == std::string::npos) {
      if (kind == LinkRate::Kind::dimension || item.empty()) {
        throw std::invalid_argument("\"" + item + "\" is not K=TIME; " + expected);
      }
    } else {
      const std::string key = item.substr(0, eq);
      time = item.substr(eq + 1);
      const char* what = kind == LinkRate::Kind::dimension ? "dimension" : "level";
      long long index = -1;
      const bool digits = !key.empty() && key.size() <= 4 &&
                          key.find_first_not_of("0123456789") == std::string::npos;
      if (digits) index = std::stoll(key);
      if (!digits || (kind == LinkRate::Kind::tree && index < 1)) {
        throw std::invalid_argument(
            "\"" + key + "\" is not a " + what + " (" +
            (kind == LinkRate::Kind::dimension ? "0, 1, 2, ..." : "1, 2, 3, ...; 1 at the root") +
            ")");
      }
      r.index = static_cast<int>(index);
    }
    try {
      r.beta_net = parse_duration(time);
    } catch (const std::exception& e) {
      throw std::invalid_argument("\"" + item + "\": " + e.what());
    }
    for (const LinkRate& seen : out) {
      if (seen.index == r.index) {
        throw std::invalid_argument("\"" + item + "\": " + to_string(r) + " is given twice");
      }
    }
    out.push_back(r);
  }
  return out;
}

std::string describe(const Model& m) {
  std::string s = "alpha " + format_duration(m.alpha) + ", beta " + format_duration(m.beta);
  if (m.beta_net) s += ", beta_net " + format_duration(*m.beta_net);
  for (const LinkRate& r : m.link_rates) {
    s += ", beta_net " + to_string(r) + " " + format_duration(r.beta_net);
  }
  s += ", gamma " + format_duration(m.gamma);
  if (m.delta != 0) s += ", delta " + format_duration(m.delta);
  s += ", port " + to_string(m.port) + ", routing " + to_string(m.routing) + ", contention " +
       to_string(m.contention) + ", protocol " + to_string(m.protocol);
  if (m.worm != Worm::atomic) s += ", worm " + to_string(m.worm);
  if (m.short_max_items > 0) {
    s += ", short alpha " + format_duration(m.short_alpha) + " up to " +
         std::to_string(m.short_max_items) + " items";
  }
  if (perturbed(m)) s += "; " + describe_stragglers(m);
  return s;
}

std::string format_duration(double seconds) {
  char buf[64];
  double a = std::fabs(seconds);
  if (a == 0) return "0 s";
  if (a >= 1) std::snprintf(buf, sizeof buf, "%.6g s", seconds);
  else if (a >= 1e-3) std::snprintf(buf, sizeof buf, "%.6g ms", seconds * 1e3);
  else if (a >= 1e-6) std::snprintf(buf, sizeof buf, "%.6g us", seconds * 1e6);
  else if (a >= 1e-9) std::snprintf(buf, sizeof buf, "%.6g ns", seconds * 1e9);
  else std::snprintf(buf, sizeof buf, "%.6g ps", seconds * 1e12);
  return buf;
}

}  // namespace vmc
