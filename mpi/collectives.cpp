// The collectives: MPI_Barrier, _Bcast, _Gather(v), _Scatter(v), _Allgather(v), _Alltoall(v),
// _Reduce, _Allreduce, _Reduce_scatter, _Reduce_scatter_block, _Scan and _Exscan, each a call
// of vmc's collective of the same name; and the user operations (MPI_Op_create, _free,
// _commutative, MPI_Reduce_local).
//
// Datatypes: a predefined datatype is what vmc moves, one item per item. A derived one moves
// as units of its one basic type (a vector of 3 ints: 3 MPI_INT to an item) or, when its
// elements mix, as bytes; a buffer whose type does not lie in memory as it packs is packed
// before the call and unpacked after it (Packed; delta per element, as point to point), so the
// two sides may use different types of one signature. A predefined op combines a derived type
// of one basic type element by element; a user op combines whole items of the datatype the
// program passed, with its function called as MPI promises (user_op). vmc's algorithms
// combine a non-commutative op in rank order, and selection (`auto`) is given the op's
// commutativity, so it never picks an algorithm that needs a commutative one.
//
// Every call checks its arguments on its rank (errors through the communicator's handler),
// then compares its signature in MPI's words (operation, root, count, type, op) with the
// other members' through Comm::begin_collective, free in modelled time: a call whose
// arguments differ between ranks ends the run naming the ranks and the difference, whatever
// the error handler (the ranks that came first are already inside the collective). Then it
// runs vmc's collective with the algorithm the job names for the operation
// (JobOptions::algorithms, from `vmc mpirun --coll`), or `auto`: selection on the modelled
// machine, as `vmc run` does. So a collective's virtual time is the time of the same call
// through vmc's C++ API. The one exception is MPI_Gatherv and MPI_Scatterv: only the root
// knows every rank's count, so without a named algorithm they run vmc's `linear` row (each
// rank's block straight to or from the root, which needs no other count, as MPI libraries do);
// an algorithm named for them first broadcasts the root's counts (a message of p counts,
// charged as any) so that every rank can run it.
//
// While a rank is inside a collective, a vmc::CallContext names the call for a deadlock report:
// "MPI_Bcast(root 0, 4 x MPI_INT, MPI_COMM_WORLD)".
#include <algorithm>
#include <array>
#include <complex>
#include <deque>
#include <limits>
#include <concepts>
#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

#include "collectives/collectives.hpp"
#include "collectives/execution/run_row.hpp"
#include "collectives/registry.hpp"
#include "mpi/intercomm.hpp"
#include "mpi/nbc.hpp"
#include "mpi/nbc_steps.hpp"
#include "mpi/state.hpp"
#include "runtime/errors.hpp"

using namespace vmc;
using namespace vmc::mpi;

namespace {

// --- reduction operations ------------------------------------------------------------------

const char* op_name(MPI_Op op) {
  switch (op) {
    case MPI_MAX: return "MPI_MAX";
    case MPI_MIN: return "MPI_MIN";
    case MPI_SUM: return "MPI_SUM";
    case MPI_PROD: return "MPI_PROD";
    case MPI_LAND: return "MPI_LAND";
    case MPI_BAND: return "MPI_BAND";
    case MPI_LOR: return "MPI_LOR";
    case MPI_BOR: return "MPI_BOR";
    case MPI_LXOR: return "MPI_LXOR";
    case MPI_BXOR: return "MPI_BXOR";
    case MPI_MAXLOC: return "MPI_MAXLOC";
    case MPI_MINLOC: return "MPI_MINLOC";
    case MPI_REPLACE: return "MPI_REPLACE";
    case MPI_NO_OP: return "MPI_NO_OP";
    default: return nullptr;
  }
}

// The standard's table of which groups of types each predefined operation takes.
bool op_applies(MPI_Op op, TypeKind kind) {
  using K = TypeKind;
  const bool integer = kind == K::c_integer || kind == K::multi_language;
  const bool any_integer = integer || kind == K::fortran_integer;  // the logical ops: C's only
  switch (op) {
    case MPI_MAX:
    case MPI_MIN: return any_integer || kind == K::floating_point;
    case MPI_SUM:
    case MPI_PROD: return any_integer || kind == K::floating_point || kind == K::complex;
    // The standard's table (MPI-4.1 section 6.9.2) gives the logical operations C integers and
    // logicals only; MPICH and Open MPI also take the multi-language types (MPI_AINT,
    // MPI_OFFSET, MPI_COUNT), and programs use them so (MPICH's own allreduce tests): vmc
    // runs what both libraries run. MPICH also takes C's floating point (a value is true when
    // it is not zero; its oplxor test), as vmc does, as it takes MPI_CHAR.
    case MPI_LAND:
    case MPI_LOR:
    case MPI_LXOR: return integer || kind == K::logical || kind == K::floating_point;
    case MPI_BAND:
    case MPI_BOR:
    case MPI_BXOR: return any_integer || kind == K::byte;
    case MPI_MAXLOC:
    case MPI_MINLOC: return kind == K::pair;
    default: return false;
  }
}

const char* applies_to(MPI_Op op) {
  switch (op) {
    case MPI_MAX:
    case MPI_MIN: return "integers and floating point";
    case MPI_SUM:
    case MPI_PROD: return "integers, floating point and complex numbers";
    case MPI_LAND:
    case MPI_LOR:
    case MPI_LXOR: return "integers, logicals and floating point";
    case MPI_BAND:
    case MPI_BOR:
    case MPI_BXOR: return "integers and MPI_BYTE";
    case MPI_MAXLOC:
    case MPI_MINLOC: return "the value-and-index pairs (MPI_DOUBLE_INT, MPI_2INT, ...)";
    default: return "no collective (one-sided communication only)";
  }
}

// The vmc op of a predefined operation on items of type T (op_applies said it applies).
template <class T>
Op typed_op(MPI_Op op) {
  if constexpr (std::totally_ordered<T>) {
    if (op == MPI_MAX) return ops::max<T>();
    if (op == MPI_MIN) return ops::min<T>();
  }
  if constexpr (std::is_arithmetic_v<T>) {
    if (op == MPI_LAND) return ops::land<T>();
    if (op == MPI_LOR) return ops::lor<T>();
    if (op == MPI_LXOR) return ops::lxor<T>();
  }
  if constexpr (std::is_integral_v<T>) {
    if (op == MPI_BAND) return ops::band<T>();
    if (op == MPI_BOR) return ops::bor<T>();
    if (op == MPI_BXOR) return ops::bxor<T>();
  }
  if (op == MPI_PROD) return ops::prod<T>();
  return ops::sum<T>();
}

// A value-and-index pair as C lays it out (mpi/state.cpp's extents are its sizes); Fortran's
// pairs (MPI_2REAL, ...) hold the index in the value's type.
template <class V, class I>
struct Pair {
  V value;
  I index;
};

// MPI_MAXLOC and MPI_MINLOC: the larger (smaller) value, with the smaller index on a tie.
template <class V, class I = int>
Op loc_op(MPI_Op op) {
  const bool max = op == MPI_MAXLOC;
  using P = Pair<V, I>;
  return ops::custom<P>(max ? "maxloc" : "minloc", true, [max](P a, P b) {
    if (a.value == b.value) return P{a.value, std::min(a.index, b.index)};
    const bool a_wins = max ? b.value < a.value : a.value < b.value;
    return a_wins ? a : b;
  });
}

// The vmc op of a predefined operation on a predefined datatype, or nothing where vmc has no
// arithmetic for the type (op_applies said the operation applies).
std::optional<Op> arithmetic_op(MPI_Op op, MPI_Datatype datatype) {
  switch (datatype) {
    case MPI_CHAR: return typed_op<char>(op);
    case MPI_SIGNED_CHAR: case MPI_INT8_T: return typed_op<signed char>(op);
    case MPI_UNSIGNED_CHAR: case MPI_BYTE: case MPI_UINT8_T: return typed_op<unsigned char>(op);
    case MPI_SHORT: case MPI_INT16_T: return typed_op<short>(op);
    case MPI_UNSIGNED_SHORT: case MPI_UINT16_T: return typed_op<unsigned short>(op);
    case MPI_INT: case MPI_INT32_T: return typed_op<int>(op);
    case MPI_UNSIGNED: case MPI_UINT32_T: return typed_op<unsigned>(op);
    case MPI_LONG: return typed_op<long>(op);
    case MPI_UNSIGNED_LONG: return typed_op<unsigned long>(op);
    case MPI_LONG_LONG: case MPI_INT64_T: return typed_op<long long>(op);
    case MPI_UNSIGNED_LONG_LONG: case MPI_UINT64_T: return typed_op<unsigned long long>(op);
    case MPI_AINT: return typed_op<MPI_Aint>(op);
    case MPI_OFFSET: return typed_op<MPI_Offset>(op);
    case MPI_COUNT: return typed_op<MPI_Count>(op);
    case MPI_FLOAT: return typed_op<float>(op);
    case MPI_DOUBLE: return typed_op<double>(op);
    case MPI_LONG_DOUBLE: return typed_op<long double>(op);
    case MPI_C_BOOL: case MPI_CXX_BOOL: return typed_op<bool>(op);
    case MPI_C_FLOAT_COMPLEX: case MPI_CXX_FLOAT_COMPLEX:
      return typed_op<std::complex<float>>(op);
    case MPI_C_DOUBLE_COMPLEX: case MPI_CXX_DOUBLE_COMPLEX:
      return typed_op<std::complex<double>>(op);
    case MPI_C_LONG_DOUBLE_COMPLEX: case MPI_CXX_LONG_DOUBLE_COMPLEX:
      return typed_op<std::complex<long double>>(op);
    case MPI_FLOAT_INT: return loc_op<float>(op);
    case MPI_DOUBLE_INT: return loc_op<double>(op);
    case MPI_LONG_INT: return loc_op<long>(op);
    case MPI_2INT: return loc_op<int>(op);
    case MPI_SHORT_INT: return loc_op<short>(op);
    case MPI_LONG_DOUBLE_INT: return loc_op<long double>(op);
    // Fortran's types, as their C types on this machine (mpi/datatypes.hpp's sizes).
    case MPI_INTEGER1: return typed_op<std::int8_t>(op);
    case MPI_INTEGER2: return typed_op<std::int16_t>(op);
    case MPI_INTEGER: case MPI_INTEGER4: case MPI_LOGICAL: return typed_op<std::int32_t>(op);
    case MPI_INTEGER8: return typed_op<std::int64_t>(op);
    case MPI_REAL: case MPI_REAL4: return typed_op<float>(op);
    case MPI_DOUBLE_PRECISION: case MPI_REAL8: return typed_op<double>(op);
    case MPI_COMPLEX: case MPI_COMPLEX8: return typed_op<std::complex<float>>(op);
    case MPI_DOUBLE_COMPLEX: case MPI_COMPLEX16: return typed_op<std::complex<double>>(op);
    case MPI_2INTEGER: return loc_op<std::int32_t, std::int32_t>(op);
    case MPI_2REAL: return loc_op<float, float>(op);
    case MPI_2DOUBLE_PRECISION: return loc_op<double, double>(op);
    default:
      // MPI_INTEGER16, MPI_REAL2, MPI_REAL16, MPI_COMPLEX4 and MPI_COMPLEX32 move, but C has
      // no standard type of their sizes to compute with.
      return std::nullopt;
  }
}

// Every predefined operation's vmc op on every predefined datatype it applies to, made once
// per process: a call takes its op from here instead of making one (a name and a function).
// Read only once made, by every rank's thread.
class PredefinedOps {
 public:
  PredefinedOps() {
    for (MPI_Op op = MPI_MAX; op < kOps; ++op) {
      for (MPI_Datatype t = MPI_DATATYPE_NULL + 1; t < VMC_MPI_PREDEFINED_TYPES; ++t) {
        const std::optional<TypeInfo> info = type_info(t);
        if (info && op_applies(op, info->kind)) ops_[index(op, t)] = arithmetic_op(op, t);
      }
    }
  }
  // The op, or null: not a predefined operation or datatype, or no arithmetic for it.
  const Op* find(MPI_Op op, MPI_Datatype datatype) const {
    if (op <= MPI_OP_NULL || op >= kOps || datatype <= MPI_DATATYPE_NULL ||
        datatype >= VMC_MPI_PREDEFINED_TYPES) {
      return nullptr;
    }
    const std::optional<Op>& found = ops_[index(op, datatype)];
    return found ? &*found : nullptr;
  }

