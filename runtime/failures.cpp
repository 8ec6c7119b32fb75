// Failures on purpose: the parser of --fail and the failure report's text (failures.hpp,
// errors.hpp).
#include "runtime/failures.hpp"

#include <stdexcept>

#include "runtime/errors.hpp"
#include "runtime/model.hpp"

namespace vmc {
namespace {

constexpr const char* kExpected = "expected node:K@TIME items separated by commas, e.g. node:3@2ms";

NodeFailure parse_item(const std::string& item) {
  if (item.starts_with("link:")) {
    throw std::invalid_argument("\"" + item + "\": failed links are not supported yet (" +
                                kExpected + ")");
  }
  if (item.starts_with("random:")) {
    throw std::invalid_argument("\"" + item + "\": random failures are not supported yet (" +
                                kExpected + ")");
  }
  if (!item.starts_with("node:")) throw std::invalid_argument("\"" + item + "\": " + kExpected);
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

std::string time_text(long long ps) { return format_duration(to_seconds(ps)); }

}  // namespace

std::vector<NodeFailure> parse_failures(std::string_view text) {
  std::vector<NodeFailure> out;
  std::size_t from = 0;
  while (from <= text.size()) {
    const std::size_t comma = std::min(text.find(',', from), text.size());
    const std::string item(text.substr(from, comma - from));
    if (item.empty()) throw std::invalid_argument(std::string("an empty item; ") + kExpected);
    const NodeFailure f = parse_item(item);
    for (const NodeFailure& seen : out) {
      if (seen.node == f.node) {
        throw std::invalid_argument("\"" + item + "\": node " + std::to_string(f.node) +
                                    " is given twice");
      }
    }
    out.push_back(f);
    from = comma + 1;
  }
  return out;
}

std::string describe_failures(const std::vector<NodeFailure>& failures) {
  std::string s;
  for (const NodeFailure& f : failures) {
    if (!s.empty()) s += ",";
    std::string time = f.at == 0 ? "0" : format_duration(f.at);
    std::erase(time, ' ');  // "2ms": one word, as --fail takes it
    s += "node:" + std::to_string(f.node) + "@" + time;
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
  std::string s;
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
