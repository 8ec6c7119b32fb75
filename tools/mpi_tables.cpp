// The table of mpi_tables.hpp. A vmc algorithm is given an equivalent only where the
// library's algorithm sends the same messages between the same ranks in the same order of
// steps; a close relative is not an equivalent (Open MPI's pairwise alltoall shifts by k
// where vmc's pairwise_xor exchanges with rank XOR k; its pipelined bcast needs a segment
// size the table does not carry).
#include "tools/mpi_tables.hpp"

#include <array>

namespace vmc::cli {

namespace {

using enum Operation;
constexpr MpiLibrary kOmpi = MpiLibrary::open_mpi;
constexpr MpiLibrary kMpich = MpiLibrary::mpich;
constexpr NodeCounts kAny = NodeCounts::any;
constexpr NodeCounts kPow2 = NodeCounts::power_of_two;
constexpr NodeCounts kOther = NodeCounts::other;

constexpr std::array kEquivalents = std::to_array<LibraryEquivalent>({
    // Open MPI 4.1 coll_tuned: coll_tuned_<op>_algorithm's numbers and names.
    {broadcast, "linear", kOmpi, kAny, 1, "basic_linear"},
    {broadcast, "binomial", kOmpi, kAny, 6, "binomial"},
    {broadcast, "scatter_allgather", kOmpi, kPow2, 8, "scatter_allgather"},
    {broadcast, "scatter_allgather", kOmpi, kOther, 9, "scatter_allgather_ring"},
    {reduce, "linear", kOmpi, kAny, 1, "linear"},
    {reduce, "binomial", kOmpi, kAny, 5, "binomial"},
    {reduce, "reduce_scatter_gather", kOmpi, kAny, 7, "rabenseifner"},
    {allreduce, "reduce_broadcast", kOmpi, kAny, 2, "nonoverlapping"},
    {allreduce, "recursive_doubling", kOmpi, kAny, 3, "recursive_doubling"},
    {allreduce, "ring", kOmpi, kAny, 4, "ring"},
    {allreduce, "recursive_halving_doubling", kOmpi, kAny, 6, "rabenseifner"},
    {allgather, "gather_broadcast", kOmpi, kAny, 1, "linear"},
    {allgather, "bruck", kOmpi, kAny, 2, "bruck"},
    {allgather, "recursive_doubling", kOmpi, kPow2, 3, "recursive_doubling"},
    {allgather, "ring", kOmpi, kAny, 4, "ring"},
    {allgatherv, "gather_broadcast", kOmpi, kAny, 1, "default"},
    {allgatherv, "bruck", kOmpi, kAny, 2, "bruck"},
    {allgatherv, "ring", kOmpi, kAny, 3, "ring"},
    {reduce_scatter, "recursive_halving", kOmpi, kAny, 2, "recursive_halving"},
    {reduce_scatter, "ring", kOmpi, kAny, 3, "ring"},
    {scan, "linear", kOmpi, kAny, 1, "linear"},
    {scan, "hypercube", kOmpi, kAny, 2, "recursive_doubling"},
    {scan, "recursive_doubling", kOmpi, kAny, 2, "recursive_doubling"},
    {exscan, "linear", kOmpi, kAny, 1, "linear"},
    {exscan, "hypercube", kOmpi, kAny, 2, "recursive_doubling"},
    {exscan, "recursive_doubling", kOmpi, kAny, 2, "recursive_doubling"},
    {scatter, "linear", kOmpi, kAny, 1, "basic_linear"},
    {scatter, "binomial", kOmpi, kAny, 2, "binomial"},
    {gather, "linear", kOmpi, kAny, 1, "basic_linear"},
    {gather, "binomial", kOmpi, kAny, 2, "binomial"},
    {alltoall, "ring", kOmpi, kAny, 2, "pairwise"},
    {alltoallv, "ring", kOmpi, kAny, 2, "pairwise"},
    {barrier, "dissemination", kOmpi, kAny, 4, "bruck"},
    {barrier, "tree", kOmpi, kAny, 6, "tree"},
    // MPICH: the MPIR_ functions its selection JSON names.
    {broadcast, "binomial", kMpich, kAny, 0, "MPIR_Bcast_intra_binomial"},
    {broadcast, "scatter_allgather", kMpich, kPow2, 0,
     "MPIR_Bcast_intra_scatter_recursive_doubling_allgather"},
    {broadcast, "scatter_allgather", kMpich, kOther, 0, "MPIR_Bcast_intra_scatter_ring_allgather"},
    {reduce, "binomial", kMpich, kAny, 0, "MPIR_Reduce_intra_binomial"},
    {reduce, "reduce_scatter_gather", kMpich, kAny, 0, "MPIR_Reduce_intra_reduce_scatter_gather"},
    {allreduce, "recursive_doubling", kMpich, kAny, 0, "MPIR_Allreduce_intra_recursive_doubling"},
    {allreduce, "ring", kMpich, kAny, 0, "MPIR_Allreduce_intra_ring"},
    {allreduce, "recursive_halving_doubling", kMpich, kAny, 0,
     "MPIR_Allreduce_intra_reduce_scatter_allgather"},
    {allgather, "bruck", kMpich, kAny, 0, "MPIR_Allgather_intra_brucks"},
    {allgather, "recursive_doubling", kMpich, kAny, 0, "MPIR_Allgather_intra_recursive_doubling"},
    {allgather, "ring", kMpich, kAny, 0, "MPIR_Allgather_intra_ring"},
    {allgatherv, "bruck", kMpich, kAny, 0, "MPIR_Allgatherv_intra_brucks"},
    {allgatherv, "recursive_doubling", kMpich, kAny, 0,
     "MPIR_Allgatherv_intra_recursive_doubling"},
    {allgatherv, "ring", kMpich, kAny, 0, "MPIR_Allgatherv_intra_ring"},
    {reduce_scatter, "recursive_halving", kMpich, kAny, 0,
     "MPIR_Reduce_scatter_intra_recursive_halving"},
    {reduce_scatter, "pairwise", kMpich, kAny, 0, "MPIR_Reduce_scatter_intra_pairwise"},
    {scan, "hypercube", kMpich, kAny, 0, "MPIR_Scan_intra_recursive_doubling"},
    {scan, "recursive_doubling", kMpich, kAny, 0, "MPIR_Scan_intra_recursive_doubling"},
    {exscan, "hypercube", kMpich, kAny, 0, "MPIR_Exscan_intra_recursive_doubling"},
    {exscan, "recursive_doubling", kMpich, kAny, 0, "MPIR_Exscan_intra_recursive_doubling"},
    {scatter, "binomial", kMpich, kAny, 0, "MPIR_Scatter_intra_binomial"},
    {gather, "binomial", kMpich, kAny, 0, "MPIR_Gather_intra_binomial"},
    // MPICH's pairwise alltoall exchanges with rank XOR k at powers of two, with rank + k
    // elsewhere.
    {alltoall, "pairwise_xor", kMpich, kPow2, 0, "MPIR_Alltoall_intra_pairwise"},
    {alltoall, "ring", kMpich, kOther, 0, "MPIR_Alltoall_intra_pairwise"},
    {barrier, "dissemination", kMpich, kAny, 0, "MPIR_Barrier_intra_k_dissemination"},
    {gatherv, "linear", kMpich, kAny, 0, "MPIR_Gatherv_allcomm_linear"},
    {scatterv, "linear", kMpich, kAny, 0, "MPIR_Scatterv_allcomm_linear"},
});

bool power_of_two(int p) { return p > 0 && (p & (p - 1)) == 0; }

bool holds(NodeCounts when, int p) {
  switch (when) {
    case NodeCounts::any: return true;
    case NodeCounts::power_of_two: return power_of_two(p);
    case NodeCounts::other: return !power_of_two(p);
  }
  return false;
}

}  // namespace

std::string to_string(MpiLibrary library) {
  return library == MpiLibrary::open_mpi ? "Open MPI" : "MPICH";
}

std::span<const LibraryEquivalent> library_equivalents() { return kEquivalents; }

const LibraryEquivalent* equivalent(MpiLibrary library, Operation op, std::string_view algorithm,
                                    int p) {
  for (const LibraryEquivalent& e : kEquivalents) {
    if (e.library == library && e.op == op && e.algorithm == algorithm && holds(e.when, p)) {
      return &e;
    }
  }
  return nullptr;
}

std::optional<OpenMpiCollective> open_mpi_collective(Operation op) {
  // COLLTYPE of coll_base_functions.h.
  switch (op) {
    case allgather: return OpenMpiCollective{0, "allgather"};
    case allgatherv: return OpenMpiCollective{1, "allgatherv"};
    case allreduce: return OpenMpiCollective{2, "allreduce"};
    case alltoall: return OpenMpiCollective{3, "alltoall"};
    case alltoallv: return OpenMpiCollective{4, "alltoallv"};
    case barrier: return OpenMpiCollective{6, "barrier"};
    case broadcast: return OpenMpiCollective{7, "bcast"};
    case exscan: return OpenMpiCollective{8, "exscan"};
    case gather: return OpenMpiCollective{9, "gather"};
    case reduce: return OpenMpiCollective{11, "reduce"};
    case reduce_scatter: return OpenMpiCollective{12, "reduce_scatter"};
    case scan: return OpenMpiCollective{14, "scan"};
    case scatter: return OpenMpiCollective{15, "scatter"};
    case gatherv:
    case scatterv: return std::nullopt;  // coll_tuned decides these without rules
  }
  return std::nullopt;
}

SizeKey open_mpi_size(Operation op, std::size_t n, std::size_t item_bytes, int p) {
  // coll_tuned_decision_dynamic.c of Open MPI 4.1: the type's size times the count for
  // allreduce, bcast and reduce; times the count and p for allgather, allgatherv, alltoall
  // and reduce_scatter (every rank's block); times p alone for gather, scatter, scan and
  // exscan (4.1 leaves the count out); 0 for barrier and alltoallv.
  const std::size_t ranks = static_cast<std::size_t>(p);
  switch (op) {
    case allreduce:
    case broadcast:
    case reduce: return {"msg_size", item_bytes * n, true};
    case allgather:
    case allgatherv:
    case alltoall:
    case reduce_scatter: return {"msg_size", item_bytes * n * ranks, true};
    case gather:
    case scatter:
    case scan:
    case exscan: return {"msg_size", item_bytes * ranks, false};
    case barrier:
    case alltoallv: return {"msg_size", 0, false};
    case gatherv:
    case scatterv: return {"", 0, false};
  }
  return {"", 0, false};
}

std::optional<std::string> mpich_collective(Operation op) {
  if (op == broadcast) return "bcast";
  if (op == alltoallv) return std::nullopt;  // no equivalent of any vmc alltoallv
  return vmc::to_string(op);
}

SizeKey mpich_size(Operation op, std::size_t n, std::size_t item_bytes, int p) {
  // csel.c: avg_msg_size is defined for allreduce, bcast, reduce (the count) and alltoall
  // (the count to one destination); total_msg_size for the gathers, scatters and
  // reduce_scatter (every rank's block); scan, exscan, barrier, gatherv and scatterv are
  // chosen without a size.
  const std::size_t ranks = static_cast<std::size_t>(p);
  switch (op) {
    case allreduce:
    case broadcast:
    case reduce:
    case alltoall: return {"avg_msg_size", item_bytes * n, true};
    case allgather:
    case allgatherv:
    case reduce_scatter:
    case gather:
    case scatter: return {"total_msg_size", item_bytes * n * ranks, true};
    default: return {"", 0, false};
  }
}

}  // namespace vmc::cli