 private:
  static constexpr MPI_Op kOps = MPI_NO_OP + 1;
  static std::size_t index(MPI_Op op, MPI_Datatype datatype) {
    return static_cast<std::size_t>(op) * VMC_MPI_PREDEFINED_TYPES +
           static_cast<std::size_t>(datatype);
  }
  std::vector<std::optional<Op>> ops_ =
      std::vector<std::optional<Op>>(static_cast<std::size_t>(kOps) * VMC_MPI_PREDEFINED_TYPES);
};

const PredefinedOps& predefined_ops() {
  static const PredefinedOps table;
  return table;
}

// The vmc op of `op` on `datatype` (t its row), or an error: an unknown operation, or one the
// standard does not define on the type.
const Op& op_or_fail(const char* fn, MPI_Op op, MPI_Datatype datatype, const TypeInfo& t) {
  const char* name = op_name(op);
  if (name == nullptr) {
    fail(fn, MPI_ERR_OP,
         op == MPI_OP_NULL ? std::string("MPI_OP_NULL is not an operation")
                           : "invalid operation " + std::to_string(op) +
                                 " (vmc knows the predefined operations only)");
  }
  if (!op_applies(op, t.kind)) {
    fail(fn, MPI_ERR_OP,
         std::string(name) + " does not apply to " + t.name + " (it takes " + applies_to(op) +
             ")");
  }
  const Op* found = predefined_ops().find(op, datatype);
  if (found == nullptr) {
    fail(fn, MPI_ERR_OP,
         std::string(name) + " does not apply to " + t.name + " (vmc has no arithmetic for it)");
  }
  return *found;
}

// --- the call ------------------------------------------------------------------------------

// What the members compare: the call in MPI's words.
CallSignature signature(const Collective& c, int root, std::size_t count, const TypeInfo& t,
                        const char* op = nullptr) {
  CallSignature sig;
  sig.operation = c.fn;
  if (op != nullptr) sig.op = op;
  sig.root = root;
  sig.count = count;
  sig.item_size = t.size;
  sig.type = t.name;
  return sig;
}

// The same for a call whose counts differ between ranks: `counts`, when every rank has them
// all, must agree.
CallSignature v_signature(const Collective& c, int root, const TypeInfo& t,
                          const std::vector<std::size_t>* counts, const char* op = nullptr) {
  CallSignature sig = signature(c, root, 0, t, op);
  sig.check_count = false;
  if (counts != nullptr) sig.layout = hash_integers(std::span<const std::size_t>(*counts));
  return sig;
}

// "4 x MPI_INT"
std::string items_text(std::size_t n, const TypeInfo& t) {
  return std::to_string(n) + " x " + t.name;
}

// Runs the call: its context on the node, its signature compared with the other members', then
// `run` (vmc's collective; given the call's key, SharedKey, when it takes one). A vmc
// UsageError (the members' calls differ; an algorithm named that does not apply) ends the run
// as an MPI report. `args`: the call's arguments as the
// context names them, a text or a function that makes it; the context's text is made only
// if a deadlock report asks for it (a small call builds no text).
template <class Args, class Run>
void run_collective(const Collective& c, const CallSignature& sig, const Args& args,
                    Run&& run) {
  struct Described {
    const Collective* c;
    const Args* args;
  };
  const Described described{&c, &args};
  const CallContext context(
      [](const void* arg) {
        const Described& d = *static_cast<const Described*>(arg);
        std::string text;
        if constexpr (std::is_invocable_v<const Args&>) {
          text = (*d.args)();
        } else {
          text = *d.args;
        }
        return std::string(d.c->fn) + "(" + text + (text.empty() ? "" : ", ") +
               comm_label(d.c->state, d.c->handle) + ")";
      },
      &described);
  Tag tag = 0;
  try {
    tag = c.comm.begin_collective(sig);
  } catch (const CallsDifferError& e) {
    calls_differ_failure(e, comm_label(c.state, c.handle), c.handle == MPI_COMM_WORLD);
  } catch (const UsageError& e) {
    throw FatalError(error_report(
        c.fn, MPI_ERR_ARG,
        calls_differ(without_who(e.what(), c.fn), comm_label(c.state, c.handle),
                     c.handle == MPI_COMM_WORLD)));
  }
  try {
    if constexpr (std::is_invocable_v<Run, SharedKey>) {
      run(SharedKey{c.comm.id(), tag});
    } else {
      run();
    }
  } catch (const NodeFailedError& e) {
    // A rank the collective needed has failed (vmc mpirun --fail): the error handler decides.
    fail(c.fn, MPI_ERR_PROC_FAILED, without_who(e.what(), ""));
  } catch (const LinkFailedError& e) {
    // A message the collective needed was lost on a failed link (--fail link:...).
    fail(c.fn, MPI_ERR_OTHER, without_who(e.what(), ""));
  } catch (const CallsDifferError& e) {
    // vmc's own call under this one differs between ranks (its counts, its algorithm).
    calls_differ_failure(e, comm_label(c.state, c.handle), c.handle == MPI_COMM_WORLD);
  } catch (const UsageError& e) {
    throw FatalError(error_report(c.fn, MPI_ERR_OTHER, without_who(e.what(), "")));
  }
}

// --- argument checks -----------------------------------------------------------------------

// The block a rank sends and the block it receives (sendcount x sendtype, recvcount x
// recvtype) must hold the same items: vmc moves items of one size per call.
void check_same_block(const char* fn, MPI_Count sendcount, const TypeInfo& st, MPI_Count recvcount,
                      const TypeInfo& rt, const char* where) {
  if (st.size != rt.size) {
    fail(fn, MPI_ERR_TYPE,
         std::string("sendtype ") + st.name + " and recvtype " + rt.name + " differ in size (" +
             std::to_string(st.size) + " and " + std::to_string(rt.size) + " bytes)");
  }
  if (sendcount != recvcount) {
    fail(fn, MPI_ERR_COUNT,
         std::string(where) + "sendcount " + std::to_string(sendcount) + " and recvcount " +
             std::to_string(recvcount) + " differ (a block is sent as it is received)");
  }
}

// --- derived datatypes: what vmc moves -------------------------------------------------------

// A buffer argument's datatype as vmc's collective moves it: `unit`, a predefined type (the
// datatype's one basic type, or MPI_BYTE when its elements mix), `per` of them to an item.
// A predefined datatype is its own unit, one to an item, so its call is vmc's as before.
struct Moved {
  const Typemap* map = nullptr;
  TypeInfo unit{};
  std::size_t per = 1;
  MPI_Datatype basic = MPI_DATATYPE_NULL;  // the unit's handle
  bool derived = false;

  std::size_t units(std::size_t items) const { return items * per; }
};

// Each predefined datatype that holds data as vmc moves it (null for the others), made once per
// process rather than looked up in two tables on every call.
const Moved* predefined_moved(MPI_Datatype datatype) {
  static const std::array<std::optional<Moved>, VMC_MPI_PREDEFINED_TYPES> table = [] {
    std::array<std::optional<Moved>, VMC_MPI_PREDEFINED_TYPES> out;
    for (MPI_Datatype t = MPI_DATATYPE_NULL + 1; t < VMC_MPI_PREDEFINED_TYPES; ++t) {
      if (const std::optional<TypeInfo> info = type_info(t)) {
        out[static_cast<std::size_t>(t)] = Moved{&predefined_typemap(t), *info, 1, t, false};
      }
    }
    return out;
  }();
  if (datatype <= MPI_DATATYPE_NULL || datatype >= VMC_MPI_PREDEFINED_TYPES) return nullptr;
  const std::optional<Moved>& m = table[static_cast<std::size_t>(datatype)];
  return m ? &*m : nullptr;
}

Moved moved_type(const Collective& c, MPI_Datatype datatype) {
  if (datatype < VMC_MPI_FIRST_DERIVED_TYPE) {
    if (const Moved* m = predefined_moved(datatype)) return *m;
    const TypeInfo t = type_or_fail(c.fn, datatype);  // fails, saying why
    return {&predefined_typemap(datatype), t, 1, datatype, false};
  }
  const Typemap& map = moved_typemap(c.fn, c.state, datatype);
  if (map.basic != MPI_DATATYPE_NULL) {
    if (auto t = type_info(map.basic)) return {&map, *t, map.elements, map.basic, true};
  }
  return {&map, *type_info(MPI_BYTE), map.packed, MPI_BYTE, true};
}

// A count and a datatype, checked (MPI_ERR_COUNT too when the buffer, `blocks` blocks of
// `count` items back to back, spans more bytes than an MPI_Aint holds).
Moved counted(const Collective& c, MPI_Count count, MPI_Datatype datatype,
              std::size_t blocks = 1) {
  check_count(c.fn, count);
  Moved m = moved_type(c, datatype);
  check_span(c.fn, blocks_span(count, blocks), *m.map, c.state, datatype);
  return m;
}

// The buffer of a v form (block i: counts[i] items from item at[i]), checked as counted
// checks one of blocks back to back.
void check_blocks_span(const Collective& c, const std::vector<std::size_t>& counts,
                       const std::vector<std::size_t>& at, const Moved& m,
                       MPI_Datatype datatype) {
  check_span(c.fn, count_of_items(end_of(blocks_of(counts, at))), *m.map, c.state, datatype);
}

// The bytes `items` items take from their buffer's start, for the overlap check: a datatype
// that lies as it packs only (a derived one with holes is not checked).
std::size_t span_of(const Moved& m, std::size_t items) {
  return m.map->contiguous ? m.units(items) * m.unit.size : 0;
}

// The block a rank sends and the block it receives must have one signature: vmc moves them
// as the same units.
void check_same_signature(const char* fn, MPI_Count sendcount, const Moved& st, MPI_Count recvcount,
                          const Moved& rt, const char* where) {
  if (!st.derived && !rt.derived) {
    check_same_block(fn, sendcount, st.unit, recvcount, rt.unit, where);
    return;
  }
  const std::size_t sent = st.units(static_cast<std::size_t>(sendcount));
  const std::size_t taken = rt.units(static_cast<std::size_t>(recvcount));
  auto text = [&] {
    return std::string(where) + "the send signature " + std::to_string(sendcount) + " x (" +
           signature_text(*st.map) + ") and the receive signature " + std::to_string(recvcount) +
           " x (" + signature_text(*rt.map) + ")";
  };
  if (std::strcmp(st.unit.name, rt.unit.name) != 0 && sent > 0 && taken > 0) {
    fail(fn, MPI_ERR_TYPE, text() + " differ in their basic types");
  }
  if (sent > taken) fail(fn, MPI_ERR_TRUNCATE, text() + ": the message is longer");
  if (sent < taken) fail(fn, MPI_ERR_COUNT, text() + ": the message is shorter");
}

// The layout of a buffer argument: `items` items back to back, or blocks of counts[i] items
// at displacements displs[i] (in items) with room for `items`.
struct Layout {
  std::size_t items = 0;
  const std::vector<std::size_t>* counts = nullptr;
  const std::vector<std::size_t>* displs = nullptr;
};

// A buffer argument as vmc moves it: the program's own when its datatype lies in memory as
// it packs, else a packed copy, made before the call from what it holds (charged delta per
// element when it is data the rank sends) and unpacked after it into the program's buffer
// (charged delta per element).
class Packed {
 public:
  Packed(const Comm& comm, const Moved& m, Layout layout)
      : comm_(comm), map_(*m.map), layout_(layout) {}

