// Trace export (Chrome Trace Event format) and hashing.
//
// Layout for the Perfetto UI and chrome://tracing: process 0 is the machine, thread i is
// node i. Each message is a slice "send to j" on the sender's track, from its start to its
// end, and a slice "recv from i" on the receiver's track over the same interval; a flow
// arrow joins them. A message that waited for ports or links has a slice "wait to send to
// j" of its own just before it starts. Each combine (or compute charge) is a slice on its
// node's track. A message's args name its links "a->b" when the topology is given, and its
// tag only when the program chose it (a collective's internal tags are left out). Times are
// microseconds with picosecond resolution.
#include <cinttypes>
#include <cstdio>
#include <fstream>
#include <stdexcept>

#include "runtime/trace.hpp"

#include "runtime/comm.hpp"

namespace vmc {
namespace {

void append_us(std::string& out, Picos t) {
  char buf[48];
  // Picoseconds to microseconds, exactly: integer part and six decimals.
  const char* sign = t < 0 ? "-" : "";
  std::uint64_t a = t < 0 ? std::uint64_t(-t) : std::uint64_t(t);
  std::snprintf(buf, sizeof buf, "%s%" PRIu64 ".%06" PRIu64, sign, a / 1000000, a % 1000000);
  out += buf;
}

void slice(std::string& out, const char* name_fmt, int peer, int tid, Picos start, Picos end,
           const std::string& args) {
  char name[64];
  std::snprintf(name, sizeof name, name_fmt, peer);
  out += "{\"name\":\"";
  out += name;
  out += "\",\"cat\":\"vmc\",\"ph\":\"X\",\"pid\":0,\"tid\":" + std::to_string(tid) + ",\"ts\":";
  append_us(out, start);
  out += ",\"dur\":";
  append_us(out, end - start);
  out += ",\"args\":{" + args + "}},\n";
}

}  // namespace

const char* to_string(Work w) {
  switch (w) {
    case Work::compute: return "compute";
    case Work::combine: return "combine";
    case Work::rearrange: return "rearrange";
  }
  return "?";
}

std::string Trace::chrome_json(const Topology* topology) const {
  std::string out = "{\"displayTimeUnit\":\"ns\",\"traceEvents\":[\n";
  out += "{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":0,\"args\":{\"name\":\"vmc machine\"}},\n";
  for (int n = 0; n < nodes; ++n) {
    out += "{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":0,\"tid\":" + std::to_string(n) +
           ",\"args\":{\"name\":\"node " + std::to_string(n) + "\"}},\n";
    out += "{\"name\":\"thread_sort_index\",\"ph\":\"M\",\"pid\":0,\"tid\":" +
           std::to_string(n) + ",\"args\":{\"sort_index\":" + std::to_string(n) + "}},\n";
  }
  std::uint64_t flow = 0;
  for (const MessageEvent& m : messages) {
    // Tags above kMaxUserTag belong to collective calls: internal.
    std::string args = "\"collective\":true,";
    if (m.tag <= kMaxUserTag) {
      args = "\"tag\":";
      args += std::to_string(m.tag);
      args += ',';
    }
    args += "\"comm\":" + std::to_string(m.comm) + ",\"items\":" + std::to_string(m.items) +
            ",\"bytes\":" + std::to_string(m.bytes) + ",\"waited_us\":";
    append_us(args, m.waited);
    args += ",\"contention_delay_us\":";
    append_us(args, m.contention_delay);
    args += ",\"links\":[";
    for (std::size_t i = 0; i < m.links.size(); ++i) {
      if (i > 0) args += ",";
      if (topology != nullptr) {
        const DirectedLink l = topology->link(m.links[i]);
        args += "\"" + std::to_string(l.from) + "->" + std::to_string(l.to) + "\"";
      } else {
        args += std::to_string(m.links[i]);
      }
    }
    args += "]";
    if (m.waited > 0) {
      slice(out, "wait to send to %d", m.dst, m.src, m.start - m.waited, m.start, args);
    }
    slice(out, "send to %d", m.dst, m.src, m.start, m.end, args);
    slice(out, "recv from %d", m.src, m.dst, m.start, m.end, args);
    ++flow;
    out += "{\"name\":\"message\",\"cat\":\"vmc\",\"ph\":\"s\",\"id\":" + std::to_string(flow) +
           ",\"pid\":0,\"tid\":" + std::to_string(m.src) + ",\"ts\":";
    append_us(out, m.start);
    out += "},\n{\"name\":\"message\",\"cat\":\"vmc\",\"ph\":\"f\",\"bp\":\"e\",\"id\":" +
           std::to_string(flow) + ",\"pid\":0,\"tid\":" + std::to_string(m.dst) + ",\"ts\":";
    append_us(out, m.end);
    out += "},\n";
  }
  for (const CombineEvent& c : combines) {
    slice(out, to_string(c.kind), 0, c.node, c.start, c.end,
          "\"items\":" + std::to_string(c.items));
  }
  // Close the array: drop the trailing ",\n".
  out.resize(out.size() - 2);
  out += "\n]}\n";
  return out;
}

void Trace::write_chrome_json(const std::string& path, const Topology* topology) const {
  std::ofstream f(path, std::ios::binary);
  if (!f) throw std::runtime_error("cannot write trace file \"" + path + "\"");
  f << chrome_json(topology);
  if (!f) throw std::runtime_error("error writing trace file \"" + path + "\"");
}

std::uint64_t Trace::hash() const {
  std::uint64_t h = 1469598103934665603ull;
  auto mix = [&h](std::uint64_t v) {
    for (int i = 0; i < 8; ++i) {
      h ^= (v >> (8 * i)) & 0xff;
      h *= 1099511628211ull;
    }
  };
  mix(std::uint64_t(nodes));
  for (const MessageEvent& m : messages) {
    for (std::uint64_t v : {std::uint64_t(m.src), std::uint64_t(m.dst), std::uint64_t(m.tag),
                            std::uint64_t(m.comm), m.items, m.bytes, std::uint64_t(m.request),
                            std::uint64_t(m.start), std::uint64_t(m.end),
                            std::uint64_t(m.waited), std::uint64_t(m.contention_delay)}) {
      mix(v);
    }
    for (LinkId l : m.links) mix(std::uint64_t(l));
  }
  for (const CombineEvent& c : combines) {
    for (std::uint64_t v : {std::uint64_t(c.node), c.items, std::uint64_t(c.start),
                            std::uint64_t(c.end), std::uint64_t(c.kind)}) {
      mix(v);
    }
  }
  return h;
}

}  // namespace vmc
