#include "tools/show_terminal.hpp"

#include <map>
#include <set>
#include <sstream>

#include "runtime/model.hpp"
#include "topology/draw.hpp"

namespace vmc::cli {
namespace {

std::string link_name(const Topology& t, LinkId l) {
  const DirectedLink d = t.link(l);
  auto name = [&](int v) {
    std::string label = std::to_string(v);
    if (v >= t.nodes()) label.insert(0, 1, '[').push_back(']');  // a switch
    return label;
  };
  return name(d.from) + "->" + name(d.to);
}

std::string message_name(const MessageEvent& m) {
  return std::to_string(m.src) + "->" + std::to_string(m.dst);
}

// Joins up to `most` items, then says how many more.
std::string listed(const std::vector<std::string>& items, std::size_t most = 12) {
  std::string out;
  for (std::size_t i = 0; i < items.size() && i < most; ++i) out += (i ? ", " : "") + items[i];
  if (items.size() > most) out += ", ... (" + std::to_string(items.size() - most) + " more)";
  return out;
}

// Under --fail: the nodes stopped and the links down at `now`, or "" when none.
std::string failed_by(const FailureReport& failures, Picos now) {
  std::vector<std::string> stopped, down;
  for (const FailureReport::Stopped& s : failures.stopped) {
    if (s.at_ps <= now) {
      stopped.push_back(std::to_string(s.node) + " (at " + format_duration(to_seconds(s.at_ps)) +
                        ")");
    }
  }
  for (std::size_t k = 0; k < failures.links.size(); ++k) {
    if (failures.links[k].at_ps <= now) down.push_back(failures.link_name(static_cast<int>(k)));
  }
  std::string out;
  if (!stopped.empty()) out += "stopped: node " + listed(stopped) + "\n";
  if (!down.empty()) out += "down:    " + listed(down) + "\n";
  return out;
}

}  // namespace

std::string terminal_steps(const Topology& t, const Trace& trace, int max_steps,
                           const FailureReport* failures) {
  const std::optional<AsciiDrawing> drawing = ascii_drawing(t);
  std::set<Picos> moments;
  for (const MessageEvent& m : trace.messages) {
    moments.insert(m.start);
    if (m.waited > 0) moments.insert(m.start - m.waited);
  }
  // A node stops, or a link goes down, at a moment of its own.
  if (failures != nullptr) {
    for (const FailureReport::Stopped& s : failures->stopped) moments.insert(s.at_ps);
    for (const FailureReport::Link& l : failures->links) moments.insert(l.at_ps);
  }
  std::ostringstream out;
  out << t.spec() << ": " << trace.messages.size() << " messages, " << moments.size()
      << " steps (a step: a moment a message starts or begins to wait"
      << (failures != nullptr ? ", a node stops or a link goes down" : "") << ")\n";
  if (drawing) {
    out << "links in use: > < ^ v the way the message goes, * on a diagonal, # both ways or a "
           "bundle\n";
  } else {
    out << "(" << t.spec() << " is too large to draw: " << drawable_networks() << ")\n";
  }
  int step = 0;
  for (Picos now : moments) {
    if (++step > max_steps) {
      out << "\n... " << moments.size() - max_steps << " more steps (vmc show draws them all)\n";
      break;
    }
    std::vector<LinkId> held;
    std::map<LinkId, const MessageEvent*> holder;
    std::vector<std::string> moving, waiting, undrawn;
    for (const MessageEvent& m : trace.messages) {
      if (m.start <= now && now < m.end) {
        moving.push_back(message_name(m) + " (" + std::to_string(m.items) +
                         (m.items == 1 ? " item" : " items") + ", until " +
                         format_duration(to_seconds(m.end)) + ")");
        for (LinkId l : m.links) {
          held.push_back(l);
          holder[l] = &m;
          if (drawing && drawing->link_cells[l].empty()) undrawn.push_back(link_name(t, l));
        }
      }
    }
    for (const MessageEvent& m : trace.messages) {
      if (m.waited == 0 || now < m.start - m.waited || now >= m.start) continue;
      std::vector<std::string> busy;
      for (LinkId l : m.links) {
        if (auto it = holder.find(l); it != holder.end()) {
          busy.push_back(link_name(t, l) + " (held by " + message_name(*it->second) + ")");
        }
      }
      waiting.push_back(message_name(m) + " waits for " +
                        (busy.empty() ? std::string("a port") : "link " + listed(busy, 3)));
    }
    out << "\nstep " << step << " at " << format_duration(to_seconds(now)) << ": "
        << moving.size() << " moving, " << waiting.size() << " waiting\n";
    if (drawing) out << drawing->marked(held);
    if (!moving.empty()) out << "moving:  " << listed(moving, 8) << "\n";
    if (!undrawn.empty()) out << "links in use not drawn: " << listed(undrawn) << "\n";
    for (const std::string& w : waiting) out << "waiting: " << w << "\n";
    if (failures != nullptr) out << failed_by(*failures, now);
  }
  if (drawing && !drawing->note.empty()) out << "\n" << drawing->note << "\n";
  return out.str();
}

}  // namespace vmc::cli