  // What vmc reads.
  const void* read(const void* buf) { return stage(const_cast<void*>(buf), true); }
  // What vmc writes; `sends` when it reads it first (in place).
  void* write(void* buf, bool sends) { return stage(buf, sends); }
  // After the call: the packed copy into the program's buffer.
  void finish(void* buf) {
    if (data_.empty() || buf == nullptr) return;
    each_block([&](std::size_t at, std::size_t n) {
      unpack(map_, data_.data() + at * map_.packed, n * map_.packed,
             static_cast<unsigned char*>(buf) + static_cast<MPI_Aint>(at) * map_.extent());
    });
    comm_.charge_rearrange(elements());
  }

 private:
  void* stage(void* buf, bool charge) {
    if (map_.contiguous || buf == nullptr || buf == MPI_IN_PLACE || layout_.items == 0) {
      return buf;
    }
    data_.assign(layout_.items * map_.packed, 0);
    each_block([&](std::size_t at, std::size_t n) {
      pack(map_, static_cast<const unsigned char*>(buf) + static_cast<MPI_Aint>(at) * map_.extent(),
           n, data_.data() + at * map_.packed);
    });
    if (charge) comm_.charge_rearrange(elements());
    return data_.data();
  }
  template <class F>
  void each_block(F&& f) const {
    if (layout_.counts == nullptr) {
      f(0, layout_.items);
      return;
    }
    for (std::size_t i = 0; i < layout_.counts->size(); ++i) {
      if ((*layout_.counts)[i] > 0) f((*layout_.displs)[i], (*layout_.counts)[i]);
    }
  }
  std::size_t elements() const {
    std::size_t n = 0;
    each_block([&](std::size_t, std::size_t k) { n += k; });
    return n * map_.elements;
  }

  const Comm& comm_;
  const Typemap& map_;
  Layout layout_;
  std::vector<unsigned char> data_;
};

// What a reduce-scatter combines: the send buffer (packed), or in place the receive buffer's
// p blocks, which vmc reads from `copy` (`bytes` of them; a local copy, not modelled: an MPI
// library's in-place call keeps them in place).
const void* contributions(Packed& send, const void* sendbuf, void* recvbuf, std::size_t bytes,
                          std::vector<unsigned char>& copy) {
  if (sendbuf != MPI_IN_PLACE) return send.read(sendbuf);
  const auto* all = static_cast<const unsigned char*>(send.read(recvbuf));
  copy.assign(all, all + bytes);
  return copy.data();
}

// Counts or displacements in items of a datatype, in its units.
std::vector<std::size_t> in_units(const std::vector<std::size_t>& v, const Moved& m) {
  std::vector<std::size_t> out(v.size());
  for (std::size_t i = 0; i < v.size(); ++i) out[i] = m.units(v[i]);
  return out;
}

// --- reductions on derived datatypes and user operations ----------------------------------

// A user's operation on whole items of `datatype` (map): MPI's call of the function,
// user_fn(invec, inoutvec, &len, &datatype), with invec the operand of the lower ranks and
// the items as the datatype lays them out (unpacked from vmc's packed items and packed back
// when it does not lie as it packs).
// The user's function on `n` items laid out `stride` bytes apart from `in` and `inout`. A
// function of MPI_Op_create takes an int length: more items than an int holds go in calls of
// at most INT_MAX items each (an op combines item by item, so the split changes no result).
void call_user_fn(MPI_User_function* fn, MPI_User_function_c* fn_c, void* in, void* inout,
                  std::size_t n, MPI_Aint stride, MPI_Datatype datatype) {
  MPI_Datatype dt = datatype;
  if (fn_c != nullptr) {
    MPI_Count len = static_cast<MPI_Count>(n);
    fn_c(in, inout, &len, &dt);
    return;
  }
  constexpr auto most = static_cast<std::size_t>(std::numeric_limits<int>::max());
  auto* a = static_cast<unsigned char*>(in);
  auto* b = static_cast<unsigned char*>(inout);
  while (n > 0) {
    const std::size_t k = std::min(n, most);
    int len = static_cast<int>(k);
    fn(a, b, &len, &dt);
    a += static_cast<MPI_Aint>(k) * stride;
    b += static_cast<MPI_Aint>(k) * stride;
    n -= k;
  }
}

Op user_op(const UserOpEntry& u, MPI_Datatype datatype, const Typemap& map) {
  const std::size_t item = map.packed;
  auto call = [fn = u.fn, fn_c = u.fn_c, datatype](void* in, void* inout, std::size_t n,
                                                    MPI_Aint stride) {
    call_user_fn(fn, fn_c, in, inout, n, stride, datatype);
  };
  const Typemap* m = &map;
  return Op("MPI_Op_create's op", u.commutative, item,
            [call, m, item](const void* a, const void* b, void* out, std::size_t n) {
              if (n == 0) return;
              if (m->contiguous) {
                std::vector<unsigned char> tmp;
                void* inout = out;
                if (out == a) {
                  tmp.assign(static_cast<const unsigned char*>(b),
                             static_cast<const unsigned char*>(b) + n * item);
                  inout = tmp.data();
                } else if (out != b) {
                  std::memcpy(out, b, n * item);
                }
                call(const_cast<void*>(a), inout, n, static_cast<MPI_Aint>(item));
                if (inout != out) std::memcpy(out, inout, n * item);
                return;
              }
              // The items as the datatype lays them out, item k at base + k * extent.
              const auto span = static_cast<std::size_t>(
                  static_cast<MPI_Aint>(n - 1) * m->extent() + m->true_extent());
              std::vector<unsigned char> x(span), y(span);
              unsigned char* xb = x.data() - m->true_lb;
              unsigned char* yb = y.data() - m->true_lb;
              unpack(*m, static_cast<const unsigned char*>(a), n * item, xb);
              unpack(*m, static_cast<const unsigned char*>(b), n * item, yb);
              call(xb, yb, n, m->extent());
              pack(*m, yb, n, static_cast<unsigned char*>(out));
            });
}

const UserOpEntry* user_op_entry(const char* fn, const RankState& s, MPI_Op op) {
  if (op < VMC_MPI_FIRST_USER_OP) return nullptr;
  const auto i = static_cast<std::size_t>(op - VMC_MPI_FIRST_USER_OP);
  if (i >= s.ops.size()) {
    fail(fn, MPI_ERR_OP, "invalid operation " + std::to_string(op) +
                             " (neither predefined nor made by MPI_Op_create on this rank)");
  }
  if (s.ops[i].freed) fail(fn, MPI_ERR_OP, "operation " + std::to_string(op) + " was freed");
  return &s.ops[i];
}

// A reduction's datatype and op: a predefined op element by element on the datatype's one
// basic type (MPI_ERR_OP when its elements mix), or a user's op on whole items.
// A user's op on a derived datatype runs on a comm weighted by the type's units to an item
// (Comm::weighted), so that beta, gamma and delta are charged per element, as a predefined
// op on the same type is, while vmc's algorithm splits the buffers only between whole items.
struct Reduction {
  Moved m;
  const Op* predefined = nullptr;  // a predefined op: predefined_ops()'s
  std::optional<Op> user;          // else the user's, made for the call
  const char* label;
  std::optional<Comm> weighted;

