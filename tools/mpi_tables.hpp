// What MPI libraries call vmc's algorithms, and how they key their selection tables: the
// table `vmc tune` writes its Open MPI and MPICH files from (docs/cli.md prints it).
//
// Open MPI: the coll_tuned component's algorithm numbers and names (as `ompi_info --all`
// lists them for coll_tuned_<op>_algorithm in Open MPI 4.1; coll_tuned_<op>_decision.c), its
// collective ids (COLLTYPE in ompi/mca/coll/base/coll_base_functions.h) and the message size
// its dynamic rules compare (coll_tuned_decision_dynamic.c).
// MPICH: the MPIR_<Op>_intra_<algorithm> names its collective selection JSON names
// (maint/tuning/coll/mpir/generic.json) and the size its conditions compare
// (src/mpi/coll/src/csel.c: avg_msg_size, total_msg_size).
#pragma once

#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "collectives/vocabulary/operation.hpp"

namespace vmc::cli {

enum class MpiLibrary { open_mpi, mpich };
std::string to_string(MpiLibrary library);  // "Open MPI", "MPICH"

// For which node counts an equivalent holds (a vmc algorithm that runs one way at powers of
// two and another elsewhere has a different equivalent at each).
enum class NodeCounts { any, power_of_two, other };

// One row of the table: vmc's `algorithm` of `op` is the library's `name` (Open MPI: with
// its number `id`; MPICH: 0) at the node counts `when`.
struct LibraryEquivalent {
  Operation op;
  const char* algorithm;
  MpiLibrary library;
  NodeCounts when;
  int id;
  const char* name;
};
std::span<const LibraryEquivalent> library_equivalents();

// The library's equivalent of `algorithm` at p nodes, or nullptr when it has none.
const LibraryEquivalent* equivalent(MpiLibrary library, Operation op, std::string_view algorithm,
                                    int p);

// How a library keys the message size of a call of `op` with count n (MPI's count, as
// vmc's --n) of items of item_bytes on p ranks.
struct SizeKey {
  std::string name;  // Open MPI: "msg_size"; MPICH: "avg_msg_size" or "total_msg_size"; "" none
  std::size_t bytes = 0;
  bool depends_on_n = true;  // false: the library keys this operation on p alone
};

// Open MPI coll_tuned: the collective's id and name in its rules (nullopt: coll_tuned has no
// rules for it, e.g. gatherv and scatterv).
struct OpenMpiCollective {
  int id;
  const char* name;
};
std::optional<OpenMpiCollective> open_mpi_collective(Operation op);
SizeKey open_mpi_size(Operation op, std::size_t n, std::size_t item_bytes, int p);

// MPICH: the name after "collective=" (nullopt: none).
std::optional<std::string> mpich_collective(Operation op);
SizeKey mpich_size(Operation op, std::size_t n, std::size_t item_bytes, int p);

}  // namespace vmc::cli
