// `vmc tune`'s grid and its three writers (tune.hpp).
#include "tools/tune.hpp"

#include <algorithm>
#include <climits>
#include <iomanip>
#include <limits>
#include <map>
#include <optional>
#include <stdexcept>
#include <utility>

#include <nlohmann/json.hpp>

#include "collectives/registry.hpp"
#include "collectives/selection/members.hpp"
#include "collectives/selection/selection.hpp"
#include "collectives/selection/simulation.hpp"
#include "tools/model_options.hpp"
#include "tools/runner.hpp"

namespace vmc::cli {

namespace {

// An algorithm's time as `vmc explain` shows it: its run in virtual time where selection
// simulates one, its formula (as the row runs) otherwise.
Picos time_of(Operation op, const Algorithm& a, const CostQuery& q) {
  if (auto simulated = simulated_cost(op, a, q)) return *simulated;
  return a.cost(row_query(op, a, q));
}

// The applicable rows in the order selection ranks them: the winner first, then by time
// (table order among equals).
std::vector<std::pair<const Algorithm*, Picos>> ranked(Operation op, const Algorithm& winner,
                                                       const CostQuery& q) {
  std::vector<std::pair<const Algorithm*, Picos>> rows;
  for (const Algorithm& a : algorithms(op)) {
    if (&a != &winner && a.applicable(q)) rows.emplace_back(&a, time_of(op, a, q));
  }
  std::stable_sort(rows.begin(), rows.end(),
                   [](const auto& x, const auto& y) { return x.second < y.second; });
  rows.insert(rows.begin(), {&winner, time_of(op, winner, q)});
  return rows;
}

// The best-ranked row with an equivalent in `library`.
Written written_for(MpiLibrary library, Operation op, int p,
                    const std::vector<std::pair<const Algorithm*, Picos>>& rows) {
  for (const auto& [a, t] : rows) {
    if (const LibraryEquivalent* e = equivalent(library, op, a->name, p)) {
      return {a->name, e, to_seconds(t)};
    }
  }
  return {};
}

std::string point_text(const TunePoint& t) {
  return "p = " + std::to_string(t.p) + ", n = " + std::to_string(t.n);
}

// Where the key does not depend on n: the Written that most of the points give (the later
// point among equals), and which n it is written for.
const TunePoint& most_frequent(const std::vector<const TunePoint*>& row, MpiLibrary library) {
  std::map<std::string, int> votes;
  for (const TunePoint* t : row) ++votes[t->in(library).algorithm];
  const TunePoint* best = row.front();
  for (const TunePoint* t : row) {
    if (votes[t->in(library).algorithm] >= votes[best->in(library).algorithm]) best = t;
  }
  return *best;
}

// The points of one operation at one p, in increasing n.
std::map<std::pair<Operation, int>, std::vector<const TunePoint*>> by_op_and_p(
    const std::vector<TunePoint>& points) {
  std::map<std::pair<Operation, int>, std::vector<const TunePoint*>> rows;
  for (const TunePoint& t : points) rows[{t.op, t.p}].push_back(&t);
  return rows;
}

std::vector<Operation> ops_of(const std::vector<TunePoint>& points) {
  std::vector<Operation> ops;
  for (const TunePoint& t : points) {
    if (std::find(ops.begin(), ops.end(), t.op) == ops.end()) ops.push_back(t.op);
  }
  return ops;
}

}  // namespace

std::vector<TunePoint> tune(const TuneGrid& grid) {
  std::vector<TunePoint> points;
  for (Operation op : grid.ops) {
    for (std::size_t p : grid.ps) {
      const auto net = family_network("--p", grid.family, p);
      check_link_rates(*net, grid.model);
      for (std::size_t n : grid.ns) {
        RunSpec spec;
        spec.op = op;
        spec.n = n;
        spec.type = grid.type;
        spec.reduction = grid.reduction;
        const CostQuery q = run_query(*net, grid.model, spec);
        const Algorithm& winner = select_algorithm(op, q);
        TunePoint t{.op = op, .p = q.p, .n = n, .item_bytes = item_bytes(spec),
                    .topology = net->spec(), .winner = winner.name,
                    .predicted_s = to_seconds(time_of(op, winner, q))};
        // The whole ranking is computed only where a library lacks the winner.
        std::optional<std::vector<std::pair<const Algorithm*, Picos>>> rows;
        for (MpiLibrary library : {MpiLibrary::open_mpi, MpiLibrary::mpich}) {
          Written& w = library == MpiLibrary::open_mpi ? t.open_mpi : t.mpich;
          if (const LibraryEquivalent* e = equivalent(library, op, winner.name, t.p)) {
            w = {winner.name, e, t.predicted_s};
            continue;
          }
          if (!rows) rows = ranked(op, winner, q);
          w = written_for(library, op, t.p, *rows);
        }
        points.push_back(t);
      }
    }
  }
  return points;
}

std::vector<std::string> substitutions(const std::vector<TunePoint>& points, MpiLibrary library) {
  // (op, winner, written) -> the points
  std::map<std::tuple<std::string, std::string, std::string>, std::vector<std::string>> groups;
  for (const TunePoint& t : points) {
    const Written& w = t.in(library);
    const bool has_rules = library == MpiLibrary::open_mpi ? open_mpi_collective(t.op).has_value()
                                                           : mpich_collective(t.op).has_value();
    if (w.algorithm == t.winner || !has_rules) continue;  // the writer says what it leaves out
    groups[{vmc::to_string(t.op), t.winner, w.algorithm}].push_back(point_text(t));
  }
  std::vector<std::string> lines;
  for (const auto& [key, where] : groups) {
    const auto& [op, winner, written] = key;
    std::string at;
    for (std::size_t i = 0; i < where.size() && i < 3; ++i) at += (i ? "; " : "") + where[i];
    if (where.size() > 3) at += " and " + std::to_string(where.size() - 3) + " more";
    lines.push_back(op + ": " + winner + " (wins at " + at + ") has no " + to_string(library) +
                    " equivalent; " +
                    (written.empty() ? "no applicable algorithm has one, so nothing is written"
                                     : "written instead: " + written +
                                           ", the best-ranked algorithm that has one"));
  }
  return lines;
}

void write_tune_csv(std::ostream& out, const std::vector<TunePoint>& points,
                    const std::string& type) {
  out << "op,p,n,type,item_bytes,topology,winner,predicted_s,"
         "open_mpi_msg_size,open_mpi_id,open_mpi_algorithm,open_mpi_from,open_mpi_predicted_s,"
         "mpich_key,mpich_bytes,mpich_algorithm,mpich_from,mpich_predicted_s\n";
  // Times to the last digit, so that they read back as the doubles `vmc explain --json` prints.
  out << std::setprecision(std::numeric_limits<double>::max_digits10);
  for (const TunePoint& t : points) {
    out << vmc::to_string(t.op) << "," << t.p << "," << t.n << "," << type << "," << t.item_bytes
        << "," << t.topology << "," << t.winner << "," << t.predicted_s << ",";
    const SizeKey o = open_mpi_size(t.op, t.n, t.item_bytes, t.p);
    if (o.name.empty()) {
      out << ",,,,";
    } else {
      out << o.bytes << ",";
      if (t.open_mpi.as != nullptr) {
        out << t.open_mpi.as->id << "," << t.open_mpi.as->name << "," << t.open_mpi.algorithm
            << "," << t.open_mpi.predicted_s;
      } else {
        out << ",,,";
      }
    }
    out << ",";
    const SizeKey m = mpich_size(t.op, t.n, t.item_bytes, t.p);
    out << m.name << "," << (m.name.empty() ? "" : std::to_string(m.bytes)) << ",";
    if (t.mpich.as != nullptr) {
      out << t.mpich.as->name << "," << t.mpich.algorithm << "," << t.mpich.predicted_s;
    } else {
      out << ",,";
    }
    out << "\n";
  }
}

void write_open_mpi_rules(std::ostream& out, const std::vector<TunePoint>& points,
                          const std::string& about) {
  out << "# Open MPI coll_tuned dynamic rules written by vmc tune, in the classic format of\n"
         "# Open MPI 4.1 (a rule per communicator size from that size up, a rule per message\n"
         "# size from that size up; each rule: size, algorithm, fan-in/out, segment size).\n"
         "# "
      << about
      << "\n# Use: mpirun --mca coll_tuned_use_dynamic_rules 1 "
         "--mca coll_tuned_dynamic_rules_filename FILE ...\n"
         "# Message sizes are bytes as coll_tuned computes them: count x type size for\n"
         "# allreduce, bcast and reduce; x p for allgather, allgatherv, alltoall and\n"
         "# reduce_scatter; type size x p for gather, scatter, scan and exscan; 0 for barrier\n"
         "# and alltoallv. Algorithm 0 leaves the choice to Open MPI's fixed rules.\n";
  for (const std::string& line : substitutions(points, MpiLibrary::open_mpi)) {
    out << "# " << line << "\n";
  }
  std::vector<Operation> ops;
  for (Operation op : ops_of(points)) {
    if (open_mpi_collective(op)) {
      ops.push_back(op);
    } else {
      out << "# " << vmc::to_string(op) << ": coll_tuned takes no rules for it; left out\n";
    }
  }
  const auto rows = by_op_and_p(points);
  out << ops.size() << "  # collectives\n";
  for (Operation op : ops) {
    const OpenMpiCollective c = *open_mpi_collective(op);
    std::vector<int> ps;
    for (const auto& [key, row] : rows) {
      if (key.first == op) ps.push_back(key.second);
    }
    out << c.id << "  # " << c.name << "\n" << ps.size() << "  # communicator sizes\n";
    for (int p : ps) {
      const std::vector<const TunePoint*>& row = rows.at({op, p});
      out << p << "  # p = " << p << " and up\n";
      std::vector<const TunePoint*> written = row;
      const bool by_n = open_mpi_size(op, 0, 1, p).depends_on_n;
      if (!by_n) written = {&most_frequent(row, MpiLibrary::open_mpi)};
      out << written.size() << "  # message sizes\n";
      for (std::size_t i = 0; i < written.size(); ++i) {
        const TunePoint& t = *written[i];
        const std::size_t bytes = i == 0 ? 0 : open_mpi_size(op, t.n, t.item_bytes, p).bytes;
        const Written& w = t.open_mpi;
        out << bytes << " " << (w.as ? w.as->id : 0) << " 0 0  # ";
        if (!by_n) {
          out << "keyed on p alone: the algorithm of most of the lengths, here n = " << t.n
              << ": ";
        } else {
          out << "n = " << t.n << (i == 0 ? " and below" : "") << ": ";
        }
        if (w.as == nullptr) {
          out << "no equivalent of any applicable algorithm (winner " << t.winner << ")\n";
          continue;
        }
        out << w.as->name << ", vmc " << w.algorithm << ", predicted "
            << format_duration(w.predicted_s);
        if (w.algorithm != t.winner) out << " (winner " << t.winner << " has no equivalent)";
        out << "\n";
      }
    }
  }
}

void write_mpich_json(std::ostream& out, const std::vector<TunePoint>& points,
                      std::vector<std::string>& left_out) {
  using Json = nlohmann::ordered_json;
  const auto rows = by_op_and_p(points);
  // An MPICH condition's value is read with atoi: it must fit an int.
  auto bound = [](std::size_t bytes) {
    if (bytes > static_cast<std::size_t>(INT_MAX)) {
      throw UsageError("--format mpich: a message size of " + std::to_string(bytes) +
                       " bytes is beyond what MPICH's selection JSON holds (2^31 - 1)");
    }
    return std::to_string(bytes);
  };
  auto algorithm = [](const LibraryEquivalent& e) {
    Json leaf = Json::object();
    // MPICH's generic.json gives its k-nomial dissemination barrier k = 2: the
    // dissemination vmc runs.
    if (std::string(e.name) == "MPIR_Barrier_intra_k_dissemination") leaf["k=2"] = Json::object();
    return Json{{std::string("algorithm=") + e.name, leaf}};
  };
  Json top = Json::object();
  for (Operation op : ops_of(points)) {
    const std::optional<std::string> name = mpich_collective(op);
    bool complete = name.has_value();
    for (const TunePoint& t : points) complete = complete && (t.op != op || t.mpich.as);
    if (!complete) {
      left_out.push_back(vmc::to_string(op));
      continue;
    }
    std::vector<int> ps;
    for (const auto& [key, row] : rows) {
      if (key.first == op) ps.push_back(key.second);
    }
    Json by_size = Json::object();
    for (std::size_t k = 0; k < ps.size(); ++k) {
      const std::vector<const TunePoint*>& row = rows.at({op, ps[k]});
      const SizeKey key = mpich_size(op, 0, 1, ps[k]);
      Json rules = Json::object();
      if (!key.depends_on_n) {
        rules = algorithm(*most_frequent(row, MpiLibrary::mpich).mpich.as);
      } else {
        // The rule of length n_i holds from its size up to the next length's.
        for (std::size_t i = 0; i < row.size(); ++i) {
          const TunePoint& t = *row[i];
          const std::string condition =
              i + 1 < row.size()
                  ? key.name + "<" +
                        bound(mpich_size(op, row[i + 1]->n, t.item_bytes, t.p).bytes)
                  : key.name + "=any";
          rules[condition] = algorithm(*t.mpich.as);
        }
      }
      // The rule of p_k holds from p_k up to the next p (and below the first).
      const std::string condition = k + 1 < ps.size()
                                        ? "comm_size<" + std::to_string(ps[k + 1])
                                        : std::string("comm_size=any");
      by_size[condition] = rules;
    }
    top["collective=" + *name] = Json{{"comm_type=intra", by_size}};
  }
  out << top.dump(4) << "\n";
}

}  // namespace vmc::cli