  const Op& op() const { return user ? *user : *predefined; }
  // The comm vmc's collective runs on.
  const Comm& on(const Comm& comm) const { return weighted ? *weighted : comm; }
};

Reduction reduction(const Collective& c, MPI_Datatype datatype, MPI_Op op) {
  if (const UserOpEntry* u = user_op_entry(c.fn, c.state, op)) {
    const Typemap& map = moved_typemap(c.fn, c.state, datatype);
    const char* name = datatype < VMC_MPI_FIRST_DERIVED_TYPE
                           ? predefined_type(datatype)->name
                           : "a derived datatype";
    Moved m{&map, TypeInfo{name, map.packed, map.size, TypeKind::none}, 1, datatype,
            !map.contiguous};
    std::optional<Comm> weighted;
    if (datatype >= VMC_MPI_FIRST_DERIVED_TYPE) {
      // Its units to an item, as a predefined op on it would move it (elements of its one
      // basic type, or bytes when they mix).
      const std::size_t per = moved_type(c, datatype).per;
      if (per > 1) weighted = c.comm.weighted(per);
    }
    return {m, nullptr, user_op(*u, datatype, map), u->name.c_str(), std::move(weighted)};
  }
  Moved m = moved_type(c, datatype);
  if (m.derived && m.map->basic != m.basic) {
    fail(c.fn, MPI_ERR_OP,
         std::string(op_name(op) != nullptr ? op_name(op) : "the operation") +
             " combines element by element a datatype of one basic type (or of pairs); " +
             type_label(c.state, datatype) + "'s elements are " + signature_text(*m.map));
  }
  return {m, &op_or_fail(c.fn, op, m.basic, m.unit), std::nullopt, op_name(op)};
}

// The items a buffer laid out by counts and displacements spans (vmc holds an empty block's
// displacement to it too).
std::size_t extent_of(const std::vector<std::size_t>& counts,
                      const std::vector<std::size_t>& displs) {
  std::size_t end = 0;
  for (std::size_t i = 0; i < counts.size(); ++i) end = std::max(end, displs[i] + counts[i]);
  return end;
}

bool overlap(const void* a, std::size_t a_bytes, const void* b, std::size_t b_bytes) {
  if (a_bytes == 0 || b_bytes == 0 || a == nullptr || b == nullptr) return false;
  const auto x = reinterpret_cast<std::uintptr_t>(a), y = reinterpret_cast<std::uintptr_t>(b);
  return x < y + b_bytes && y < x + a_bytes;
}

void check_no_overlap(const char* fn, const void* send, std::size_t send_bytes, const void* recv,
                      std::size_t recv_bytes) {
  if (overlap(send, send_bytes, recv, recv_bytes)) {
    fail(fn, MPI_ERR_BUFFER,
         "the send and receive buffers overlap (pass MPI_IN_PLACE as the send buffer instead)");
  }
}

// vmc reads a null send buffer of no items as "in place": a send of no items gets an address.
const void* send_address(const void* buf) {
  static const unsigned char nothing = 0;
  return buf != nullptr ? buf : &nothing;
}

std::size_t size_of(MPI_Count count) { return static_cast<std::size_t>(count); }

// --- the operations that combine item by item: allreduce, scan, exscan --------------------

using ItemwiseFn = void (*)(const Comm&, const void*, std::size_t, void*, std::size_t,
                            std::size_t, const Op&, const Options&);

int itemwise(const char* fn, Operation operation, ItemwiseFn call, const void* sendbuf,
             void* recvbuf, MPI_Count count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm) {
  return mpi_call(comm, [&] {
    const Collective c = open_collective(fn, comm);
    check_count(fn, count);
    const Reduction r = reduction(c, datatype, op);
    check_span(fn, count, *r.m.map, c.state, datatype);
    const TypeInfo& t = r.m.unit;
    check_not_in_place(fn, recvbuf, "the receive buffer");
    const bool in_place = sendbuf == MPI_IN_PLACE;
    const std::size_t items = size_of(count), n = r.m.units(items);
    check_buffer(fn, recvbuf, count);
    if (!in_place) {
      check_buffer(fn, sendbuf, count);
      check_no_overlap(fn, sendbuf, span_of(r.m, items), recvbuf, span_of(r.m, items));
    }
    run_collective(c, signature(c, -1, n, t, r.label),
                   [&] { return items_text(n, t) + ", " + r.label; }, [&] {
                     Packed send(c.comm, r.m, {items}), recv(c.comm, r.m, {items});
                     const void* in = in_place ? nullptr : send_address(send.read(sendbuf));
                     void* out = recv.write(recvbuf, in_place);
                     call(r.on(c.comm), in, n, out, n, t.size, r.op(), operation_options(operation));
                     recv.finish(recvbuf);
                   });
    return MPI_SUCCESS;
  });
}

// --- gatherv and scatterv: the counts are the root's ---------------------------------------

// Whether the job names an algorithm of `operation` other than `linear` (which needs the
// counts on every rank).
bool named_beyond_linear(const Options& options) {
  return options.algorithm != "auto" && options.algorithm != "linear";
}

// vmc's `linear` row of gatherv or scatterv on this rank's knowledge: the root's counts and
// displacements, another rank's own count alone (the row reads no other there).
void run_linear_v(Operation operation, const Comm& comm, const void* send, void* recv,
                  std::size_t item_size, int root, const std::vector<std::size_t>& counts,
                  const std::vector<std::size_t>& displs) {
  const Algorithm* row = find_algorithm(operation, "linear");
  Options options;
  options.algorithm = "linear";
  Call call = make_call(comm, send, recv, counts[static_cast<std::size_t>(comm.rank())],
                        item_size, root, options);
  if (operation == Operation::gatherv) {
    call.recv_counts = counts;
    call.recv_displs = displs;
  } else {
    call.send_counts = counts;
    call.send_displs = displs;
  }
  run_row(operation, *row, call,
          make_signature(traits(operation).name, nullptr, root, 0, item_size, false));
}

// The root's counts on every rank: a broadcast of p counts from the root (a modelled
// message). `counts` holds them at the root. A timing-only run's broadcast carries nothing:
// the counts go through the job (share_values), the broadcast charged all the same.
std::vector<std::size_t> counts_from_root(const Comm& comm, std::vector<std::size_t> counts,
                                          int root, SharedKey key) {
  counts.resize(static_cast<std::size_t>(comm.size()));
  const bool moves_data = comm.moves_data();
  if (!moves_data && comm.rank() == root) share_values(key, counts, comm.size() - 1);
  vmc::broadcast(comm, std::span<std::size_t>(counts), root,
                 operation_options(Operation::broadcast));
  if (!moves_data && comm.rank() != root) return take_shared_values(key);
  return counts;
}

// --- the calls, one body for the int form and the large-count (_c) form ------------------

// An intercommunicator's collectives (mpi/intercomm.cpp) are built on the int forms of the
// calls: a large-count call's counts and displacements there must fit an int (MPI_ERR_COUNT
// names the one that does not).
class Narrow {
 public:
  Narrow(const char* fn, MPI_Comm comm) : fn_(fn), comm_(comm) {}
  int operator()(MPI_Count v) const { return to_int(v, "a count"); }
  // An array of one value per member of the local group, or of the remote group; none when
  // the rank does not `read` it (the root's arguments elsewhere).
  const int* local(CountArray v) { return array(v, false, true); }
  const int* remote(CountArray v, bool read = true) { return array(v, true, read); }

 private:
  int to_int(MPI_Count v, const std::string& what) const {
    if (v > std::numeric_limits<int>::max() || v < std::numeric_limits<int>::min()) {
      fail(fn_, MPI_ERR_COUNT,
           what + " of " + std::to_string(v) +
               " does not fit an int, which vmc's collectives on an intercommunicator take");
    }
    return static_cast<int>(v);
  }
  const int* array(CountArray v, bool remote, bool read) {
    if (!read || v.data() == nullptr) return nullptr;
    int n = 0;
    if (remote) {
      MPI_Comm_remote_size(comm_, &n);
    } else {
      MPI_Comm_size(comm_, &n);
    }
    std::vector<int>& out = kept_.emplace_back(static_cast<std::size_t>(n));
    for (std::size_t i = 0; i < out.size(); ++i) {
      out[i] = to_int(v[i], "element " + std::to_string(i) + " of an array");
    }
    return out.data();
  }

