// The collective test harness; see testing.hpp.
#include "collectives/testing.hpp"

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <iomanip>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <sstream>
#include <stdexcept>
#include <tuple>

#include "collectives/collectives.hpp"
#include "collectives/reference/check_values.hpp"
#include "collectives/reference/guarded.hpp"
#include "collectives/reference/reference.hpp"

namespace vmc::harness {

namespace {

// --- item types, values and ops --------------------------------------------------------------

std::size_t item_size(const std::string& type) {
  if (type == "int32" || type == "float") return 4;
  if (type == "int64" || type == "double") return 8;
  if (type == "mat3") return sizeof(Mat3);
  throw std::invalid_argument("unknown item type \"" + type +
                              "\": expected int32, int64, float, double or mat3");
}

Op make_op(const Case& c) {
  std::optional<Op> op;
  if (c.type == "int32") op = ops::named<std::int32_t>(c.op);
  if (c.type == "int64") op = ops::named<std::int64_t>(c.op);
  if (c.type == "float") op = ops::named<float>(c.op);
  if (c.type == "double") op = ops::named<double>(c.op);
  if (c.type == "mat3" && c.op == "matmul") {
    op = ops::custom<Mat3>("matmul", false, [](const Mat3& a, const Mat3& b) { return a * b; });
  }
  if (!op) {
    item_size(c.type);  // names a bad type
    throw std::invalid_argument("op \"" + c.op + "\" is not defined on " + c.type);
  }
  return *op;
}

std::uint64_t mix(std::uint64_t seed, int rank, std::size_t i) {
  std::uint64_t x = (seed * 0x9E3779B97F4A7C15ull) ^ (std::uint64_t(rank) * 0xBF58476D1CE4E5B9ull) ^
                    (i * 0x94D049BB133111EBull);
  x ^= x >> 31;
  x *= 0xD6E8FEB86659FD93ull;
  x ^= x >> 29;
  return x;
}

std::string format_item(const Case& c, const unsigned char* at) {
  std::ostringstream s;
  auto read = [&](auto v) {
    std::memcpy(&v, at, sizeof v);
    return v;
  };
  if (c.type == "int32") s << read(std::int32_t{});
  if (c.type == "int64") s << read(std::int64_t{});
  if (c.type == "float") s << read(float{});
  if (c.type == "double") s << read(double{});
  if (c.type == "mat3") {
    const Mat3 m = read(Mat3{});
    s << "[";
    for (int e = 0; e < 9; ++e) s << (e ? " " : "") << m.m[e];
    s << "]";
  }
  return s.str();
}

// --- the operations' shapes and semantics ----------------------------------------------------

bool has_in_place(Operation op) {
  return op == Operation::reduce || op == Operation::allreduce || op == Operation::scan ||
         op == Operation::exscan || op == Operation::allgather || op == Operation::gather ||
         op == Operation::scatter;
}

// Items [first, first + count) of rank `rank`'s input among q members of a call of `op`,
// as bytes: distinct per (rank, item) and exact under every combination of the case's op
// (collectives/reference/check_values.hpp), so a misplaced block changes the result.
void fill(Operation op, const Case& c, int q, int rank, std::size_t first, std::size_t count,
          unsigned char* out) {
  const std::size_t isz = item_size(c.type);
  const reference::Combining combining =
      traits(op).combines ? reference::combining_of(c.op) : reference::Combining::none;
  auto put = [&](const auto& values) {
    for (std::size_t k = 0; k < count; ++k) {
      const auto v = values(rank, first + k);
      std::memcpy(out + k * isz, &v, isz);
    }
  };
  if (c.type == "int32") put(reference::CheckValues<std::int32_t>(combining, q, c.seed));
  if (c.type == "int64") put(reference::CheckValues<std::int64_t>(combining, q, c.seed));
  if (c.type == "float") put(reference::CheckValues<float>(combining, q, c.seed));
  if (c.type == "double") put(reference::CheckValues<double>(combining, q, c.seed));
  if (c.type == "mat3") {
    put([&](int r, std::size_t i) {
      Mat3 a;
      const auto e = reference::check_matrix(q, r, i, std::uint64_t{1} << 32, c.seed);
      for (int x = 0; x < 9; ++x) a.m[x] = static_cast<std::uint32_t>(e[x]);
      return a;
    });
  }
}

// The shape of a call of `op` among q members as the harness makes it.
reference::Shape shape_of(Operation op, const Case& c, int q, int root) {
  return {.op = op, .members = q, .n = c.n, .root = root, .item_size = item_size(c.type),
          .in_place = c.in_place};
}

using Expected = std::vector<std::optional<Bytes>>;

// The built-in semantics (collectives/reference/): every member's expected buffer, given
// what it held before the call (nullopt: it keeps what it had).
Expected expected(Operation op, const Case& c, int q, int root, const std::vector<Bytes>& in,
                  const std::vector<Bytes>& before, const Op& o) {
  const std::size_t isz = item_size(c.type);
  reference::Reference ref(shape_of(op, c, q, root), &o,
                           [&](int r, std::size_t first, std::size_t count, unsigned char* out) {
                             std::copy_n(in[r].begin() + first * isz, count * isz, out);
                           });
  Expected want(q);
  for (int r = 0; r < q; ++r) {
    if (ref.result_items(r) > 0) want[r] = ref.expected(r, before[r]);
  }
  return want;
}

// What one member did: its rank and comm size, its input, the buffer it got back (the
// receive buffer, or the in-place buffer) and what that buffer held before.
struct Member {
  int rank = -1, size = 0;
  Bytes input, before, after;
  bool has_buffer = false, canaries = true;
  std::string send_changed;  // how the call changed its send buffer, if it did
  std::string traffic;       // crowded runs: what went wrong with the traffic beside the call
};

// One member's call of the operation on its guarded buffers.
void call(Operation op, const Comm& comm, const Case& c, int root, const Options& o, const Op& opv,
          Member& me) {
  const std::size_t isz = item_size(c.type), n = c.n;
  const int q = comm.size(), r = comm.rank();
  const std::size_t nq = n * static_cast<std::size_t>(q);
  const reference::Reference sizes(shape_of(op, c, q, root));
  me.input.resize(sizes.input_items(r) * isz);
  fill(op, c, q, r, 0, me.input.size() / isz, me.input.data());
  const unsigned char* send = me.input.empty() ? nullptr : me.input.data();
  const Bytes sent = me.input;  // what the send buffer must still hold afterwards
  std::optional<reference::GuardedBuffer> out;  // the buffer checked afterwards
  auto use = [&](std::size_t items, const Bytes* preload) {
    out.emplace(items, isz, preload != nullptr ? std::span<const unsigned char>(*preload)
                                               : std::span<const unsigned char>());
    me.before = out->bytes();
    return items == 0 ? nullptr : out->data();
  };
  const bool ip = c.in_place;
  switch (op) {
    case Operation::broadcast:
      detail::broadcast_bytes(comm, use(n, r == root ? &me.input : nullptr), n, isz, root, o);
      break;
    case Operation::reduce:
      if (ip) detail::reduce_bytes(comm, nullptr, 0, use(n, &me.input), n, isz, opv, root, o);
      else detail::reduce_bytes(comm, send, n, r == root ? use(n, nullptr) : nullptr,
                                r == root ? n : 0, isz, opv, root, o);
      break;
    case Operation::allreduce:
      if (ip) detail::allreduce_bytes(comm, nullptr, 0, use(n, &me.input), n, isz, opv, o);
      else detail::allreduce_bytes(comm, send, n, use(n, nullptr), n, isz, opv, o);
      break;
    case Operation::scan:
    case Operation::exscan: {
      const auto scan_bytes = op == Operation::scan ? detail::scan_bytes : detail::exscan_bytes;
      if (ip) scan_bytes(comm, nullptr, 0, use(n, &me.input), n, isz, opv, o);
      else scan_bytes(comm, send, n, use(n, nullptr), n, isz, opv, o);
      break;
    }
    case Operation::allgather:
      if (ip) {
        Bytes placed(nq * isz, reference::kPoison);
        std::copy(me.input.begin(), me.input.end(), placed.begin() + r * n * isz);
        detail::allgather_in_place_bytes(comm, use(nq, &placed), nq, isz, o);
      } else {
        detail::allgather_bytes(comm, send, n, use(nq, nullptr), nq, isz, o);
      }
      break;
    case Operation::gather:
      if (ip && r == root) {
        Bytes placed(nq * isz, reference::kPoison);
        std::copy(me.input.begin(), me.input.end(), placed.begin() + r * n * isz);
        detail::gather_bytes(comm, nullptr, 0, use(nq, &placed), nq, isz, root, true, o);
      } else if (ip) {
        detail::gather_bytes(comm, send, n, nullptr, 0, isz, root, true, o);
      } else {
        detail::gather_bytes(comm, send, n, r == root ? use(nq, nullptr) : nullptr,
                             r == root ? nq : 0, isz, root, false, o);
      }
      break;
    case Operation::scatter:
      if (ip && r == root) {  // the root's blocks stay where they are
        detail::scatter_bytes(comm, use(nq, &me.input), nq, nullptr, 0, isz, root, true, o);
      } else {
        detail::scatter_bytes(comm, send, me.input.size() / isz, use(n, nullptr), n, isz, root,
                              ip, o);
      }
      break;
    case Operation::reduce_scatter:
      detail::reduce_scatter_bytes(comm, send, nq, use(n, nullptr), n, isz, {}, opv, o);
      break;
    case Operation::alltoall:
      detail::alltoall_bytes(comm, send, nq, use(nq, nullptr), nq, isz, o);
      break;
    case Operation::barrier:
      // Members arrive at different times; none may leave before the last has arrived.
      comm.charge_compute(1e-6 * static_cast<double>(mix(c.seed, r, 0) % 50));
      barrier(comm, o);
      break;
    default: throw std::invalid_argument("the harness does not know " + to_string(op));
  }
  me.rank = r;
  me.size = q;
  for (std::size_t i = 0; i * isz < sent.size(); ++i) {
    if (std::memcmp(sent.data() + i * isz, me.input.data() + i * isz, isz) != 0) {
      me.send_changed = "wrote into its send buffer: item " + std::to_string(i) + " was " +
                        format_item(c, sent.data() + i * isz) + ", is " +
                        format_item(c, me.input.data() + i * isz);
      break;
    }
  }
  if (out) {
    me.has_buffer = true;
    me.after = out->bytes();
    me.canaries = out->canaries_intact();
  }
}

// --- sub-groups ------------------------------------------------------------------------------

std::pair<int, int> color_key(const std::string& group, int r, int p) {
  if (group == "world") return {0, r};
  if (group == "reversed") return {0, -r};
  if (group == "even") return {r % 2 == 0 ? 0 : -1, r};
  if (group == "halves") return {r < p / 2 ? 0 : 1, r};
  if (group == "drop1") return {r < p - 1 ? 0 : -1, r};
  throw std::invalid_argument("unknown group \"" + group +
                              "\": expected world, reversed, even, halves or drop1");
}

// The sizes of the comms a group splits p nodes into.
std::set<int> group_sizes(const std::string& group, int p) {
  std::map<int, int> members;
  for (int r = 0; r < p; ++r) {
    const int color = color_key(group, r, p).first;
    if (color >= 0) ++members[color];
  }
  std::set<int> sizes;
  for (const auto& [color, count] : members) sizes.insert(count);
  return sizes;
}

int root_in(int root, int size) { return std::min(root, size - 1); }

// --- traffic beside the call (crowded runs) --------------------------------------------------

// Other traffic in flight while a member calls the operation. Before the call each member
// sends its successor on its comm an 8-byte token under the tags of another collective call
// on that comm (begun just before the one under test) and under user tags 0 and 1, and, when
// its comm is a sub-group, one on the world under the tag numbers the call under test is
// given on its comm (the world's collective call of the same number). After the call it
// receives its predecessor's tokens: a row that sends or receives under a tag or on a comm
// not its own takes a token, or leaves one of its own messages in a token's place.
class Traffic {
 public:
  Traffic(const Comm& world, const Comm& comm, bool sub_group) {
    static constexpr CallSignature kTraffic{.operation = "harness traffic"};
    if (sub_group) {
      world.begin_collective(kTraffic);  // the world's call 0; its call 1 takes the tags
      post(world, world.begin_collective(kTraffic), "on the world");
    }
    if (comm.valid()) {
      const Tag other = comm.begin_collective(kTraffic);  // the call under test is the next
      post(comm, other, "another collective call's");
      post(comm, 0, "a user tag");
      post(comm, 1, "a user tag");
    }
  }
  // After the call: what went wrong, or "".
  std::string finish() {
    std::string problem;
    for (Token& t : tokens_) {
      const Comm::CollectiveScope scope(t.comm);
      const int from = (t.comm.rank() + t.comm.size() - 1) % t.comm.size();
      std::uint64_t got = 0;
      std::size_t bytes = 0;
      try {
        bytes = t.comm.recv_raw(&got, sizeof got, sizeof got, from, t.tag);
      } catch (const TruncationError& e) {
        bytes = e.bytes();
      }
      if (problem.empty() && (bytes != sizeof got || got != token(t.comm.world_rank(from), t.tag))) {
        problem = "the token that rank " + std::to_string(from) + " sent before the call, " +
                  tag_text(t.tag) + " (" + t.what + "), was taken by the call: in its place " +
                  "came a message of " + counted(bytes, "byte") +
                  " (the algorithm sent or received under a tag or on a comm not its own)";
      }
    }
    for (Token& t : tokens_) t.comm.wait(t.request);
    return problem;
  }

