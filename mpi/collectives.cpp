// The collectives: vmc's, with the algorithm `auto` chooses.
#include <cstring>
#include <optional>
#include <string>
#include <vector>

#include "collectives/collectives.hpp"
#include "mpi/state.hpp"

using namespace vmc;
using namespace vmc::mpi;

namespace {

const char* op_name(MPI_Op op) {
  switch (op) {
    case MPI_MAX: return "max";
    case MPI_MIN: return "min";
    case MPI_SUM: return "sum";
    case MPI_PROD: return "prod";
    case MPI_LAND: return "land";
    case MPI_BAND: return "band";
    case MPI_LOR: return "lor";
    case MPI_BOR: return "bor";
    case MPI_LXOR: return "lxor";
    case MPI_BXOR: return "bxor";
    default: return nullptr;
  }
}

template <class T>
std::optional<Op> named_op(const char* name) {
  return ops::named<T>(name);
}

// The vmc op for (op, datatype), or an error: an unknown op, or one the type does not take
// (bitwise ops on floating point, any op on MPI_BYTE's... MPI allows bitwise ops on bytes).
Op op_or_fail(const char* fn, MPI_Op op, MPI_Datatype t) {
  const char* name = op_name(op);
  if (name == nullptr) fail(fn, MPI_ERR_OP, "invalid operation " + std::to_string(op));
  std::optional<Op> r;
  switch (t) {
    case MPI_CHAR: r = named_op<char>(name); break;
    case MPI_SIGNED_CHAR: case MPI_INT8_T: r = named_op<signed char>(name); break;
    case MPI_UNSIGNED_CHAR: case MPI_BYTE: case MPI_UINT8_T:
      r = named_op<unsigned char>(name); break;
    case MPI_SHORT: case MPI_INT16_T: r = named_op<short>(name); break;
    case MPI_UNSIGNED_SHORT: case MPI_UINT16_T: r = named_op<unsigned short>(name); break;
    case MPI_INT: case MPI_INT32_T: r = named_op<int>(name); break;
    case MPI_UNSIGNED: case MPI_UINT32_T: r = named_op<unsigned>(name); break;
    case MPI_LONG: r = named_op<long>(name); break;
    case MPI_UNSIGNED_LONG: r = named_op<unsigned long>(name); break;
    case MPI_LONG_LONG: case MPI_INT64_T: case MPI_AINT: case MPI_OFFSET: case MPI_COUNT:
      r = named_op<long long>(name); break;
    case MPI_UNSIGNED_LONG_LONG: case MPI_UINT64_T: r = named_op<unsigned long long>(name); break;
    case MPI_FLOAT: r = named_op<float>(name); break;
    case MPI_DOUBLE: r = named_op<double>(name); break;
    case MPI_LONG_DOUBLE: r = named_op<long double>(name); break;
    case MPI_C_BOOL: r = named_op<bool>(name); break;
    case MPI_WCHAR: r = named_op<wchar_t>(name); break;
    default: fail(fn, MPI_ERR_TYPE, "invalid datatype " + std::to_string(t));
  }
  if (!r) {
    fail(fn, MPI_ERR_OP, std::string("operation ") + name + " does not apply to " +
                             type_info(t)->name);
  }
  return *r;
}

}  // namespace

extern "C" {

int MPI_Barrier(MPI_Comm comm) {
  const char* fn = "MPI_Barrier";
  return mpi_call(comm, [&] {
    Node& n = rank_in_session(fn);
    barrier(comm_or_fail(fn, rank_state(n), comm).comm);
    return MPI_SUCCESS;
  });
}

int MPI_Bcast(void* buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm) {
  const char* fn = "MPI_Bcast";
  return mpi_call(comm, [&] {
    const auto [c, t] = data_call(fn, comm, count, datatype);
    check_buffer(fn, buffer, count);
    check_rank(fn, MPI_ERR_ROOT, "root", root, c);
    vmc::detail::broadcast_bytes(c, buffer, static_cast<std::size_t>(count), t.size, root, {});
    return MPI_SUCCESS;
  });
}

int MPI_Reduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
               int root, MPI_Comm comm) {
  const char* fn = "MPI_Reduce";
  return mpi_call(comm, [&] {
    const auto [c, t] = data_call(fn, comm, count, datatype);
    const Op vop = op_or_fail(fn, op, datatype);
    check_rank(fn, MPI_ERR_ROOT, "root", root, c);
    const bool at_root = c.rank() == root;
    if (sendbuf == MPI_IN_PLACE && !at_root) {
      fail(fn, MPI_ERR_BUFFER, "MPI_IN_PLACE is for the root only");
    }
    const std::size_t items = static_cast<std::size_t>(count);
    const std::size_t bytes = items * t.size;
    if (sendbuf != MPI_IN_PLACE) check_buffer(fn, sendbuf, count);
    if (at_root) check_buffer(fn, recvbuf, count);
    // vmc's reduce in place: every rank's contribution in one buffer, the result at the root.
    std::vector<unsigned char> scratch;
    void* work = recvbuf;
    if (!at_root) {
      scratch.assign(static_cast<const unsigned char*>(sendbuf),
                     static_cast<const unsigned char*>(sendbuf) + bytes);
      work = scratch.data();
    } else if (sendbuf != MPI_IN_PLACE && bytes > 0) {
      std::memmove(recvbuf, sendbuf, bytes);
    }
    vmc::detail::reduce_bytes(c, nullptr, 0, work, items, t.size, vop, root, {});
    return MPI_SUCCESS;
  });
}

int MPI_Allreduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype,
                  MPI_Op op, MPI_Comm comm) {
  const char* fn = "MPI_Allreduce";
  return mpi_call(comm, [&] {
    const auto [c, t] = data_call(fn, comm, count, datatype);
    const Op vop = op_or_fail(fn, op, datatype);
    const std::size_t items = static_cast<std::size_t>(count);
    check_buffer(fn, recvbuf, count);
    if (sendbuf != MPI_IN_PLACE) {
      check_buffer(fn, sendbuf, count);
      if (items > 0) std::memmove(recvbuf, sendbuf, items * t.size);
    }
    vmc::detail::allreduce_bytes(c, nullptr, 0, recvbuf, items, t.size, vop, {});
    return MPI_SUCCESS;
  });
}

}  // extern "C"