  const char* fn_;
  MPI_Comm comm_;
  std::deque<std::vector<int>> kept_;
};

// A large-count collective on an intercommunicator: `call` given its Narrow.
template <class Call>
int on_inter(const char* fn, MPI_Comm comm, Call&& call) {
  return mpi_call(comm, [&] {
    Narrow narrow(fn, comm);
    return call(narrow);
  });
}

int bcast_call(const char* fn, void* buffer, MPI_Count count, MPI_Datatype datatype, int root,
               MPI_Comm comm) {
  return mpi_call(comm, [&] {
    const Collective c = open_collective(fn, comm);
    const Moved m = counted(c, count, datatype);
    const TypeInfo& t = m.unit;
    check_root(c, root);
    check_not_in_place(fn, buffer, "MPI_Bcast's buffer");
    check_buffer(fn, buffer, count);
    const std::size_t items = size_of(count), n = m.units(items);
    run_collective(c, signature(c, root, n, t),
                   "root " + std::to_string(root) + ", " + items_text(n, t), [&] {
                     Packed b(c.comm, m, {items});
                     void* data = b.write(buffer, c.rank() == root);
                     vmc::detail::broadcast_bytes(c.comm, data, n, t.size, root,
                                                  operation_options(Operation::broadcast));
                     if (c.rank() != root) b.finish(buffer);
                   });
    return MPI_SUCCESS;
  });
}

int reduce_call(const char* fn, const void* sendbuf, void* recvbuf, MPI_Count count,
                MPI_Datatype datatype, MPI_Op op, int root, MPI_Comm comm) {
  return mpi_call(comm, [&] {
    const Collective c = open_collective(fn, comm);
    check_count(fn, count);
    const Reduction r = reduction(c, datatype, op);
    check_span(fn, count, *r.m.map, c.state, datatype);
    const TypeInfo& t = r.m.unit;
    check_root(c, root);
    const bool at_root = c.rank() == root;
    const bool in_place = sendbuf == MPI_IN_PLACE;
    if (in_place && !at_root) {
      fail(fn, MPI_ERR_BUFFER, "MPI_IN_PLACE is the root's send buffer only");
    }
    const std::size_t items = size_of(count), n = r.m.units(items);
    if (!in_place) check_buffer(fn, sendbuf, count);
    if (at_root) {
      check_not_in_place(fn, recvbuf, "the receive buffer");
      check_buffer(fn, recvbuf, count);
      if (!in_place) {
        check_no_overlap(fn, sendbuf, span_of(r.m, items), recvbuf, span_of(r.m, items));
      }
    }
    run_collective(c, signature(c, root, n, t, r.label),
                   "root " + std::to_string(root) + ", " + items_text(n, t) + ", " + r.label,
                   [&] {
                     Packed send(c.comm, r.m, {items}), recv(c.comm, r.m, {items});
                     const void* in = in_place ? nullptr : send_address(send.read(sendbuf));
                     void* out = at_root ? recv.write(recvbuf, in_place) : nullptr;
                     vmc::detail::reduce_bytes(r.on(c.comm), in, in_place ? 0 : n, out,
                                               at_root ? n : 0, t.size, r.op(), root,
                                               operation_options(Operation::reduce));
                     if (at_root) recv.finish(recvbuf);
                   });
    return MPI_SUCCESS;
  });
}

int reduce_scatter_block_call(const char* fn, const void* sendbuf, void* recvbuf,
                              MPI_Count recvcount, MPI_Datatype datatype, MPI_Op op,
                              MPI_Comm comm) {
  return mpi_call(comm, [&] {
    const Collective c = open_collective(fn, comm);
    check_count(fn, recvcount);
    const Reduction r = reduction(c, datatype, op);
    const TypeInfo& t = r.m.unit;
    check_span(fn, blocks_span(recvcount, c.p()), *r.m.map, c.state, datatype);
    check_not_in_place(fn, recvbuf, "the receive buffer");
    const bool in_place = sendbuf == MPI_IN_PLACE;
    const std::size_t items = size_of(recvcount), n = r.m.units(items), total = n * c.p();
    check_buffer(fn, recvbuf, recvcount);
    if (!in_place) {
      check_buffer(fn, sendbuf, recvcount);
      check_no_overlap(fn, sendbuf, span_of(r.m, items * c.p()), recvbuf, span_of(r.m, items));
    }
    run_collective(c, signature(c, -1, n, t, r.label), items_text(n, t) + ", " + r.label, [&] {
      Packed send(c.comm, r.m, {items * c.p()}), recv(c.comm, r.m, {items});
      std::vector<unsigned char> copy;
      const void* in = contributions(send, sendbuf, recvbuf, total * t.size, copy);
      void* out = recv.write(recvbuf, false);
      vmc::detail::reduce_scatter_bytes(r.on(c.comm), send_address(in), total, out, n, t.size,
                                        {}, r.op(), operation_options(Operation::reduce_scatter));
      recv.finish(recvbuf);
    });
    return MPI_SUCCESS;
  });
}

int reduce_scatter_call(const char* fn, const void* sendbuf, void* recvbuf, CountArray recvcounts,
                        MPI_Datatype datatype, MPI_Op op, MPI_Comm comm) {
  return mpi_call(comm, [&] {
    const Collective c = open_collective(fn, comm);
    const Reduction r = reduction(c, datatype, op);
    const TypeInfo& t = r.m.unit;
    const std::vector<std::size_t> counts_items =
        counts_of(fn, recvcounts, c.p(), "recvcounts", MPI_ERR_COUNT);
    check_span(fn, items_total(counts_items), *r.m.map, c.state, datatype);
    const std::vector<std::size_t> counts = in_units(counts_items, r.m);
    check_not_in_place(fn, recvbuf, "the receive buffer");
    const bool in_place = sendbuf == MPI_IN_PLACE;
    std::size_t total_items = 0;
    for (std::size_t k : counts_items) total_items += k;
    const std::size_t total = r.m.units(total_items);
    const std::size_t mine_items = counts_items[static_cast<std::size_t>(c.rank())];
    const std::size_t mine = r.m.units(mine_items);
    check_buffer(fn, recvbuf, static_cast<int>(std::min<std::size_t>(mine_items, 1)));
    if (in_place) {
      if (total > 0) check_buffer(fn, recvbuf, 1);
    } else {
      if (total > 0) check_buffer(fn, sendbuf, 1);
      check_no_overlap(fn, sendbuf, span_of(r.m, total_items), recvbuf,
                       span_of(r.m, mine_items));
    }
    run_collective(c, v_signature(c, -1, t, &counts, r.label),
                   items_text(mine, t) + ", " + r.label, [&] {
                     Packed send(c.comm, r.m, {total_items}), recv(c.comm, r.m, {mine_items});
                     std::vector<unsigned char> copy;
                     const void* in = contributions(send, sendbuf, recvbuf, total * t.size, copy);
                     void* out = recv.write(recvbuf, false);
                     vmc::detail::reduce_scatter_bytes(r.on(c.comm), send_address(in), total,
                                                       out, mine, t.size, counts, r.op(),
                                                       operation_options(Operation::reduce_scatter));
                     recv.finish(recvbuf);
                   });
    return MPI_SUCCESS;
  });
}

int gather_call(const char* fn, const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                void* recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, int root,
                MPI_Comm comm) {
  return mpi_call(comm, [&] {
    const Collective c = open_collective(fn, comm);
    check_root(c, root);
    const bool at_root = c.rank() == root;
    const bool in_place = sendbuf == MPI_IN_PLACE;
    if (in_place && !at_root) fail(fn, MPI_ERR_BUFFER, "MPI_IN_PLACE is the root's send buffer only");
    // The receive arguments count at the root only.
    Moved sm = in_place ? Moved{} : counted(c, sendcount, sendtype);
    Moved rm;
    std::size_t n = in_place ? 0 : sm.units(size_of(sendcount));
    if (at_root) {
      rm = counted(c, recvcount, recvtype, c.p());
      if (in_place) {
        n = rm.units(size_of(recvcount));
      } else {
        check_same_signature(fn, sendcount, sm, recvcount, rm, "at the root, ");
      }
      check_not_in_place(fn, recvbuf, "the receive buffer");
      check_buffer(fn, recvbuf, in_place ? recvcount : sendcount);
    }
    const TypeInfo t = in_place ? rm.unit : sm.unit;
    const std::size_t all = n * c.p();
    if (!in_place) check_buffer(fn, sendbuf, sendcount);
    if (at_root && !in_place) {
      check_no_overlap(fn, sendbuf, span_of(sm, size_of(sendcount)), recvbuf,
                       span_of(rm, size_of(recvcount) * c.p()));
    }
    run_collective(c, signature(c, root, n, t),
                   "root " + std::to_string(root) + ", " + items_text(n, t), [&] {
                     const Options& options = operation_options(Operation::gather);
                     std::optional<Packed> recv;
                     void* out = nullptr;
                     if (at_root) {
                       recv.emplace(c.comm, rm, Layout{size_of(recvcount) * c.p()});
                       out = recv->write(recvbuf, in_place);
                     }
                     if (in_place) {
                       vmc::detail::gather_bytes(c.comm, nullptr, 0, out, all, t.size, root, true,
                                                 options);
                     } else {
                       Packed send(c.comm, sm, {size_of(sendcount)});
                       vmc::detail::gather_bytes(c.comm, send_address(send.read(sendbuf)), n,
                                                 out, at_root ? all : 0, t.size, root, false,
                                                 options);
                     }
                     if (at_root) recv->finish(recvbuf);
                   });
    return MPI_SUCCESS;
  });
}

int scatter_call(const char* fn, const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                 void* recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, int root,
                 MPI_Comm comm) {
  return mpi_call(comm, [&] {
    const Collective c = open_collective(fn, comm);
    check_root(c, root);
    const bool at_root = c.rank() == root;
    const bool in_place = recvbuf == MPI_IN_PLACE;
    if (in_place && !at_root) {
      fail(fn, MPI_ERR_BUFFER, "MPI_IN_PLACE is the root's receive buffer only");
    }
    // The send arguments count at the root only.
    Moved rm = in_place ? Moved{} : counted(c, recvcount, recvtype);
    Moved sm;
    std::size_t n = in_place ? 0 : rm.units(size_of(recvcount));
    if (at_root) {
      sm = counted(c, sendcount, sendtype, c.p());
      if (in_place) {
        n = sm.units(size_of(sendcount));
      } else {
        check_same_signature(fn, sendcount, sm, recvcount, rm, "at the root, ");
      }
      check_not_in_place(fn, sendbuf, "the send buffer");
      check_buffer(fn, sendbuf, in_place ? sendcount : recvcount);
    }
    const TypeInfo t = in_place ? sm.unit : rm.unit;
    const std::size_t all = n * c.p();
    if (!in_place) check_buffer(fn, recvbuf, recvcount);
    if (at_root && !in_place) {
      check_no_overlap(fn, sendbuf, span_of(sm, size_of(sendcount) * c.p()), recvbuf,
                       span_of(rm, size_of(recvcount)));
    }
    run_collective(c, signature(c, root, n, t),
                   "root " + std::to_string(root) + ", " + items_text(n, t), [&] {
                     const Options& options = operation_options(Operation::scatter);
                     std::optional<Packed> send;
                     const void* in = nullptr;
                     if (at_root) {
                       send.emplace(c.comm, sm, Layout{size_of(sendcount) * c.p()});
                       in = send->read(sendbuf);
                     }
                     if (in_place) {
                       vmc::detail::scatter_bytes(c.comm, in, all, nullptr, 0, t.size, root, true,
                                                  options);
                     } else {
                       Packed recv(c.comm, rm, {size_of(recvcount)});
                       vmc::detail::scatter_bytes(c.comm, in, at_root ? all : 0,
                                                  recv.write(recvbuf, false), n, t.size, root,
                                                  false, options);
                       recv.finish(recvbuf);
                     }
                   });
    return MPI_SUCCESS;
  });
}

int allgather_call(const char* fn, const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                   void* recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm) {
  return mpi_call(comm, [&] {
    const Collective c = open_collective(fn, comm);
    const bool in_place = sendbuf == MPI_IN_PLACE;
    const Moved rm = counted(c, recvcount, recvtype, c.p());
    const TypeInfo& t = rm.unit;
    Moved sm;
    if (!in_place) {
      sm = counted(c, sendcount, sendtype);
      check_same_signature(fn, sendcount, sm, recvcount, rm, "");
      check_buffer(fn, sendbuf, sendcount);
    }
    check_not_in_place(fn, recvbuf, "the receive buffer");
    check_buffer(fn, recvbuf, recvcount);
    const std::size_t n = rm.units(size_of(recvcount)), all = n * c.p();
    if (!in_place) {
      check_no_overlap(fn, sendbuf, span_of(sm, size_of(sendcount)), recvbuf,
                       span_of(rm, size_of(recvcount) * c.p()));
    }
    run_collective(c, signature(c, -1, n, t), items_text(n, t), [&] {
      const Options& options = operation_options(Operation::allgather);
      Packed recv(c.comm, rm, {size_of(recvcount) * c.p()});
      void* out = recv.write(recvbuf, in_place);
      if (in_place) {
        vmc::detail::allgather_in_place_bytes(c.comm, out, all, t.size, options);
      } else {
        Packed send(c.comm, sm, {size_of(sendcount)});
        vmc::detail::allgather_bytes(c.comm, send_address(send.read(sendbuf)), n, out, all,
                                     t.size, options);
      }
      recv.finish(recvbuf);
    });
    return MPI_SUCCESS;
  });
}

int alltoall_call(const char* fn, const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                  void* recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm) {
  return mpi_call(comm, [&] {
    const Collective c = open_collective(fn, comm);
    const bool in_place = sendbuf == MPI_IN_PLACE;
    const Moved rm = counted(c, recvcount, recvtype, c.p());
    const TypeInfo& t = rm.unit;
    Moved sm;
    if (!in_place) {
      sm = counted(c, sendcount, sendtype, c.p());
      check_same_signature(fn, sendcount, sm, recvcount, rm, "");
      check_buffer(fn, sendbuf, sendcount);
    }
    check_not_in_place(fn, recvbuf, "the receive buffer");
    check_buffer(fn, recvbuf, recvcount);
    const std::size_t n = rm.units(size_of(recvcount)), all = n * c.p();
    if (!in_place) {
      check_no_overlap(fn, sendbuf, span_of(sm, size_of(sendcount) * c.p()), recvbuf,
                       span_of(rm, size_of(recvcount) * c.p()));
    }
    run_collective(c, signature(c, -1, n, t), items_text(n, t), [&] {
      Packed recv(c.comm, rm, {size_of(recvcount) * c.p()});
      void* out = recv.write(recvbuf, in_place);
      // In place, vmc sends from a copy of the receive buffer (a local copy, not modelled).
      std::vector<unsigned char> blocks;
      const void* in = nullptr;
      std::optional<Packed> send;
      if (in_place) {
        blocks.assign(static_cast<const unsigned char*>(out),
                      static_cast<const unsigned char*>(out) + all * t.size);
        in = blocks.data();
      } else {
        send.emplace(c.comm, sm, Layout{size_of(sendcount) * c.p()});
        in = send->read(sendbuf);
      }
      vmc::detail::alltoall_bytes(c.comm, send_address(in), all, out, all, t.size,
                                  operation_options(Operation::alltoall));
      recv.finish(recvbuf);
    });
    return MPI_SUCCESS;
  });
}

int allgatherv_call(const char* fn, const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                    void* recvbuf, CountArray recvcounts, CountArray displs, MPI_Datatype recvtype,
                    MPI_Comm comm) {
  return mpi_call(comm, [&] {
    const Collective c = open_collective(fn, comm);
    const bool in_place = sendbuf == MPI_IN_PLACE;
    const Moved rm = moved_type(c, recvtype);
    const TypeInfo& t = rm.unit;
    const std::vector<std::size_t> counts_items =
        counts_of(fn, recvcounts, c.p(), "recvcounts", MPI_ERR_COUNT);
    const std::vector<std::size_t> at_items = counts_of(fn, displs, c.p(), "displs", MPI_ERR_ARG);
    check_blocks_span(c, counts_items, at_items, rm, recvtype);
    const std::vector<std::size_t> counts = in_units(counts_items, rm);
    const std::vector<std::size_t> at = in_units(at_items, rm);
    const std::size_t mine_items = counts_items[static_cast<std::size_t>(c.rank())];
    const std::size_t mine = rm.units(mine_items);
    Moved sm;
    if (!in_place) {
      sm = counted(c, sendcount, sendtype);
      check_same_signature(fn, sendcount, sm, static_cast<MPI_Count>(mine_items), rm,
                           "recvcounts[rank] is this rank's block: ");
      check_buffer(fn, sendbuf, sendcount);
    }
    check_not_in_place(fn, recvbuf, "the receive buffer");
    const std::size_t capacity_items = extent_of(counts_items, at_items);
    const std::size_t capacity = rm.units(capacity_items);
    if (capacity > 0) check_buffer(fn, recvbuf, 1);
    if (!in_place) {
      check_no_overlap(fn, sendbuf, span_of(sm, size_of(sendcount)), recvbuf,
                       span_of(rm, capacity_items));
    }
    run_collective(c, v_signature(c, -1, t, &counts), items_text(mine, t), [&] {
      Packed recv(c.comm, rm, {capacity_items, &counts_items, &at_items});
      void* out = recv.write(recvbuf, in_place);
      Packed send(c.comm, in_place ? rm : sm, {in_place ? 0 : size_of(sendcount)});
      vmc::detail::allgatherv_bytes(c.comm, in_place ? nullptr : send_address(send.read(sendbuf)),
                                    in_place ? 0 : mine, out, capacity, t.size, counts, at,
                                    operation_options(Operation::allgatherv));
      recv.finish(recvbuf);
    });
    return MPI_SUCCESS;
  });
}

int alltoallv_call(const char* fn, const void* sendbuf, CountArray sendcounts, CountArray sdispls,
                   MPI_Datatype sendtype, void* recvbuf, CountArray recvcounts, CountArray rdispls,
                   MPI_Datatype recvtype, MPI_Comm comm) {
  return mpi_call(comm, [&] {
    const Collective c = open_collective(fn, comm);
    const bool in_place = sendbuf == MPI_IN_PLACE;
    const Moved rm = moved_type(c, recvtype);
    const TypeInfo& t = rm.unit;
    const std::vector<std::size_t> rcounts_items =
        counts_of(fn, recvcounts, c.p(), "recvcounts", MPI_ERR_COUNT);
    const std::vector<std::size_t> rat_items =
        counts_of(fn, rdispls, c.p(), "rdispls", MPI_ERR_ARG);
    check_blocks_span(c, rcounts_items, rat_items, rm, recvtype);
    const std::size_t r = static_cast<std::size_t>(c.rank());
    std::vector<std::size_t> scounts_items = rcounts_items, sat_items = rat_items;
    Moved sm = rm;
    if (!in_place) {
      scounts_items = counts_of(fn, sendcounts, c.p(), "sendcounts", MPI_ERR_COUNT);
      sat_items = counts_of(fn, sdispls, c.p(), "sdispls", MPI_ERR_ARG);
      sm = moved_type(c, sendtype);
      check_blocks_span(c, scounts_items, sat_items, sm, sendtype);
      check_same_signature(fn, static_cast<MPI_Count>(scounts_items[r]), sm,
                           static_cast<MPI_Count>(rcounts_items[r]), rm,
                           "the block a rank sends itself: ");
      // Two predefined types need only agree in size (checked above); a derived one moves
      // as units of its basic type, which the other side's must be.
      if ((sm.derived || rm.derived) && std::strcmp(sm.unit.name, rm.unit.name) != 0) {
        fail(fn, MPI_ERR_TYPE, "sendtype and recvtype differ in their basic types");
      }
    }
    check_not_in_place(fn, recvbuf, "the receive buffer");
    const std::size_t send_capacity_items = extent_of(scounts_items, sat_items);
    const std::size_t recv_capacity_items = extent_of(rcounts_items, rat_items);
    const std::size_t send_capacity = sm.units(send_capacity_items);
    const std::size_t recv_capacity = rm.units(recv_capacity_items);
    if (recv_capacity > 0) check_buffer(fn, recvbuf, 1);
    if (!in_place) {
      if (send_capacity > 0) check_buffer(fn, sendbuf, 1);
      check_no_overlap(fn, sendbuf, span_of(sm, send_capacity_items), recvbuf,
                       span_of(rm, recv_capacity_items));
    }
    const std::vector<std::size_t> scounts = in_units(scounts_items, sm);
    const std::vector<std::size_t> sat = in_units(sat_items, sm);
    const std::vector<std::size_t> rcounts = in_units(rcounts_items, rm);
    const std::vector<std::size_t> rat = in_units(rat_items, rm);
    run_collective(c, v_signature(c, -1, t, nullptr), "sends " + items_text(send_capacity, t),
                   [&] {
                     Packed recv(c.comm, rm, {recv_capacity_items, &rcounts_items, &rat_items});
                     void* out = recv.write(recvbuf, in_place);
                     // In place, vmc sends from a copy of the receive buffer (a local copy,
                     // not modelled).
                     std::vector<unsigned char> blocks;
                     const void* in = nullptr;
                     std::optional<Packed> send;
                     if (in_place) {
                       blocks.assign(static_cast<const unsigned char*>(out),
                                     static_cast<const unsigned char*>(out) +
                                         recv_capacity * t.size);
                       in = blocks.data();
                     } else {
                       send.emplace(c.comm, sm,
                                    Layout{send_capacity_items, &scounts_items, &sat_items});
                       in = send->read(sendbuf);
                     }
                     vmc::detail::alltoallv_bytes(c.comm, send_address(in), send_capacity,
                                                  scounts, sat, out, recv_capacity, rcounts, rat,
                                                  t.size, operation_options(Operation::alltoallv));
                     recv.finish(recvbuf);
                   });
    return MPI_SUCCESS;
  });
}

int gatherv_call(const char* fn, const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                 void* recvbuf, CountArray recvcounts, CountArray displs, MPI_Datatype recvtype,
                 int root, MPI_Comm comm) {
  return mpi_call(comm, [&] {
    const Collective c = open_collective(fn, comm);
    check_root(c, root);
    const bool at_root = c.rank() == root;
    const bool in_place = sendbuf == MPI_IN_PLACE;
    if (in_place && !at_root) fail(fn, MPI_ERR_BUFFER, "MPI_IN_PLACE is the root's send buffer only");
    const std::size_t r = static_cast<std::size_t>(c.rank());
    // The receive arguments count at the root only; elsewhere the rank knows its own count.
    std::vector<std::size_t> counts_items(c.p(), 0), at_items(c.p(), 0);
    Moved sm = in_place ? Moved{} : counted(c, sendcount, sendtype);
    Moved rm = sm;
    std::size_t capacity_items = 0;
    if (at_root) {
      rm = moved_type(c, recvtype);
      counts_items = counts_of(fn, recvcounts, c.p(), "recvcounts", MPI_ERR_COUNT);
      at_items = counts_of(fn, displs, c.p(), "displs", MPI_ERR_ARG);
      check_blocks_span(c, counts_items, at_items, rm, recvtype);
      if (!in_place) {
        check_same_signature(fn, sendcount, sm, static_cast<MPI_Count>(counts_items[r]), rm,
                             "recvcounts[root] is the root's own block: ");
      }
      check_not_in_place(fn, recvbuf, "the receive buffer");
      capacity_items = extent_of(counts_items, at_items);
      if (capacity_items > 0) check_buffer(fn, recvbuf, 1);
    } else {
      counts_items[r] = size_of(sendcount);
    }
    // The units: the receive type's at the root, the send type's elsewhere.
    const Moved& um = at_root ? rm : sm;
    const TypeInfo t = um.unit;
    std::vector<std::size_t> counts = in_units(counts_items, um), at = in_units(at_items, um);
    if (!at_root) counts[r] = sm.units(size_of(sendcount));
    const std::size_t capacity = um.units(capacity_items);
    if (!in_place) check_buffer(fn, sendbuf, sendcount);
    if (at_root && !in_place) {
      check_no_overlap(fn, sendbuf, span_of(sm, size_of(sendcount)), recvbuf,
                       span_of(rm, capacity_items));
    }
    const Options& options = operation_options(Operation::gatherv);
    run_collective(c, v_signature(c, root, t, nullptr),
                   "root " + std::to_string(root) + ", " + items_text(counts[r], t),
                   [&](SharedKey key) {
                     std::optional<Packed> recv;
                     void* out = nullptr;
                     if (at_root) {
                       recv.emplace(c.comm, rm, Layout{capacity_items, &counts_items, &at_items});
                       out = recv->write(recvbuf, in_place);
                     }
                     Packed send(c.comm, in_place ? rm : sm, {in_place ? 0 : size_of(sendcount)});
                     const void* in = in_place ? nullptr : send_address(send.read(sendbuf));
                     if (!named_beyond_linear(options)) {
                       run_linear_v(Operation::gatherv, c.comm, in, out, t.size, root, counts,
                                    at);
                     } else {
                       const std::vector<std::size_t> all =
                           counts_from_root(c.comm, counts, root, key);
                       vmc::detail::gatherv_bytes(
                           c.comm, in, in_place ? 0 : all[r], out, capacity, all,
                           at_root ? std::span<const std::size_t>(at)
                                   : std::span<const std::size_t>(),
                           t.size, root, options);
                     }
                     if (at_root) recv->finish(recvbuf);
                   });
    return MPI_SUCCESS;
  });
}

int scatterv_call(const char* fn, const void* sendbuf, CountArray sendcounts, CountArray displs,
                  MPI_Datatype sendtype, void* recvbuf, MPI_Count recvcount, MPI_Datatype recvtype,
                  int root, MPI_Comm comm) {
  return mpi_call(comm, [&] {
    const Collective c = open_collective(fn, comm);
    check_root(c, root);
    const bool at_root = c.rank() == root;
    const bool in_place = recvbuf == MPI_IN_PLACE;
    if (in_place && !at_root) {
      fail(fn, MPI_ERR_BUFFER, "MPI_IN_PLACE is the root's receive buffer only");
    }
    const std::size_t r = static_cast<std::size_t>(c.rank());
    // The send arguments count at the root only; elsewhere the rank knows its own count.
    std::vector<std::size_t> counts_items(c.p(), 0), at_items(c.p(), 0);
    Moved rm = in_place ? Moved{} : counted(c, recvcount, recvtype);
    Moved sm = rm;
    std::size_t capacity_items = 0;
    if (at_root) {
      sm = moved_type(c, sendtype);
      counts_items = counts_of(fn, sendcounts, c.p(), "sendcounts", MPI_ERR_COUNT);
      at_items = counts_of(fn, displs, c.p(), "displs", MPI_ERR_ARG);
      check_blocks_span(c, counts_items, at_items, sm, sendtype);
      if (!in_place) {
        check_same_signature(fn, static_cast<MPI_Count>(counts_items[r]), sm, recvcount, rm,
                             "sendcounts[root] is the root's own block: ");
      }
      check_not_in_place(fn, sendbuf, "the send buffer");
      capacity_items = extent_of(counts_items, at_items);
      if (capacity_items > 0) check_buffer(fn, sendbuf, 1);
    } else {
      counts_items[r] = size_of(recvcount);
    }
    const Moved& um = at_root ? sm : rm;
    const TypeInfo t = um.unit;
    std::vector<std::size_t> counts = in_units(counts_items, um), at = in_units(at_items, um);
    if (!at_root) counts[r] = rm.units(size_of(recvcount));
    const std::size_t capacity = um.units(capacity_items);
    if (!in_place) check_buffer(fn, recvbuf, recvcount);
    if (at_root && !in_place) {
      check_no_overlap(fn, sendbuf, span_of(sm, capacity_items), recvbuf,
                       span_of(rm, size_of(recvcount)));
    }
    const Options& options = operation_options(Operation::scatterv);
    run_collective(c, v_signature(c, root, t, nullptr),
                   "root " + std::to_string(root) + ", " + items_text(counts[r], t),
                   [&](SharedKey key) {
                     std::optional<Packed> send;
                     const void* in = nullptr;
                     if (at_root) {
                       send.emplace(c.comm, sm, Layout{capacity_items, &counts_items, &at_items});
                       in = send_address(send->read(sendbuf));
                     }
                     Packed recv(c.comm, in_place ? sm : rm, {in_place ? 0 : size_of(recvcount)});
                     void* out = in_place ? nullptr : recv.write(recvbuf, false);
                     if (!named_beyond_linear(options)) {
                       run_linear_v(Operation::scatterv, c.comm, in, out, t.size, root, counts,
                                    at);
                     } else {
                       const std::vector<std::size_t> all =
                           counts_from_root(c.comm, counts, root, key);
                       // vmc's scatterv has no in-place form: the root's own block goes to a
                       // scratch copy (local, not modelled).
                       std::vector<unsigned char> own;
                       if (in_place) {
                         own.resize(all[r] * t.size);
                         out = own.data();
                       }
                       vmc::detail::scatterv_bytes(
                           c.comm, in, capacity, all,
                           at_root ? std::span<const std::size_t>(at)
                                   : std::span<const std::size_t>(),
                           out, all[r], t.size, root, options);
                     }
                     if (!in_place) recv.finish(recvbuf);
                   });
    return MPI_SUCCESS;
  });
}

}  // namespace