 private:
  struct Token {
    Comm comm;
    Tag tag = 0;
    std::uint64_t value = 0;
    Request request;
    std::string what;
  };
  static std::uint64_t token(int node, Tag tag) {
    return mix(0x7A11C0FFEEull, node, static_cast<std::size_t>(tag));
  }
  void post(const Comm& comm, Tag tag, std::string what) {
    if (comm.size() < 2) return;
    Token& t = tokens_.emplace_back();
    t.comm = comm;
    t.tag = tag;
    t.what = std::move(what);
    t.value = token(comm.world_rank(comm.rank()), tag);
    const Comm::CollectiveScope scope(comm);
    t.request = comm.isend_raw(&t.value, sizeof t.value, 1, (comm.rank() + 1) % comm.size(), tag);
  }
  std::deque<Token> tokens_;  // the values stay put while their sends are in flight
};

// --- case text -------------------------------------------------------------------------------

const Case kDefault{};

std::string seconds_text(double s) {
  std::ostringstream o;
  o << s;
  return o.str();
}

}  // namespace

std::string to_string(const Case& c) {
  std::ostringstream s;
  s << "p=" << c.p << " n=" << c.n << " root=" << c.root << " type=" << c.type << " op=" << c.op
    << " in_place=" << (c.in_place ? 1 : 0) << " group=" << c.group << " topology=" << c.topology
    << " port=" << to_string(c.port) << " routing=" << to_string(c.routing)
    << " protocol=" << to_string(c.protocol) << " clock=" << to_string(c.clock);
  if (c.perturb != 0) s << " perturb=" << c.perturb;
  if (c.alpha != kDefault.alpha) s << " alpha=" << seconds_text(c.alpha);
  if (c.beta != kDefault.beta) s << " beta=" << seconds_text(c.beta);
  if (c.gamma != kDefault.gamma) s << " gamma=" << seconds_text(c.gamma);
  if (c.seed != kDefault.seed) s << " seed=" << c.seed;
  if (c.skew != kDefault.skew) s << " skew=" << seconds_text(c.skew);
  return s.str();
}

Case parse_case(std::string_view text) {
  Case c;
  std::istringstream in{std::string(text)};
  std::string field;
  while (in >> field) {
    const std::size_t eq = field.find('=');
    if (eq == std::string::npos) throw std::invalid_argument("case field without '=': " + field);
    const std::string key = field.substr(0, eq), v = field.substr(eq + 1);
    try {
      if (key == "p") c.p = std::stoi(v);
      else if (key == "n") c.n = std::stoull(v);
      else if (key == "root") c.root = std::stoi(v);
      else if (key == "type") c.type = v;
      else if (key == "op") c.op = v;
      else if (key == "in_place") c.in_place = v == "1" || v == "true";
      else if (key == "group") c.group = v;
      else if (key == "topology") c.topology = v;
      else if (key == "port") c.port = parse_port(v);
      else if (key == "routing") c.routing = parse_routing(v);
      else if (key == "protocol") c.protocol = parse_protocol(v);
      else if (key == "clock") c.clock = parse_clock(v);
      else if (key == "perturb") c.perturb = std::stoull(v);
      else if (key == "alpha") c.alpha = std::stod(v);
      else if (key == "beta") c.beta = std::stod(v);
      else if (key == "gamma") c.gamma = std::stod(v);
      else if (key == "seed") c.seed = std::stoull(v);
      else if (key == "skew") c.skew = std::stod(v);
      else throw std::invalid_argument("unknown field");
    } catch (const std::exception& e) {
      throw std::invalid_argument("bad case field \"" + field + "\": " + e.what());
    }
  }
  if (c.p < 1) throw std::invalid_argument("bad case: p must be at least 1");
  return c;
}

std::string topology_spec(const Case& c) {
  const std::string p = std::to_string(c.p);
  if (c.topology == "mesh" || c.topology == "torus") {
    int a = 1;  // the most nearly square a x b = p, a <= b
    for (int x = 1; x * x <= c.p; ++x) {
      if (c.p % x == 0) a = x;
    }
    return c.topology + ":" + std::to_string(c.p / a) + "x" + std::to_string(a);
  }
  return c.topology + ":" + p;
}

MachineConfig machine_config(const Case& c) {
  MachineConfig config;
  config.topology = parse_topology(topology_spec(c));
  config.model.port = c.port;
  config.model.routing = c.routing;
  config.model.protocol = c.protocol;
  config.clock = c.clock;
  if (c.clock == Clock::virtual_time) {
    config.model.alpha = c.alpha;
    config.model.beta = c.beta;
    config.model.gamma = c.gamma;
    config.model.skew.uniform = c.skew;
  }
  config.perturb_seed = c.perturb;
  config.perturb_max_seconds = 20e-6;
  config.trace = false;
  return config;
}

bool supported(Operation op) {
  switch (op) {
    case Operation::scatterv:
    case Operation::gatherv:
    case Operation::allgatherv:
    case Operation::alltoallv: return false;
    default: return true;
  }
}

namespace {

CostQuery query_of(Operation op, const Case& c, const Topology& topology, int size,
                   const Options& options) {
  const Model model = machine_config(c).model;
  CostQuery q = make_query(topology, model, size, c.n, root_in(c.root, size),
                           item_size(c.type), !traits(op).combines || c.op != "matmul", options);
  q.in_place = c.in_place;
  return q;
}

Options options_for(const Algorithm& a) {
  Options o;
  o.algorithm = a.name;
  o.custom = &a;
  return o;
}

// The communicator a case's call runs on: node's world, or its split by the case's group.
Comm case_comm(Node& node, const Case& c) {
  const auto [color, key] = color_key(c.group, node.rank(), node.world().size());
  return c.group == "world" ? node.world() : node.world().split(color, key);
}

// One run of the case: plain, or `crowded` (among the traffic of Traffic, its time not
// checked). "" when it passes, else what went wrong.
std::string run_on(Machine& m, Operation op, const Algorithm& a, const Case& c,
                   const Settings& s, bool crowded) {
  const Options options = options_for(a);
  const Op opv = traits(op).combines ? make_op(c) : ops::sum<std::int64_t>();
  const int p = m.size();
  std::vector<Member> members(p);
  RunResult result;
  try {
    result = m.run([&](Node& node) {
      const Comm comm = case_comm(node, c);
      std::optional<Traffic> traffic;
      if (crowded) traffic.emplace(node.world(), comm, c.group != "world");
      if (comm.valid()) {
        call(op, comm, c, root_in(c.root, comm.size()), options, opv, members[node.rank()]);
      }
      if (traffic) members[node.rank()].traffic = traffic->finish();
    });
  } catch (const RunError& e) {
    return std::string("the run failed: ") + e.what();
  }
  for (int w = 0; w < p; ++w) {
    if (!members[w].traffic.empty()) {
      return "node " + std::to_string(w) + ": " + members[w].traffic;
    }
  }
  const std::size_t isz = item_size(c.type);
  // Expected results per comm: members are grouped by size and, within one size, by the
  // comm of the lowest node; every comm of one group spec with one size has the same ranks.
  std::map<std::pair<int, int>, std::vector<int>> comms;  // (color, size) -> nodes by rank
  for (int w = 0; w < p; ++w) {
    if (members[w].rank < 0) continue;
    auto& nodes = comms[{color_key(c.group, w, p).first, members[w].size}];
    nodes.resize(members[w].size, -1);
    nodes[members[w].rank] = w;
  }
  for (const auto& [id, nodes] : comms) {
    const int q = static_cast<int>(nodes.size());
    std::vector<Bytes> inputs, before;
    for (int w : nodes) {
      inputs.push_back(members[w].input);
      before.push_back(members[w].before);
    }
    const int root = root_in(c.root, q);
    const Expected want = s.reference ? s.reference(c, q, inputs, opv)
                                      : expected(op, c, q, root, inputs, before, opv);
    if (op == Operation::barrier) {
      Picos last_arrival = 0;
      for (int r = 0; r < q; ++r) {
        last_arrival = std::max(last_arrival, to_picos(1e-6 * static_cast<double>(
                                                           mix(c.seed, r, 0) % 50)));
      }
      for (int r = 0; r < q; ++r) {
        if (c.clock == Clock::virtual_time && result.stats().node_time[nodes[r]] < last_arrival) {
          return "rank " + std::to_string(r) + " (node " + std::to_string(nodes[r]) +
                 ") left the barrier before the last member arrived";
        }
      }
      continue;
    }
    for (int r = 0; r < q; ++r) {
      const Member& me = members[nodes[r]];
      const std::string who = "rank " + std::to_string(r) + " of " + std::to_string(q) +
                              " (node " + std::to_string(nodes[r]) + "): ";
      if (!me.send_changed.empty()) return who + me.send_changed;
      if (!me.has_buffer) continue;
      if (!me.canaries) return who + "wrote past the end of its buffer";
      const std::optional<Bytes>& w = want.at(r);
      if (!w) {
        if (me.after != me.before) return who + "changed a buffer the operation leaves alone";
        continue;
      }
      if (w->size() != me.after.size()) {
        return who + "the reference has " + std::to_string(w->size() / isz) +
               " items, the buffer " + std::to_string(me.after.size() / isz);
      }
      for (std::size_t i = 0; i * isz < w->size(); ++i) {
        if (std::memcmp(w->data() + i * isz, me.after.data() + i * isz, isz) != 0) {
          const bool poison = std::all_of(me.after.begin() + i * isz, me.after.begin() + (i + 1) * isz,
                                          [](unsigned char b) { return b == reference::kPoison; });
          return who + "wrong result at item " + std::to_string(i) + ": got " +
                 (poison ? "nothing (never written)" : format_item(c, me.after.data() + i * isz)) +
                 ", want " + format_item(c, w->data() + i * isz);
        }
      }
    }
  }
  // The virtual time against the cost formula, on the whole machine.
  if (a.cost == nullptr || s.cost == CostCheck::none || c.clock != Clock::virtual_time ||
      c.group != "world" || crowded || c.skew > 0) {
    return "";
  }
  // A hybrid family's _optimal row: the member selection handed it.
  const CostQuery q = row_query(op, a, query_of(op, c, m.topology(), p, options));
  CostCheck check = s.cost;
  if (check == CostCheck::claim) {
    const Claim claim = claim_of(a, q);
    check = claim == Claim::exact ? CostCheck::exact
            : claim == Claim::lower_bound ? CostCheck::lower_bound : CostCheck::none;
  }
  const Picos formula = a.cost(q), time = result.time_ps();
  const bool holds = check == CostCheck::none || (check == CostCheck::exact && time == formula) ||
                     (check == CostCheck::lower_bound && time >= formula) ||
                     (check == CostCheck::upper_bound && time <= formula);
  if (holds) return "";
  const char* what = check == CostCheck::exact ? "equal to" : check == CostCheck::lower_bound
                                                                  ? "at least"
                                                                  : "at most";
  return "virtual time " + std::to_string(time) + " ps (" + format_duration(to_seconds(time)) +
         "), but the cost formula says " + what + " " + std::to_string(formula) + " ps (" +
         format_duration(to_seconds(formula)) + ")";
}

// The machines of one p, kept while the sweep is at that p.
class Machines {
 public:
  explicit Machines(double watchdog) : watchdog_(watchdog) {}
  Machine& get(const Case& c) {
    if (c.p != p_) {
      machines_.clear();
      p_ = c.p;
    }
    Case key = c;  // the machine fields only
    key.n = 0;
    key.root = 0;
    key.type = "int64";
    key.op = "sum";
    key.in_place = false;
    key.group = "world";
    key.seed = 1;
    auto& m = machines_[to_string(key)];
    if (!m) {
      MachineConfig config = machine_config(c);
      config.watchdog_seconds = watchdog_;
      m = std::make_unique<Machine>(config);
    }
    return *m;
  }