// What the nonblocking collectives (mpi/nbc.cpp) check and move as the blocking ones do.
namespace vmc::mpi {
namespace {
CollectiveType public_type(const Moved& m) {
  return {m.map, m.unit.size, m.unit.name, m.per, m.basic, m.derived};
}
Moved moved_of(const CollectiveType& t) {
  Moved m;
  m.map = t.map;
  m.unit = type_info(t.basic).value_or(TypeInfo{t.unit_name, t.unit_size, t.unit_size,
                                                TypeKind::none});
  m.per = t.per;
  m.basic = t.basic;
  m.derived = t.derived;
  return m;
}
}  // namespace

CollectiveType collective_type(const char* fn, MPI_Comm comm, MPI_Datatype datatype) {
  return public_type(moved_type(open_collective(fn, comm), datatype));
}

Collective open_collective(const char* fn, MPI_Comm comm) {
  RankState& s = session_state(fn);
  return {fn, s, comm, comm_or_fail(fn, s, comm).comm};
}

void check_root(const Collective& c, int root) {
  check_rank(c.fn, MPI_ERR_ROOT, "root", root, c.comm);
}

void check_not_in_place(const char* fn, const void* buf, const char* what) {
  if (buf == MPI_IN_PLACE) {
    fail(fn, MPI_ERR_BUFFER, std::string("MPI_IN_PLACE is not allowed as ") + what);
  }
}

std::vector<std::size_t> counts_of(const char* fn, CountArray v, std::size_t p, const char* what,
                                   int error_class) {
  check_arg(fn, v.data(), what);
  std::vector<std::size_t> out(p);
  for (std::size_t i = 0; i < p; ++i) {
    if (v[i] < 0) {
      fail(fn, error_class,
           std::string(what) + "[" + std::to_string(i) + "] = " + std::to_string(v[i]) +
               " is negative");
    }
    out[i] = static_cast<std::size_t>(v[i]);
  }
  return out;
}

CollectiveReduction collective_reduction(const char* fn, MPI_Comm comm, MPI_Datatype datatype,
                                         MPI_Op op) {
  Reduction r = reduction(open_collective(fn, comm), datatype, op);
  return {public_type(r.m), r.op(), r.label, r.weighted ? r.weighted->weight() : 1};
}

void check_collective_signature(const char* fn, MPI_Count sendcount, const CollectiveType& st,
                                MPI_Count recvcount, const CollectiveType& rt, const char* where) {
  check_same_signature(fn, sendcount, moved_of(st), recvcount, moved_of(rt), where);
}
}  // namespace vmc::mpi