 private:
  double watchdog_;
  int p_ = -1;
  std::map<std::string, std::unique_ptr<Machine>> machines_;
};

// The plain run, then (Settings::crowded) the run among other traffic. A skewed case
// (Case::skew) starts skewed in the crowded run only, so that every plain run on the
// virtual clock keeps its time check; without the crowded run, the plain run is skewed. Not
// on the real clock under rendezvous: there an isend that waits for its receive holds up the
// node's later isends, so a token sent before the call would stop the call's own messages.
std::string run_both(Machines& machines, Operation op, const Algorithm& a, const Case& c,
                     const Settings& s) {
  const bool real_rendezvous = c.clock == Clock::real_time && c.protocol == Protocol::rendezvous;
  const bool crowded = s.crowded && !real_rendezvous;
  Case plain = c;
  if (crowded) plain.skew = 0;
  std::string failure = run_on(machines.get(plain), op, a, plain, s, false);
  if (!failure.empty() || !crowded) return failure;
  failure = run_on(machines.get(c), op, a, c, s, true);
  return failure.empty() ? "" : "among other traffic: " + failure;
}

}  // namespace

bool applies(Operation op, const Algorithm& a, const Case& c) {
  if (op == Operation::broadcast && c.in_place) return false;
  if (c.in_place && !has_in_place(op)) return false;
  if (a.applicable == nullptr) return true;
  const auto topology = parse_topology(topology_spec(c));
  const Options options = options_for(a);
  for (int size : group_sizes(c.group, c.p)) {
    if (!a.applicable(query_of(op, c, *topology, size, options))) return false;
  }
  return true;
}

std::string run_case(Operation op, const Algorithm& a, const Case& c, const Settings& s) {
  if (!supported(op)) {
    throw std::invalid_argument("the harness does not know the semantics of " + to_string(op));
  }
  if (!applies(op, a, c)) return "";
  Machines machines(s.watchdog_seconds);
  return run_both(machines, op, a, c, s);
}

namespace {

bool is_prime(std::size_t x) {
  if (x < 2) return false;
  for (std::size_t d = 2; d * d <= x; ++d) {
    if (x % d == 0) return false;
  }
  return true;
}

std::vector<std::size_t> lengths_for(int p, const Settings& s) {
  std::vector<std::size_t> ns = s.lengths;
  if (ns.empty()) {
    std::size_t prime = 2 * static_cast<std::size_t>(p) + 1;
    while (!is_prime(prime)) ++prime;
    ns = {0, 1, 2, std::size_t(p > 3 ? p - 1 : 3), std::size_t(p + 1), prime, 997};
  }
  std::sort(ns.begin(), ns.end());
  ns.erase(std::unique(ns.begin(), ns.end()), ns.end());
  return ns;
}

std::vector<int> roots_for(Operation op, int p, bool every) {
  if (!traits(op).rooted) return {0};
  std::vector<int> roots;
  if (p <= 16 || every) {
    for (int r = p - 1; r >= 0; --r) roots.push_back(r);
  } else {
    roots = {p - 1, 0, p / 2, 1};
  }
  return roots;
}

std::uint64_t perturb_seed(const Settings& s) {
  if (s.perturb_seed != 0) return s.perturb_seed;
  const char* env = std::getenv("VMC_PERTURB_SEED");
  const std::uint64_t seed = env != nullptr ? std::strtoull(env, nullptr, 10) : 0;
  return seed != 0 ? seed : 1;
}

// The commutative (type, op) pairs the sweep turns through: the settings' ops on its types,
// where the op is defined on the type.
std::vector<std::pair<std::string, std::string>> typed_ops(const Settings& s) {
  std::vector<std::pair<std::string, std::string>> pairs;
  for (std::size_t shift = 0; shift < s.ops.size(); ++shift) {
    for (std::size_t t = 0; t < s.types.size(); ++t) {
      Case c;
      c.type = s.types[t];
      c.op = s.ops[(shift + t) % s.ops.size()];
      try {
        make_op(c);
      } catch (const std::invalid_argument&) {
        continue;
      }
      pairs.emplace_back(c.type, c.op);
    }
  }
  if (pairs.empty()) pairs.emplace_back("int64", "sum");
  return pairs;
}

}  // namespace

std::vector<Case> cases(Operation op, const Algorithm& /*a: the cases are the same for every row*/,
                        const Settings& s) {
  std::vector<Case> all;
  const auto typed = typed_ops(s);
  const std::vector<std::string> groups = {"reversed", "even", "halves", "drop1"};
  std::map<std::string, std::vector<std::string>> ops_on;  // the ops of `typed` by type
  for (const auto& [type, name] : typed) ops_on[type].push_back(name);
  std::size_t k = 0;  // every case turns the wheels one notch
  auto next = [&](int p, std::size_t n, int root) {
    Case c;
    c.p = p;
    c.n = n;
    c.root = root;
    c.topology = s.topologies[k % s.topologies.size()];
    c.port = s.ports[(k + k / s.topologies.size()) % s.ports.size()];
    c.protocol = s.rendezvous && k % 5 == 4 ? Protocol::rendezvous : Protocol::eager;
    std::tie(c.type, c.op) = typed[k % typed.size()];
    c.in_place = s.in_place && has_in_place(op) && k % 2 == 1;
    c.seed = 1 + k % 7;
    // Every fourth case with skewed starts, up to a few startups wide.
    if (k % 4 == 3) c.skew = c.alpha * static_cast<double>(1 + k % 5);
    ++k;
    return c;
  };
  for (int p = s.min_p; p <= s.max_p; ++p) {
    const auto ns = lengths_for(p, s);
    const auto roots = roots_for(op, p, s.dense);
    if (s.dense) {
      // The product: every root, length, item type and port model.
      for (int root : roots) {
        for (std::size_t n : ns) {
          for (const std::string& type : s.types) {
            for (Port port : s.ports) {
              const auto& type_ops = ops_on[type];
              if (type_ops.empty()) continue;  // no op of the settings is defined on it
              Case c = next(p, n, root);
              c.port = port;
              c.type = type;
              c.op = type_ops[k % type_ops.size()];
              all.push_back(c);
            }
          }
        }
      }
    } else {
      // Every length (with the roots in turn), then every root (with the lengths in turn).
      for (std::size_t i = 0; i < ns.size(); ++i) {
        all.push_back(next(p, ns[i], roots[i % roots.size()]));
      }
      for (std::size_t i = ns.size(); i < roots.size(); ++i) {
        all.push_back(next(p, ns[i % ns.size()], roots[i]));
      }
    }
    if (s.non_commutative && traits(op).combines) {
      Case c = next(p, ns[std::min<std::size_t>(ns.size() - 1, 4)], roots[0]);
      c.type = "mat3";
      c.op = "matmul";
      all.push_back(c);
    }
    if (s.sub_groups && p >= 3) {
      Case c = next(p, p + 2, roots[0]);
      c.group = groups[p % groups.size()];
      all.push_back(c);
    }
    if (s.perturbation && (p <= 8 || p % 8 == 0)) {
      Case c = next(p, p + 1, roots[0]);
      c.clock = Clock::real_time;
      c.skew = 0;  // virtual clock only
      c.topology = "full";
      c.perturb = perturb_seed(s) + static_cast<std::uint64_t>(p);
      all.push_back(c);
    }
  }
  return all;
}

namespace {

// Shrinks a failing case: p, then n, then the op, then the machine and the call's form,
// each time keeping a smaller variant that still fails.
std::pair<Case, std::string> shrink(Operation op, const Algorithm& a, Case c, std::string failure,
                                    const Settings& s, int& runs) {
  auto fails = [&](const Case& x) -> std::optional<std::string> {
    if (!applies(op, a, x)) return std::nullopt;
    ++runs;
    std::string f = run_case(op, a, x, s);
    if (f.empty()) return std::nullopt;
    return f;
  };
  auto keep_if_fails = [&](const Case& x) {
    if (auto f = fails(x)) {
      c = x;
      failure = *f;
      return true;
    }
    return false;
  };
  // One pass: p, then n, then the op, then the machine and the call's form; passes repeat
  // while one of them finds a smaller case (a simpler op may fail at a smaller n).
  auto pass = [&] {
    bool smaller = false;
    for (int p = 1; p < c.p; ++p) {
      Case x = c;
      x.p = p;
      if (traits(op).rooted && c.root >= p) continue;
      if (keep_if_fails(x)) {
        smaller = true;
        break;
      }
    }
    std::vector<std::size_t> ns = lengths_for(c.p, s);
    for (std::size_t n = 0; n < 4; ++n) ns.push_back(n);
    std::sort(ns.begin(), ns.end());
    ns.erase(std::unique(ns.begin(), ns.end()), ns.end());
    for (std::size_t n : ns) {
      if (n >= c.n) break;
      Case x = c;
      x.n = n;
      if (keep_if_fails(x)) {
        smaller = true;
        break;
      }
    }
    for (const auto& [type, name] : std::vector<std::pair<std::string, std::string>>{
             {"int64", "sum"}, {"int32", "sum"}, {"int64", "max"}, {"double", "sum"}}) {
      if (c.type == type && c.op == name) break;
      if (!traits(op).combines && c.type == "int64") break;  // only the item type matters
      Case x = c;
      x.type = type;
      x.op = name;
      if (keep_if_fails(x)) {
        smaller = true;
        break;
      }
    }
    const std::vector<std::function<void(Case&)>> simpler = {
        [](Case& x) { x.clock = Clock::virtual_time; x.perturb = 0; },
        [](Case& x) { x.skew = 0; },
        [](Case& x) { x.group = "world"; },
        [](Case& x) { x.in_place = false; },
        [](Case& x) { x.protocol = Protocol::eager; },
        [](Case& x) { x.topology = "full"; },
        [](Case& x) { x.port = Port::exchange; },
        [](Case& x) { x.seed = 1; },
    };
    for (const auto& simplify : simpler) {
      Case x = c;
      simplify(x);
      if (to_string(x) != to_string(c) && keep_if_fails(x)) smaller = true;
    }
    return smaller;
  };
  for (int round = 0; round < 4 && pass(); ++round) {
  }
  return {c, failure};
}

std::string replay_text(Operation op, const std::string& name, const Case& c) {
  const std::string text = to_string(c);
  return "replay it:\n  EXPECT_EQ(vmc::harness::run_case(vmc::Operation::" + to_string(op) + ", " +
         name + ",\n                                   vmc::harness::parse_case(\"" + text +
         "\")), \"\");\n  or run this test with VMC_HARNESS_CASE='" + text + "'";
}

}  // namespace

Report check(Operation op, const Algorithm& a, const Settings& s) {
  if (!supported(op)) {
    throw std::invalid_argument("the harness does not know the semantics of " + to_string(op));
  }
  const auto started = std::chrono::steady_clock::now();
  Report report;
  auto finish = [&](Report& r) {
    r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    std::ostringstream line;
    line << to_string(op) << " " << a.name << ": " << counted(r.cases, "case") << " run, "
         << r.skipped << " skipped (the algorithm does not apply), " << std::fixed
         << std::setprecision(2) << r.seconds << " s" << (s.dense ? " (dense)" : "")
         << (r.passed ? "" : ": FAILED");
    r.summary = line.str();
    if (s.print) {
      std::printf("[ harness  ] %s\n", r.summary.c_str());
      std::fflush(stdout);
    }
  };
  std::vector<Case> todo;
  const char* env = std::getenv("VMC_HARNESS_CASE");
  if (s.only) todo = {*s.only};
  else if (env != nullptr && env[0] != '\0') todo = {parse_case(env)};
  else todo = cases(op, a, s);
  const std::string title = to_string(op) + " " + a.name;
  Machines machines(s.watchdog_seconds);
  for (const Case& c : todo) {
    if (!applies(op, a, c)) {
      ++report.skipped;
      continue;
    }
    ++report.cases;
    std::string failure = run_both(machines, op, a, c, s);
    if (failure.empty()) continue;
    int runs = 0;
    const Case first = c;
    const std::string first_failure = failure;
    auto [smallest, why] = shrink(op, a, c, failure, s, runs);
    report.passed = false;
    report.failing = smallest;
    report.failure = why;
    std::ostringstream m;
    m << title << ": FAILED. Smallest failing case:\n  " << to_string(smallest) << "\n  " << why
      << "\n(the sweep's first failure, after " << counted(report.cases - 1, "passing case")
      << ", was "
      << to_string(first) << ": " << first_failure << "; shrunk in " << runs << " runs)\n"
      << replay_text(op, s.replay_name.empty() ? a.name : s.replay_name, smallest);
    finish(report);
    report.message = report.summary + "\n" + m.str();
    return report;
  }
  finish(report);
  report.message = report.summary;
  return report;
}

ToleranceReport check_one_failure(Operation op, const Algorithm& a, const Case& c, int draws) {
  if (!supported(op)) {
    throw std::invalid_argument("the harness does not know the semantics of " + to_string(op));
  }
  if (c.clock != Clock::virtual_time || c.protocol != Protocol::eager) {
    throw std::invalid_argument("check_one_failure: nodes fail on the virtual clock under eager "
                                "sends only (" + to_string(c) + ")");
  }
  const Options options = options_for(a);
  const Op opv = traits(op).combines ? make_op(c) : ops::sum<std::int64_t>();
  auto body = [&](Node& node) {
    const Comm comm = case_comm(node, c);
    Member me;
    if (comm.valid()) call(op, comm, c, root_in(c.root, comm.size()), options, opv, me);
  };
  auto one_line = [](std::string text) {
    std::replace(text.begin(), text.end(), '\n', ' ');
    return text;
  };
  MachineConfig config = machine_config(c);
  config.watchdog_seconds = 30;
  const std::string title = to_string(op) + " " + a.name + " (" + to_string(c) + ")";
  ToleranceReport report;
  Picos length = 0;
  try {
    length = Machine(config).run(body).time_ps();
  } catch (const RunError& e) {
    report.passed = false;
    report.message = title + ": the run fails without a failure: " + one_line(e.what());
    return report;
  }
  std::string lines;
  for (int k = 1; k <= draws; ++k) {
    // A run of no time (one node, nothing to send) still draws from [0, 1 ns).
    config.random_failures = RandomFailures{
        .count = 1, .before = to_seconds(std::max<Picos>(length, 1000)),
        .seed = static_cast<std::uint64_t>(k)};
    Machine m(config);
    ++report.draws;
    try {
      const RunResult r = m.run(body);
      if (!r.failures().empty()) ++report.acted;
    } catch (const RunError& e) {
      ++report.acted;
      report.broken.push_back(static_cast<std::uint64_t>(k));
      lines += "\n  seed " + std::to_string(k) + ": --fail " + describe_failures(m.failures()) +
               ": " + one_line(e.what());
    }
  }
  report.passed = report.broken.empty();
  report.message = title + ": " + std::to_string(report.draws) + " single failures drawn, " +
                   std::to_string(report.acted) + " stopped their node, " +
                   std::to_string(report.broken.size()) + " broke the run" + lines;
  return report;
}

Settings dense(int max_p) {
  Settings s;
  s.max_p = max_p;
  s.dense = true;
  return s;
}

::testing::AssertionResult passes(Operation op, const Algorithm& a, const Settings& s) {
  const Report r = check(op, a, s);
  if (r.passed && r.cases > 0) return ::testing::AssertionSuccess() << r.message;
  if (r.passed) {
    return ::testing::AssertionFailure() << to_string(op) << " " << a.name
                                         << ": no case ran (the algorithm applies to none)";
  }
  return ::testing::AssertionFailure() << r.message;
}

::testing::AssertionResult passes_named(const char* arguments, Operation op, const Algorithm& a,
                                        const Settings& s) {
  // The first argument: the text up to the first comma outside brackets.
  std::string name;
  int depth = 0;
  for (const char* x = arguments; *x != '\0'; ++x) {
    if (*x == ',' && depth == 0) break;
    if (*x == '(' || *x == '[' || *x == '{' || *x == '<') ++depth;
    if (*x == ')' || *x == ']' || *x == '}' || *x == '>') --depth;
    name += *x;
  }
  Settings named = s;
  if (named.replay_name.empty()) named.replay_name = name;
  return passes(op, a, named);
}

namespace gen {

namespace {
rc::Gen<Case> machine_of(int p) {
  return rc::gen::apply(
      [p](std::string topology, Port port, Routing routing, Protocol protocol) {
        Case c;
        c.p = p;
        c.topology = std::move(topology);
        c.port = port;
        c.routing = routing;
        c.protocol = protocol;
        return c;
      },
      rc::gen::elementOf(std::vector<std::string>{"full", "hypercube", "ring", "array", "mesh",
                                                  "torus", "tree"}),
      rc::gen::element(Port::exchange, Port::duplex, Port::half, Port::all),
      rc::gen::element(Routing::wormhole, Routing::direct, Routing::store_and_forward),
      rc::gen::element(Protocol::eager, Protocol::rendezvous));
}
}  // namespace

rc::Gen<Case> machines(int max_p) {
  return rc::gen::mapcat(rc::gen::inRange(1, max_p + 1), machine_of);
}

rc::Gen<Case> cases(Operation op, const Algorithm& a, int max_p) {
  // The node counts the row applies to (on the whole machine), so that few draws are lost.
  std::vector<int> ps;
  for (int p = 1; p <= max_p; ++p) {
    Case c;
    c.p = p;
    c.n = static_cast<std::size_t>(p) + 1;
    if (applies(op, a, c)) ps.push_back(p);
  }
  if (ps.empty()) ps.push_back(1);
  const auto whole = rc::gen::mapcat(rc::gen::elementOf(ps), [op](int p) {
    return rc::gen::apply(
        [](Case c, std::size_t n, int root, std::pair<std::string, std::string> typed,
           bool in_place, std::string group, std::uint64_t seed) {
          c.n = n;
          c.root = root;
          std::tie(c.type, c.op) = typed;
          c.in_place = in_place;
          c.group = std::move(group);
          c.seed = seed;
          return c;
        },
        machine_of(p),
        rc::gen::oneOf(rc::gen::inRange<std::size_t>(0, std::size_t(p) + 3),
                       rc::gen::inRange<std::size_t>(0, 2000)),
        traits(op).rooted ? rc::gen::inRange(0, p) : rc::gen::just(0),
        rc::gen::elementOf(std::vector<std::pair<std::string, std::string>>{
            {"int64", "sum"}, {"int32", "max"}, {"double", "sum"}, {"float", "prod"},
            {"int64", "bxor"}, {"int32", "min"}, {"mat3", "matmul"}}),
        has_in_place(op) ? rc::gen::arbitrary<bool>() : rc::gen::just(false),
        rc::gen::elementOf(
            std::vector<std::string>{"world", "world", "reversed", "even", "halves", "drop1"}),
        rc::gen::inRange<std::uint64_t>(1, 1000));
  });
  return rc::gen::suchThat(whole, [op, row = &a](const Case& c) {
    return (traits(op).combines || c.type != "mat3") && applies(op, *row, c);
  });
}

}  // namespace gen

}  // namespace vmc::harness