extern "C" {

int MPI_Barrier(MPI_Comm comm) {
  if (is_inter(comm)) return inter_barrier(comm);
  const char* fn = "MPI_Barrier";
  return mpi_call(comm, [&] {
    const Collective c = open_collective(fn, comm);
    CallSignature sig;
    sig.operation = fn;
    run_collective(c, sig, "", [&] { vmc::detail::barrier_run(c.comm, operation_options(Operation::barrier)); });
    return MPI_SUCCESS;
  });
}

int MPI_Bcast(void* buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm) {
  if (is_inter(comm)) return inter_bcast(buffer, count, datatype, root, comm);
  return bcast_call("MPI_Bcast", buffer, count, datatype, root, comm);
}

int MPI_Bcast_c(void* buffer, MPI_Count count, MPI_Datatype datatype, int root, MPI_Comm comm) {
  if (is_inter(comm)) {
    return on_inter("MPI_Bcast_c", comm, [&](Narrow& narrow) {
      return inter_bcast(buffer, narrow(count), datatype, root, comm);
    });
  }
  return bcast_call("MPI_Bcast_c", buffer, count, datatype, root, comm);
}

int MPI_Reduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
               int root, MPI_Comm comm) {
  if (is_inter(comm)) return inter_reduce(sendbuf, recvbuf, count, datatype, op, root, comm);
  return reduce_call("MPI_Reduce", sendbuf, recvbuf, count, datatype, op, root, comm);
}

int MPI_Reduce_c(const void* sendbuf, void* recvbuf, MPI_Count count, MPI_Datatype datatype,
                 MPI_Op op, int root, MPI_Comm comm) {
  if (is_inter(comm)) {
    return on_inter("MPI_Reduce_c", comm, [&](Narrow& narrow) {
      return inter_reduce(sendbuf, recvbuf, narrow(count), datatype, op, root, comm);
    });
  }
  return reduce_call("MPI_Reduce_c", sendbuf, recvbuf, count, datatype, op, root, comm);
}

int MPI_Allreduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype,
                  MPI_Op op, MPI_Comm comm) {
  if (is_inter(comm)) return inter_allreduce(sendbuf, recvbuf, count, datatype, op, comm);
  return itemwise("MPI_Allreduce", Operation::allreduce, vmc::detail::allreduce_bytes, sendbuf,
                  recvbuf, count, datatype, op, comm);
}

int MPI_Allreduce_c(const void* sendbuf, void* recvbuf, MPI_Count count, MPI_Datatype datatype,
                    MPI_Op op, MPI_Comm comm) {
  if (is_inter(comm)) {
    return on_inter("MPI_Allreduce_c", comm, [&](Narrow& narrow) {
      return inter_allreduce(sendbuf, recvbuf, narrow(count), datatype, op, comm);
    });
  }
  return itemwise("MPI_Allreduce_c", Operation::allreduce, vmc::detail::allreduce_bytes, sendbuf,
                  recvbuf, count, datatype, op, comm);
}

int MPI_Scan(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
             MPI_Comm comm) {
  if (is_inter(comm)) return inter_scan("MPI_Scan", comm);
  return itemwise("MPI_Scan", Operation::scan, vmc::detail::scan_bytes, sendbuf, recvbuf, count,
                  datatype, op, comm);
}

int MPI_Scan_c(const void* sendbuf, void* recvbuf, MPI_Count count, MPI_Datatype datatype,
               MPI_Op op, MPI_Comm comm) {
  if (is_inter(comm)) return inter_scan("MPI_Scan_c", comm);
  return itemwise("MPI_Scan_c", Operation::scan, vmc::detail::scan_bytes, sendbuf, recvbuf, count,
                  datatype, op, comm);
}

// Rank 0's receive buffer is left as it was (the standard leaves it undefined).
int MPI_Exscan(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
               MPI_Comm comm) {
  if (is_inter(comm)) return inter_scan("MPI_Exscan", comm);
  return itemwise("MPI_Exscan", Operation::exscan, vmc::detail::exscan_bytes, sendbuf, recvbuf,
                  count, datatype, op, comm);
}

int MPI_Exscan_c(const void* sendbuf, void* recvbuf, MPI_Count count, MPI_Datatype datatype,
                 MPI_Op op, MPI_Comm comm) {
  if (is_inter(comm)) return inter_scan("MPI_Exscan_c", comm);
  return itemwise("MPI_Exscan_c", Operation::exscan, vmc::detail::exscan_bytes, sendbuf, recvbuf,
                  count, datatype, op, comm);
}

int MPI_Reduce_scatter_block(const void* sendbuf, void* recvbuf, int recvcount,
                             MPI_Datatype datatype, MPI_Op op, MPI_Comm comm) {
  if (is_inter(comm)) {
    return inter_reduce_scatter_block(sendbuf, recvbuf, recvcount, datatype, op, comm);
  }
  return reduce_scatter_block_call("MPI_Reduce_scatter_block", sendbuf, recvbuf, recvcount,
                                   datatype, op, comm);
}

int MPI_Reduce_scatter_block_c(const void* sendbuf, void* recvbuf, MPI_Count recvcount,
                               MPI_Datatype datatype, MPI_Op op, MPI_Comm comm) {
  if (is_inter(comm)) {
    return on_inter("MPI_Reduce_scatter_block_c", comm, [&](Narrow& narrow) {
      return inter_reduce_scatter_block(sendbuf, recvbuf, narrow(recvcount), datatype, op, comm);
    });
  }
  return reduce_scatter_block_call("MPI_Reduce_scatter_block_c", sendbuf, recvbuf, recvcount,
                                   datatype, op, comm);
}

int MPI_Reduce_scatter(const void* sendbuf, void* recvbuf, const int recvcounts[],
                       MPI_Datatype datatype, MPI_Op op, MPI_Comm comm) {
  if (is_inter(comm)) {
    return inter_reduce_scatter(sendbuf, recvbuf, recvcounts, datatype, op, comm);
  }
  return reduce_scatter_call("MPI_Reduce_scatter", sendbuf, recvbuf, recvcounts, datatype, op,
                             comm);
}

int MPI_Reduce_scatter_c(const void* sendbuf, void* recvbuf, const MPI_Count recvcounts[],
                         MPI_Datatype datatype, MPI_Op op, MPI_Comm comm) {
  if (is_inter(comm)) {
    return on_inter("MPI_Reduce_scatter_c", comm, [&](Narrow& narrow) {
      return inter_reduce_scatter(sendbuf, recvbuf, narrow.local(recvcounts), datatype, op, comm);
    });
  }
  return reduce_scatter_call("MPI_Reduce_scatter_c", sendbuf, recvbuf, recvcounts, datatype, op,
                             comm);
}

int MPI_Gather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
               int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm) {
  if (is_inter(comm)) {
    return inter_gather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm);
  }
  return gather_call("MPI_Gather", sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root,
                     comm);
}

int MPI_Gather_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void* recvbuf,
                 MPI_Count recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm) {
  if (is_inter(comm)) {
    return on_inter("MPI_Gather_c", comm, [&](Narrow& narrow) {
      return inter_gather(sendbuf, narrow(sendcount), sendtype, recvbuf, narrow(recvcount),
                          recvtype, root, comm);
    });
  }
  return gather_call("MPI_Gather_c", sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype,
                     root, comm);
}

int MPI_Scatter(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm) {
  if (is_inter(comm)) {
    return inter_scatter(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm);
  }
  return scatter_call("MPI_Scatter", sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype,
                      root, comm);
}

int MPI_Scatter_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void* recvbuf,
                  MPI_Count recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm) {
  if (is_inter(comm)) {
    return on_inter("MPI_Scatter_c", comm, [&](Narrow& narrow) {
      return inter_scatter(sendbuf, narrow(sendcount), sendtype, recvbuf, narrow(recvcount),
                           recvtype, root, comm);
    });
  }
  return scatter_call("MPI_Scatter_c", sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype,
                      root, comm);
}

int MPI_Allgather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                  int recvcount, MPI_Datatype recvtype, MPI_Comm comm) {
  if (is_inter(comm)) {
    return inter_allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
  }
  return allgather_call("MPI_Allgather", sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype,
                        comm);
}

int MPI_Allgather_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void* recvbuf,
                    MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm) {
  if (is_inter(comm)) {
    return on_inter("MPI_Allgather_c", comm, [&](Narrow& narrow) {
      return inter_allgather(sendbuf, narrow(sendcount), sendtype, recvbuf, narrow(recvcount),
                             recvtype, comm);
    });
  }
  return allgather_call("MPI_Allgather_c", sendbuf, sendcount, sendtype, recvbuf, recvcount,
                        recvtype, comm);
}

int MPI_Alltoall(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                 int recvcount, MPI_Datatype recvtype, MPI_Comm comm) {
  if (is_inter(comm)) {
    return inter_alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
  }
  return alltoall_call("MPI_Alltoall", sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype,
                       comm);
}

int MPI_Alltoall_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void* recvbuf,
                   MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm) {
  if (is_inter(comm)) {
    return on_inter("MPI_Alltoall_c", comm, [&](Narrow& narrow) {
      return inter_alltoall(sendbuf, narrow(sendcount), sendtype, recvbuf, narrow(recvcount),
                            recvtype, comm);
    });
  }
  return alltoall_call("MPI_Alltoall_c", sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype,
                       comm);
}

int MPI_Allgatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                   const int recvcounts[], const int displs[], MPI_Datatype recvtype,
                   MPI_Comm comm) {
  if (is_inter(comm)) {
    return inter_allgatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype,
                            comm);
  }
  return allgatherv_call("MPI_Allgatherv", sendbuf, sendcount, sendtype, recvbuf, recvcounts,
                         displs, recvtype, comm);
}

int MPI_Allgatherv_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void* recvbuf,
                     const MPI_Count recvcounts[], const MPI_Aint displs[], MPI_Datatype recvtype,
                     MPI_Comm comm) {
  if (is_inter(comm)) {
    return on_inter("MPI_Allgatherv_c", comm, [&](Narrow& narrow) {
      return inter_allgatherv(sendbuf, narrow(sendcount), sendtype, recvbuf,
                              narrow.remote(recvcounts), narrow.remote(displs), recvtype, comm);
    });
  }
  return allgatherv_call("MPI_Allgatherv_c", sendbuf, sendcount, sendtype, recvbuf, recvcounts,
                         displs, recvtype, comm);
}

int MPI_Alltoallv(const void* sendbuf, const int sendcounts[], const int sdispls[],
                  MPI_Datatype sendtype, void* recvbuf, const int recvcounts[], const int rdispls[],
                  MPI_Datatype recvtype, MPI_Comm comm) {
  if (is_inter(comm)) {
    return inter_alltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls,
                           recvtype, comm);
  }
  return alltoallv_call("MPI_Alltoallv", sendbuf, sendcounts, sdispls, sendtype, recvbuf,
                        recvcounts, rdispls, recvtype, comm);
}

int MPI_Alltoallv_c(const void* sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[],
                    MPI_Datatype sendtype, void* recvbuf, const MPI_Count recvcounts[],
                    const MPI_Aint rdispls[], MPI_Datatype recvtype, MPI_Comm comm) {
  if (is_inter(comm)) {
    return on_inter("MPI_Alltoallv_c", comm, [&](Narrow& narrow) {
      return inter_alltoallv(sendbuf, narrow.remote(sendcounts), narrow.remote(sdispls), sendtype,
                             recvbuf, narrow.remote(recvcounts), narrow.remote(rdispls), recvtype,
                             comm);
    });
  }
  return alltoallv_call("MPI_Alltoallv_c", sendbuf, sendcounts, sdispls, sendtype, recvbuf,
                        recvcounts, rdispls, recvtype, comm);
}

int MPI_Gatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root,
                MPI_Comm comm) {
  if (is_inter(comm)) {
    return inter_gatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, root,
                         comm);
  }
  return gatherv_call("MPI_Gatherv", sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs,
                      recvtype, root, comm);
}

int MPI_Gatherv_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void* recvbuf,
                  const MPI_Count recvcounts[], const MPI_Aint displs[], MPI_Datatype recvtype,
                  int root, MPI_Comm comm) {
  if (is_inter(comm)) {
    return on_inter("MPI_Gatherv_c", comm, [&](Narrow& narrow) {
      return inter_gatherv(sendbuf, narrow(sendcount), sendtype, recvbuf,
                           narrow.remote(recvcounts, root == MPI_ROOT),
                           narrow.remote(displs, root == MPI_ROOT), recvtype, root, comm);
    });
  }
  return gatherv_call("MPI_Gatherv_c", sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs,
                      recvtype, root, comm);
}

int MPI_Scatterv(const void* sendbuf, const int sendcounts[], const int displs[],
                 MPI_Datatype sendtype, void* recvbuf, int recvcount, MPI_Datatype recvtype,
                 int root, MPI_Comm comm) {
  if (is_inter(comm)) {
    return inter_scatterv(sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount, recvtype,
                          root, comm);
  }
  return scatterv_call("MPI_Scatterv", sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount,
                       recvtype, root, comm);
}

int MPI_Scatterv_c(const void* sendbuf, const MPI_Count sendcounts[], const MPI_Aint displs[],
                   MPI_Datatype sendtype, void* recvbuf, MPI_Count recvcount, MPI_Datatype recvtype,
                   int root, MPI_Comm comm) {
  if (is_inter(comm)) {
    return on_inter("MPI_Scatterv_c", comm, [&](Narrow& narrow) {
      return inter_scatterv(sendbuf, narrow.remote(sendcounts, root == MPI_ROOT),
                            narrow.remote(displs, root == MPI_ROOT), sendtype, recvbuf,
                            narrow(recvcount), recvtype, root, comm);
    });
  }
  return scatterv_call("MPI_Scatterv_c", sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount,
                       recvtype, root, comm);
}

// --- user operations -----------------------------------------------------------------------

static int op_create(const char* fn, MPI_User_function* user_fn, MPI_User_function_c* user_fn_c,
                     int commute, MPI_Op* op) {
  return mpi_call(MPI_COMM_SELF, [&] {
    RankState& s = session_state(fn);
    if (user_fn == nullptr && user_fn_c == nullptr) fail(fn, MPI_ERR_ARG, "user_fn is null");
    check_arg(fn, op, "op");
    *op = static_cast<MPI_Op>(VMC_MPI_FIRST_USER_OP + s.ops.size());
    s.ops.push_back(UserOpEntry{user_fn, user_fn_c, commute != 0, false,
                                "user operation " + std::to_string(*op)});
    return MPI_SUCCESS;
  });
}

int MPI_Op_create(MPI_User_function* user_fn, int commute, MPI_Op* op) {
  return op_create("MPI_Op_create", user_fn, nullptr, commute, op);
}

int MPI_Op_create_c(MPI_User_function_c* user_fn, int commute, MPI_Op* op) {
  return op_create("MPI_Op_create_c", nullptr, user_fn, commute, op);
}

int MPI_Op_free(MPI_Op* op) {
  const char* fn = "MPI_Op_free";
  return mpi_call(MPI_COMM_SELF, [&] {
    RankState& s = session_state(fn);
    check_arg(fn, op, "op");
    if (user_op_entry(fn, s, *op) == nullptr) {
      fail(fn, MPI_ERR_OP, std::string(op_name(*op) != nullptr ? op_name(*op) : "MPI_OP_NULL") +
                               " is predefined: it cannot be freed");
    }
    s.ops[static_cast<std::size_t>(*op - VMC_MPI_FIRST_USER_OP)].freed = true;
    *op = MPI_OP_NULL;
    return MPI_SUCCESS;
  });
}

int MPI_Op_commutative(MPI_Op op, int* commute) {
  const char* fn = "MPI_Op_commutative";
  return mpi_call(MPI_COMM_SELF, [&] {
    RankState& s = session_state(fn);
    check_arg(fn, commute, "commute");
    if (const UserOpEntry* u = user_op_entry(fn, s, op)) {
      *commute = u->commutative ? 1 : 0;
    } else if (op_name(op) != nullptr) {
      *commute = 1;
    } else {
      fail(fn, MPI_ERR_OP, "MPI_OP_NULL is not an operation");
    }
    return MPI_SUCCESS;
  });
}

// inoutbuf = inbuf op inoutbuf, on the calling rank alone (free in modelled time, as a
// program's own loop would be were it not charged: vmc charges no combine it does not model).
extern "C++" template <class Int>
int reduce_local(const char* fn, const void* inbuf, void* inoutbuf, Int count,
                        MPI_Datatype datatype, MPI_Op op) {
  return mpi_call(MPI_COMM_SELF, [&] {
    RankState& s = session_state(fn);
    if (count < 0) fail(fn, MPI_ERR_COUNT, "negative count " + std::to_string(count));
    const auto items = static_cast<std::size_t>(count);
    if (items > 0 && (inbuf == nullptr || inoutbuf == nullptr)) {
      fail(fn, MPI_ERR_BUFFER, "null buffer for " + std::to_string(count) + " items");
    }
    if (const UserOpEntry* u = user_op_entry(fn, s, op)) {
      const Typemap& map = moved_typemap(fn, s, datatype, static_cast<MPI_Count>(count));
      if (items == 0) return MPI_SUCCESS;
      call_user_fn(u->fn, u->fn_c, const_cast<void*>(inbuf), inoutbuf, items, map.extent(),
                   datatype);
      return MPI_SUCCESS;
    }
    const Collective c{fn, s, MPI_COMM_SELF, s.comms.at(MPI_COMM_SELF).comm};
    const Reduction r = reduction(c, datatype, op);
    check_span(fn, static_cast<MPI_Count>(count), *r.m.map, s, datatype);
    if (items == 0) return MPI_SUCCESS;
    const std::size_t n = r.m.units(items);
    std::vector<unsigned char> a(n * r.m.unit.size), b(n * r.m.unit.size);
    pack(*r.m.map, inbuf, items, a.data());
    pack(*r.m.map, inoutbuf, items, b.data());
    r.op().apply(a.data(), b.data(), b.data(), n);
    unpack(*r.m.map, b.data(), b.size(), inoutbuf);
    return MPI_SUCCESS;
  });
}

int MPI_Reduce_local(const void* inbuf, void* inoutbuf, int count, MPI_Datatype datatype,
                     MPI_Op op) {
  return reduce_local("MPI_Reduce_local", inbuf, inoutbuf, count, datatype, op);
}

int MPI_Reduce_local_c(const void* inbuf, void* inoutbuf, MPI_Count count, MPI_Datatype datatype,
                       MPI_Op op) {
  return reduce_local("MPI_Reduce_local_c", inbuf, inoutbuf, count, datatype, op);
}

}  // extern "C"
