// Communicators, groups and attributes.
//
// A communicator is a vmc Comm (state.hpp's table, per rank): MPI_COMM_WORLD the node's world
// comm, MPI_COMM_SELF a comm of the rank alone (made at MPI_Init). Constructors and their
// vmc calls, all free in modelled time:
//   MPI_Comm_dup, _dup_with_info   Comm::create_group over every rank in order, with a tag of
//                                  MPI's own (negative: no user tag is one)
//   MPI_Comm_split                 Comm::split (MPI_UNDEFINED: the rank joins none)
//   MPI_Comm_split_type            MPI_COMM_TYPE_SHARED: each rank alone (a node of vmc's
//                                  machine shares its memory with no other); the others of
//                                  MPI-4: MPI_COMM_NULL
//   MPI_Comm_create                Comm::split by membership (every rank of the parent calls;
//                                  disjoint groups make disjoint communicators)
//   MPI_Comm_create_group          Comm::create_group with the user's tag (the group's
//                                  members call, no one else)
// A new communicator takes its parent's error handler; MPI_Comm_dup copies the attributes
// whose copy callbacks say so. Datatypes hold attributes too (MPI-4.1 section 7.7.4), on the
// same keyvals' machinery: a keyval is a communicator's or a datatype's, MPI_Type_dup runs the
// copy callbacks, MPI_Type_free and MPI_Type_delete_attr the delete callbacks. A group is a list of world ranks. On an intercommunicator,
// dup, split, create, compare and free are mpi/intercomm.cpp's.
#include <algorithm>
#include <cstring>
#include <set>
#include <string>
#include <vector>

#include "mpi/intercomm.hpp"
#include "mpi/state.hpp"

using namespace vmc;
using namespace vmc::mpi;

namespace {

constexpr std::int64_t kDupTag = -2;  // Comm::create_group's tag for MPI_Comm_dup

// A new handle for `comm` (MPI_COMM_NULL when it is invalid: the rank joined none), with the
// parent's error handler.
MPI_Comm add_comm(RankState& s, Comm comm, MPI_Errhandler errhandler) {
  if (!comm.valid()) return MPI_COMM_NULL;
  s.comms.push_back(CommEntry{.comm = std::move(comm), .errhandler = errhandler});
  return static_cast<MPI_Comm>(s.comms.size() - 1);
}

const KeyvalEntry& keyval_entry(const RankState& s, int keyval) {
  return s.keyvals.at(static_cast<std::size_t>(keyval - kFirstKeyval));
}

bool predefined_keyval(int keyval) { return keyval >= MPI_TAG_UB && keyval <= MPI_APPNUM; }

// What a keyval is for: a communicator's attributes or a datatype's.
const char* object_of(bool for_types) { return for_types ? "datatype" : "communicator"; }

// A user keyval of this rank for the objects `for_types` says, not freed, or an error
// (MPI_ERR_KEYVAL).
const KeyvalEntry& user_keyval_or_fail(const char* fn, const RankState& s, int keyval,
                                       bool for_types = false) {
  if (predefined_keyval(keyval)) {
    fail(fn, MPI_ERR_KEYVAL,
         "keyval " + std::to_string(keyval) + " is predefined: its attribute cannot change");
  }
  if (keyval < kFirstKeyval || keyval >= kFirstKeyval + static_cast<int>(s.keyvals.size())) {
    fail(fn, MPI_ERR_KEYVAL, "invalid keyval " + std::to_string(keyval));
  }
  const KeyvalEntry& k = keyval_entry(s, keyval);
  if (k.freed) {
    fail(fn, MPI_ERR_KEYVAL,
         "keyval " + std::to_string(keyval) + " was freed (" +
             (for_types ? "MPI_Type_free_keyval" : "MPI_Comm_free_keyval") + ")");
  }
  if (k.for_types != for_types) {
    fail(fn, MPI_ERR_KEYVAL,
         "keyval " + std::to_string(keyval) + " is a " + object_of(k.for_types) +
             "'s, not a " + object_of(for_types) + "'s");
  }
  return k;
}

// Calls the delete callback of the attribute `keyval` of communicator or datatype `handle`, if
// any; an error when it returns one.
void delete_attribute(const char* fn, RankState& s, int handle, int keyval, void* value) {
  const KeyvalEntry& k = keyval_entry(s, keyval);
  if (k.remove == nullptr) return;
  const int rc = k.remove(handle, keyval, value, k.extra_state);
  if (rc != MPI_SUCCESS) {
    fail(fn, rc,
         "the delete callback of keyval " + std::to_string(keyval) + " returned " +
             std::to_string(rc));
  }
}

// The attributes of communicator `comm` (looked up at each use: a callback may make
// communicators, and the table move) and of datatype `type`.
struct CommAttributes {
  MPI_Comm comm;
  std::map<int, void*>& operator()(RankState& s) const {
    return s.comms[static_cast<std::size_t>(comm)].attributes;
  }
};
struct TypeAttributes {
  MPI_Datatype type;
  std::map<int, void*>& operator()(RankState& s) const { return s.type_attributes[type]; }
};

// Deletes every attribute `of` holds, its delete callbacks called with `handle`.
template <class Of>
void delete_attributes(const char* fn, RankState& s, int handle, Of of) {
  while (!of(s).empty()) {
    auto [keyval, value] = *of(s).begin();
    of(s).erase(keyval);
    delete_attribute(fn, s, handle, keyval, value);
  }
}

// Every attribute of object `from` (its attributes `source`) whose copy callback says so,
// onto `to` (MPI_Comm_dup, MPI_Type_dup). A callback that fails undoes the dup: the copies
// made are deleted and `undo` frees `to`.
template <class Of, class Undo>
void copy_attributes(const char* fn, RankState& s, int from, int to, Of source, Of dest,
                     Undo undo) {
  const std::map<int, void*> attributes = source(s);
  for (const auto& [keyval, value] : attributes) {
    const KeyvalEntry k = keyval_entry(s, keyval);
    if (k.copy == nullptr) continue;
    void* out = nullptr;
    int flag = 0;
    const int rc = k.copy(from, keyval, k.extra_state, value, &out, &flag);
    if (rc != MPI_SUCCESS) {
      delete_attributes(fn, s, to, dest);
      undo();
      fail(fn, rc,
           "the copy callback of keyval " + std::to_string(keyval) + " returned " +
               std::to_string(rc));
    }
    if (flag != 0) dest(s)[keyval] = out;
  }
}

void copy_attributes(const char* fn, RankState& s, MPI_Comm from, MPI_Comm to) {
  copy_attributes(fn, s, from, to, CommAttributes{from}, CommAttributes{to},
                  [&] { s.comms[static_cast<std::size_t>(to)] = CommEntry{.freed = true}; });
}

// The comm rank of each member of `g` in `c`, or an error when one is not in c.
std::vector<int> comm_ranks_of(const char* fn, const Comm& c, const std::vector<int>& g) {
  const std::span<const int> members = c.members();
  std::vector<int> ranks;
  ranks.reserve(g.size());
  for (int w : g) {
    auto it = std::find(members.begin(), members.end(), w);
    if (it == members.end()) {
      fail(fn, MPI_ERR_GROUP,
           "the group holds world rank " + std::to_string(w) +
               ", which is not a member of the communicator");
    }
    ranks.push_back(static_cast<int>(it - members.begin()));
  }
  return ranks;
}

// Where world rank `w` is in `members`, or -1.
int index_of(const std::vector<int>& members, int w) {
  auto it = std::find(members.begin(), members.end(), w);
  return it == members.end() ? -1 : static_cast<int>(it - members.begin());
}

// MPI_IDENT, MPI_SIMILAR or MPI_UNEQUAL (MPI_CONGRUENT is the communicators' own).
int compare_members(std::span<const int> a, std::span<const int> b) {
  if (std::equal(a.begin(), a.end(), b.begin(), b.end())) return MPI_IDENT;
  if (a.size() != b.size()) return MPI_UNEQUAL;
  return std::set<int>(a.begin(), a.end()) == std::set<int>(b.begin(), b.end()) ? MPI_SIMILAR
                                                                               : MPI_UNEQUAL;
}

// `info`: the new one's hints (MPI_Comm_dup_with_info's), or null for the old one's.
int dup(const char* fn, MPI_Comm comm, MPI_Comm* newcomm, const MPI_Info* info = nullptr) {
  RankState& s = session_state(fn);
  const CommEntry& c = comm_or_fail(fn, s, comm);
  check_arg(fn, newcomm, "newcomm");
  auto hints = info != nullptr ? info_entries(fn, s, *info) : c.info;
  const CallContext context(std::string(fn) + "(" + comm_label(s, comm) + ")");
  MPI_Comm handle = MPI_COMM_NULL;
  if (c.inter != nullptr) {
    handle = dup_inter(fn, s, comm, c.errhandler);
  } else {
    std::vector<int> all(static_cast<std::size_t>(c.comm.size()));
    for (int r = 0; r < c.comm.size(); ++r) all[static_cast<std::size_t>(r)] = r;
    Comm made = constructed(fn, [&] { return c.comm.create_group(all, kDupTag); });
    auto topology = c.topology;  // a duplicate keeps its process topology
    handle = add_comm(s, std::move(made), c.errhandler);
    s.comms[static_cast<std::size_t>(handle)].topology = std::move(topology);
  }
  s.comms[static_cast<std::size_t>(handle)].info = std::move(hints);
  copy_attributes(fn, s, comm, handle);
  *newcomm = handle;
  return MPI_SUCCESS;
}

// Comm::split on communicator `comm`, the result a new handle (MPI_COMM_NULL for a negative
// colour).
int split(const char* fn, RankState& s, MPI_Comm comm, int color, int key, MPI_Comm* newcomm,
          const std::string& call) {
  const CommEntry& c = comm_or_fail(fn, s, comm);
  const MPI_Errhandler errhandler = c.errhandler;
  const CallContext context(call);
  if (c.inter != nullptr) {
    *newcomm = split_inter(fn, s, comm, color, key);
    return MPI_SUCCESS;
  }
  Comm made = constructed(fn, [&] { return c.comm.split(color, key); });
  *newcomm = add_comm(s, std::move(made), errhandler);
  return MPI_SUCCESS;
}

// The new group from the members of `g` at these group ranks, checked: each a rank of g and
// none twice.
std::vector<int> pick(const char* fn, const std::vector<int>& g, const std::vector<int>& ranks) {
  std::vector<bool> seen(g.size(), false);
  std::vector<int> out;
  out.reserve(ranks.size());
  for (int r : ranks) {
    if (r < 0 || r >= static_cast<int>(g.size())) {
      fail(fn, MPI_ERR_RANK,
           "rank " + std::to_string(r) + " is not a rank of a group of " +
               std::to_string(g.size()));
    }
    if (seen[static_cast<std::size_t>(r)]) {
      fail(fn, MPI_ERR_RANK, "rank " + std::to_string(r) + " is listed twice");
    }
    seen[static_cast<std::size_t>(r)] = true;
    out.push_back(g[static_cast<std::size_t>(r)]);
  }
  return out;
}

// The group ranks n triplets (first, last, stride) name, in order.
std::vector<int> expand_ranges(const char* fn, int n, int ranges[][3], int group_size) {
  if (n < 0) fail(fn, MPI_ERR_ARG, "negative number of ranges " + std::to_string(n));
  if (n > 0) check_arg(fn, ranges, "ranges");
  std::vector<int> ranks;
  for (int i = 0; i < n; ++i) {
    const int first = ranges[i][0], last = ranges[i][1], stride = ranges[i][2];
    const std::string which = "range " + std::to_string(i) + " (" + std::to_string(first) + ", " +
                              std::to_string(last) + ", " + std::to_string(stride) + ")";
    if (stride == 0) fail(fn, MPI_ERR_ARG, which + ": the stride is 0");
    for (int end : {first, last}) {
      if (end < 0 || end >= group_size) {
        fail(fn, MPI_ERR_RANK,
             which + ": " + std::to_string(end) + " is not a rank of a group of " +
                 std::to_string(group_size));
      }
    }
    for (long long r = first; stride > 0 ? r <= last : r >= last; r += stride) {
      ranks.push_back(static_cast<int>(r));
    }
  }
  return ranks;
}

// The members of g not among `excluded` (group ranks, checked as pick does), in order.
std::vector<int> exclude(const char* fn, const std::vector<int>& g, const std::vector<int>& excluded) {
  pick(fn, g, excluded);
  std::vector<bool> out(g.size(), false);
  for (int r : excluded) out[static_cast<std::size_t>(r)] = true;
  std::vector<int> kept;
  for (std::size_t i = 0; i < g.size(); ++i) {
    if (!out[i]) kept.push_back(g[i]);
  }
  return kept;
}

using GroupMaker = std::vector<int> (*)(const std::vector<int>&, const std::vector<int>&);

int group_of_two(const char* fn, MPI_Group group1, MPI_Group group2, MPI_Group* newgroup,
                 GroupMaker make) {
  return mpi_call(MPI_COMM_NULL, [&] {
    RankState& s = session_state(fn);
    const std::vector<int> a = group_or_fail(fn, s, group1).members;
    const std::vector<int> b = group_or_fail(fn, s, group2).members;
    check_arg(fn, newgroup, "newgroup");
    *newgroup = add_group(s, make(a, b));
    return MPI_SUCCESS;
  });
}

// Sets attribute `keyval` of object `handle` (its attributes `of`), the value it replaces
// deleted first.
template <class Of>
void set_attribute(const char* fn, RankState& s, int handle, Of of, int keyval, void* value) {
  if (auto it = of(s).find(keyval); it != of(s).end()) {
    void* old = it->second;
    of(s).erase(it);
    delete_attribute(fn, s, handle, keyval, old);
  }
  of(s)[keyval] = value;
}

// Deletes attribute `keyval` of object `handle`, if it is set.
template <class Of>
void delete_attribute_of(const char* fn, RankState& s, int handle, Of of, int keyval) {
  auto it = of(s).find(keyval);
  if (it == of(s).end()) return;
  void* value = it->second;
  of(s).erase(it);
  delete_attribute(fn, s, handle, keyval, value);
}

// Whether attribute `keyval` is set in `attributes`; its value to *attribute_val.
int find_attribute(const std::map<int, void*>& attributes, int keyval, void* attribute_val) {
  auto it = attributes.find(keyval);
  if (it == attributes.end()) return 0;
  *static_cast<void**>(attribute_val) = it->second;
  return 1;
}

int set_attr(const char* fn, MPI_Comm comm, int keyval, void* value) {
  return mpi_call(comm, [&] {
    RankState& s = session_state(fn);
    comm_or_fail(fn, s, comm);
    user_keyval_or_fail(fn, s, keyval);
    set_attribute(fn, s, comm, CommAttributes{comm}, keyval, value);
    return MPI_SUCCESS;
  });
}

int get_attr(const char* fn, MPI_Comm comm, int keyval, void* attribute_val, int* flag) {
  return mpi_call(comm, [&] {
    RankState& s = session_state(fn);
    const CommEntry& c = comm_or_fail(fn, s, comm);
    check_arg(fn, attribute_val, "attribute_val");
    check_arg(fn, flag, "flag");
    void** out = static_cast<void**>(attribute_val);
    PredefinedAttributes& a = s.attributes;
    switch (keyval) {
      case MPI_TAG_UB: *out = &a.tag_ub; break;
      case MPI_HOST: *out = &a.host; break;
      case MPI_IO: *out = &a.io; break;
      case MPI_WTIME_IS_GLOBAL: *out = &a.wtime_is_global; break;
      case MPI_UNIVERSE_SIZE: *out = &a.universe_size; break;
      case MPI_LASTUSEDCODE: *out = &a.lastusedcode; break;
      case MPI_APPNUM: *out = &a.appnum; break;
      default: {
        user_keyval_or_fail(fn, s, keyval);
        *flag = find_attribute(c.attributes, keyval, attribute_val);
        return MPI_SUCCESS;
      }
    }
    *flag = 1;
    return MPI_SUCCESS;
  });
}

int delete_attr(const char* fn, MPI_Comm comm, int keyval) {
  return mpi_call(comm, [&] {
    RankState& s = session_state(fn);
    comm_or_fail(fn, s, comm);
    user_keyval_or_fail(fn, s, keyval);
    delete_attribute_of(fn, s, comm, CommAttributes{comm}, keyval);
    return MPI_SUCCESS;
  });
}

int create_keyval(const char* fn, MPI_Comm_copy_attr_function* copy,
                  MPI_Comm_delete_attr_function* remove, int* keyval, void* extra_state,
                  bool for_types = false) {
  return mpi_call(MPI_COMM_NULL, [&] {
    RankState& s = session_state(fn);
    check_arg(fn, keyval, "keyval");
    s.keyvals.push_back(KeyvalEntry{copy, remove, extra_state, false, for_types});
    *keyval = kFirstKeyval + static_cast<int>(s.keyvals.size()) - 1;
    return MPI_SUCCESS;
  });
}

int free_keyval(const char* fn, int* keyval, bool for_types = false) {
  return mpi_call(MPI_COMM_NULL, [&] {
    RankState& s = session_state(fn);
    check_arg(fn, keyval, "keyval");
    user_keyval_or_fail(fn, s, *keyval, for_types);
    // Attributes of the key that are still set keep their callbacks until they go.
    s.keyvals[static_cast<std::size_t>(*keyval - kFirstKeyval)].freed = true;
    *keyval = MPI_KEYVAL_INVALID;
    return MPI_SUCCESS;
  });
}

// A datatype's attribute call: the datatype live (predefined or derived) and the keyval a
// datatype's.
template <class Body>
int type_attr_call(const char* fn, MPI_Datatype type, int keyval, Body&& body) {
  return mpi_call(MPI_COMM_SELF, [&] {
    RankState& s = session_state(fn);
    any_typemap(fn, s, type);
    user_keyval_or_fail(fn, s, keyval, true);
    body(s);
    return MPI_SUCCESS;
  });
}

}  // namespace

namespace vmc::mpi {

void copy_type_attributes(const char* fn, RankState& s, MPI_Datatype from, MPI_Datatype to,
                          const std::function<void()>& undo) {
  if (s.type_attributes.find(from) == s.type_attributes.end()) return;
  copy_attributes(fn, s, from, to, TypeAttributes{from}, TypeAttributes{to}, undo);
}

void delete_type_attributes(const char* fn, RankState& s, MPI_Datatype type) {
  if (s.type_attributes.find(type) == s.type_attributes.end()) return;
  delete_attributes(fn, s, type, TypeAttributes{type});
  s.type_attributes.erase(type);
}

}  // namespace vmc::mpi

extern "C" {

// --- communicators -------------------------------------------------------------------------

int MPI_Comm_rank(MPI_Comm comm, int* rank) {
  const char* fn = "MPI_Comm_rank";
  return mpi_call(comm, [&] {
    RankState& s = session_state(fn);
    const CommEntry& c = comm_or_fail(fn, s, comm);
    check_arg(fn, rank, "rank");
    *rank = c.comm.rank();
    return MPI_SUCCESS;
  });
}

int MPI_Comm_size(MPI_Comm comm, int* size) {
  const char* fn = "MPI_Comm_size";
  return mpi_call(comm, [&] {
    RankState& s = session_state(fn);
    const CommEntry& c = comm_or_fail(fn, s, comm);
    check_arg(fn, size, "size");
    *size = c.comm.size();
    return MPI_SUCCESS;
  });
}

int MPI_Comm_dup(MPI_Comm comm, MPI_Comm* newcomm) {
  return mpi_call(comm, [&] { return dup("MPI_Comm_dup", comm, newcomm); });
}

// The info's hints are not read (vmc takes none); MPI_Comm_get_info returns them.
int MPI_Comm_dup_with_info(MPI_Comm comm, MPI_Info info, MPI_Comm* newcomm) {
  return mpi_call(comm, [&] { return dup("MPI_Comm_dup_with_info", comm, newcomm, &info); });
}

int MPI_Comm_split(MPI_Comm comm, int color, int key, MPI_Comm* newcomm) {
  const char* fn = "MPI_Comm_split";
  return mpi_call(comm, [&] {
    RankState& s = session_state(fn);
    comm_or_fail(fn, s, comm);
    check_arg(fn, newcomm, "newcomm");
    if (color < 0 && color != MPI_UNDEFINED) {
      fail(fn, MPI_ERR_ARG,
           "color " + std::to_string(color) + " is negative (MPI_UNDEFINED joins no group)");
    }
    return split(fn, s, comm, color == MPI_UNDEFINED ? -1 : color, key, newcomm,
                 std::string(fn) + "(color " +
                     (color == MPI_UNDEFINED ? std::string("MPI_UNDEFINED")
                                             : std::to_string(color)) +
                     ", key " + std::to_string(key) + ", " + comm_label(s, comm) + ")");
  });
}

// MPI_COMM_TYPE_SHARED: a node of vmc's machine is a node of a distributed-memory machine, so
// the ranks that share memory with this one are itself alone. The hardware and resource types
// of MPI-4 find no finer level to split by: MPI_COMM_NULL.
int MPI_Comm_split_type(MPI_Comm comm, int split_type, int key, MPI_Info info,
                        MPI_Comm* newcomm) {
  const char* fn = "MPI_Comm_split_type";
  return mpi_call(comm, [&] {
    RankState& s = session_state(fn);
    const CommEntry& c = comm_or_fail(fn, s, comm);
    check_arg(fn, newcomm, "newcomm");
    info_entries(fn, s, info);  // checked; no hint is read
    if (c.inter != nullptr) {
      fail(fn, MPI_ERR_COMM, comm_label(s, comm) + " is an intercommunicator");
    }
    int color = -1;
    switch (split_type) {
      case MPI_COMM_TYPE_SHARED: color = c.comm.world_rank(c.comm.rank()); break;
      case MPI_UNDEFINED:
      case MPI_COMM_TYPE_HW_GUIDED:
      case MPI_COMM_TYPE_HW_UNGUIDED:
      case MPI_COMM_TYPE_RESOURCE_GUIDED: break;
      default:
        fail(fn, MPI_ERR_ARG,
             "split_type " + std::to_string(split_type) +
                 " is none of MPI_COMM_TYPE_SHARED, _HW_GUIDED, _HW_UNGUIDED, "
                 "_RESOURCE_GUIDED and MPI_UNDEFINED");
    }
    return split(fn, s, comm, color, key, newcomm,
                 std::string(fn) + "(type " + std::to_string(split_type) + ", key " +
                     std::to_string(key) + ", " + comm_label(s, comm) + ")");
  });
}

// Every rank of `comm` calls; the ranks of one group form a communicator, ranked as the group
// ranks them (groups of different ranks must be the same or disjoint).
int MPI_Comm_create(MPI_Comm comm, MPI_Group group, MPI_Comm* newcomm) {
  const char* fn = "MPI_Comm_create";
  return mpi_call(comm, [&] {
    RankState& s = session_state(fn);
    const CommEntry& c = comm_or_fail(fn, s, comm);
    const std::vector<int> members = group_or_fail(fn, s, group).members;
    check_arg(fn, newcomm, "newcomm");
    if (c.inter != nullptr) {
      const CallContext context(std::string(fn) + "(" + comm_label(s, comm) + ")");
      *newcomm = create_inter(fn, s, comm, members);
      return MPI_SUCCESS;
    }
    const std::vector<int> ranks = comm_ranks_of(fn, c.comm, members);
    const int me = index_of(members, c.comm.world_rank(c.comm.rank()));
    // The colour of a group: the parent rank of its first member.
    const int color = me >= 0 ? ranks.front() : -1;
    return split(fn, s, comm, color, me, newcomm,
                 std::string(fn) + "(group of " + std::to_string(members.size()) + ", " +
                     comm_label(s, comm) + ")");
  });
}

// Only the group's members call (a rank outside it gets MPI_COMM_NULL at once).
int MPI_Comm_create_group(MPI_Comm comm, MPI_Group group, int tag, MPI_Comm* newcomm) {
  const char* fn = "MPI_Comm_create_group";
  return mpi_call(comm, [&] {
    RankState& s = session_state(fn);
    const CommEntry& c = comm_or_fail(fn, s, comm);
    const std::vector<int> members = group_or_fail(fn, s, group).members;
    check_arg(fn, newcomm, "newcomm");
    if (tag < 0) fail(fn, MPI_ERR_TAG, "negative tag " + std::to_string(tag));
    if (c.inter != nullptr) {
      fail(fn, MPI_ERR_COMM, comm_label(s, comm) + " is an intercommunicator");
    }
    const std::vector<int> ranks = comm_ranks_of(fn, c.comm, members);
    if (index_of(members, c.comm.world_rank(c.comm.rank())) < 0) {
      *newcomm = MPI_COMM_NULL;
      return MPI_SUCCESS;
    }
    const MPI_Errhandler errhandler = c.errhandler;
    Comm made = constructed(fn, [&] { return c.comm.create_group(ranks, tag); });
    *newcomm = add_comm(s, std::move(made), errhandler);
    return MPI_SUCCESS;
  });
}

int MPI_Comm_free(MPI_Comm* comm) {
  const char* fn = "MPI_Comm_free";
  return mpi_call(comm != nullptr ? *comm : MPI_COMM_NULL, [&] {
    RankState& s = session_state(fn);
    check_arg(fn, comm, "comm");
    comm_or_fail(fn, s, *comm);
    if (*comm == MPI_COMM_WORLD || *comm == MPI_COMM_SELF) {
      fail(fn, MPI_ERR_COMM, comm_label(s, *comm) + " cannot be freed");
    }
    // A delete callback may make communicators (the table may move): look the entry up anew.
    const std::size_t at = static_cast<std::size_t>(*comm);
    delete_attributes(fn, s, *comm, CommAttributes{*comm});
    if (s.comms[at].inter != nullptr) free_inter(s, s.comms[at]);
    s.comms[at] = CommEntry{.freed = true};
    *comm = MPI_COMM_NULL;
    return MPI_SUCCESS;
  });
}

int MPI_Comm_compare(MPI_Comm comm1, MPI_Comm comm2, int* result) {
  const char* fn = "MPI_Comm_compare";
  return mpi_call(comm1, [&] {
    RankState& s = session_state(fn);
    const CommEntry& ea = comm_or_fail(fn, s, comm1);
    const CommEntry& eb = comm_or_fail(fn, s, comm2);
    const Comm& a = ea.comm;
    const Comm& b = eb.comm;
    check_arg(fn, result, "result");
    if (comm1 == comm2 || a.id() == b.id()) {
      *result = MPI_IDENT;
    } else if (ea.inter != nullptr || eb.inter != nullptr) {
      *result = compare_inter(ea, eb);
    } else {
      const int m = compare_members(a.members(), b.members());
      *result = m == MPI_IDENT ? MPI_CONGRUENT : m;
    }
    return MPI_SUCCESS;
  });
}

int MPI_Comm_set_name(MPI_Comm comm, const char* comm_name) {
  const char* fn = "MPI_Comm_set_name";
  return mpi_call(comm, [&] {
    RankState& s = session_state(fn);
    CommEntry& c = comm_or_fail(fn, s, comm);
    check_arg(fn, comm_name, "comm_name");
    c.name.assign(comm_name, strnlen(comm_name, MPI_MAX_OBJECT_NAME - 1));
    return MPI_SUCCESS;
  });
}

int MPI_Comm_get_name(MPI_Comm comm, char* comm_name, int* resultlen) {
  const char* fn = "MPI_Comm_get_name";
  return mpi_call(comm, [&] {
    RankState& s = session_state(fn);
    const CommEntry& c = comm_or_fail(fn, s, comm);
    check_arg(fn, comm_name, "comm_name");
    check_arg(fn, resultlen, "resultlen");
    std::memcpy(comm_name, c.name.c_str(), c.name.size() + 1);
    *resultlen = static_cast<int>(c.name.size());
    return MPI_SUCCESS;
  });
}

int MPI_Comm_test_inter(MPI_Comm comm, int* flag) {
  const char* fn = "MPI_Comm_test_inter";
  return mpi_call(comm, [&] {
    RankState& s = session_state(fn);
    const CommEntry& c = comm_or_fail(fn, s, comm);
    check_arg(fn, flag, "flag");
    *flag = c.inter != nullptr ? 1 : 0;
    return MPI_SUCCESS;
  });
}

// --- attributes ----------------------------------------------------------------------------

int MPI_Comm_create_keyval(MPI_Comm_copy_attr_function* comm_copy_attr_fn,
                           MPI_Comm_delete_attr_function* comm_delete_attr_fn, int* comm_keyval,
                           void* extra_state) {
  return create_keyval("MPI_Comm_create_keyval", comm_copy_attr_fn, comm_delete_attr_fn,
                       comm_keyval, extra_state);
}

int MPI_Comm_free_keyval(int* comm_keyval) {
  return free_keyval("MPI_Comm_free_keyval", comm_keyval);
}

int MPI_Comm_set_attr(MPI_Comm comm, int comm_keyval, void* attribute_val) {
  return set_attr("MPI_Comm_set_attr", comm, comm_keyval, attribute_val);
}

int MPI_Comm_get_attr(MPI_Comm comm, int comm_keyval, void* attribute_val, int* flag) {
  return get_attr("MPI_Comm_get_attr", comm, comm_keyval, attribute_val, flag);
}

int MPI_Comm_delete_attr(MPI_Comm comm, int comm_keyval) {
  return delete_attr("MPI_Comm_delete_attr", comm, comm_keyval);
}

int MPI_Type_create_keyval(MPI_Type_copy_attr_function* type_copy_attr_fn,
                           MPI_Type_delete_attr_function* type_delete_attr_fn, int* type_keyval,
                           void* extra_state) {
  return create_keyval("MPI_Type_create_keyval", type_copy_attr_fn, type_delete_attr_fn,
                       type_keyval, extra_state, true);
}

int MPI_Type_free_keyval(int* type_keyval) {
  return free_keyval("MPI_Type_free_keyval", type_keyval, true);
}

int MPI_Type_set_attr(MPI_Datatype datatype, int type_keyval, void* attribute_val) {
  const char* fn = "MPI_Type_set_attr";
  return type_attr_call(fn, datatype, type_keyval, [&](RankState& s) {
    set_attribute(fn, s, datatype, TypeAttributes{datatype}, type_keyval, attribute_val);
  });
}

int MPI_Type_get_attr(MPI_Datatype datatype, int type_keyval, void* attribute_val, int* flag) {
  const char* fn = "MPI_Type_get_attr";
  return type_attr_call(fn, datatype, type_keyval, [&](RankState& s) {
    check_arg(fn, attribute_val, "attribute_val");
    check_arg(fn, flag, "flag");
    auto it = s.type_attributes.find(datatype);
    *flag = it == s.type_attributes.end() ? 0
                                          : find_attribute(it->second, type_keyval, attribute_val);
  });
}

int MPI_Type_delete_attr(MPI_Datatype datatype, int type_keyval) {
  const char* fn = "MPI_Type_delete_attr";
  return type_attr_call(fn, datatype, type_keyval, [&](RankState& s) {
    delete_attribute_of(fn, s, datatype, TypeAttributes{datatype}, type_keyval);
  });
}

int MPI_Keyval_create(MPI_Copy_function* copy_fn, MPI_Delete_function* delete_fn, int* keyval,
                      void* extra_state) {
  return create_keyval("MPI_Keyval_create", copy_fn, delete_fn, keyval, extra_state);
}

int MPI_Keyval_free(int* keyval) { return free_keyval("MPI_Keyval_free", keyval); }

int MPI_Attr_put(MPI_Comm comm, int keyval, void* attribute_val) {
  return set_attr("MPI_Attr_put", comm, keyval, attribute_val);
}

int MPI_Attr_get(MPI_Comm comm, int keyval, void* attribute_val, int* flag) {
  return get_attr("MPI_Attr_get", comm, keyval, attribute_val, flag);
}

int MPI_Attr_delete(MPI_Comm comm, int keyval) {
  return delete_attr("MPI_Attr_delete", comm, keyval);
}

// --- groups --------------------------------------------------------------------------------

int MPI_Comm_group(MPI_Comm comm, MPI_Group* group) {
  const char* fn = "MPI_Comm_group";
  return mpi_call(comm, [&] {
    RankState& s = session_state(fn);
    const std::span<const int> members = comm_or_fail(fn, s, comm).comm.members();
    check_arg(fn, group, "group");
    *group = add_group(s, std::vector<int>(members.begin(), members.end()));
    return MPI_SUCCESS;
  });
}

int MPI_Group_size(MPI_Group group, int* size) {
  const char* fn = "MPI_Group_size";
  return mpi_call(MPI_COMM_NULL, [&] {
    RankState& s = session_state(fn);
    const GroupEntry& g = group_or_fail(fn, s, group);
    check_arg(fn, size, "size");
    *size = static_cast<int>(g.members.size());
    return MPI_SUCCESS;
  });
}

int MPI_Group_rank(MPI_Group group, int* rank) {
  const char* fn = "MPI_Group_rank";
  return mpi_call(MPI_COMM_NULL, [&] {
    Node& n = rank_in_session(fn);
    const GroupEntry& g = group_or_fail(fn, rank_state(n), group);
    check_arg(fn, rank, "rank");
    const int at = index_of(g.members, n.rank());
    *rank = at >= 0 ? at : MPI_UNDEFINED;
    return MPI_SUCCESS;
  });
}

int MPI_Group_incl(MPI_Group group, int n, const int ranks[], MPI_Group* newgroup) {
  const char* fn = "MPI_Group_incl";
  return mpi_call(MPI_COMM_NULL, [&] {
    RankState& s = session_state(fn);
    const std::vector<int> g = group_or_fail(fn, s, group).members;
    check_arg(fn, newgroup, "newgroup");
    if (n < 0 || n > static_cast<int>(g.size())) {
      fail(fn, MPI_ERR_ARG,
           "n = " + std::to_string(n) + " for a group of " + std::to_string(g.size()));
    }
    if (n > 0) check_arg(fn, ranks, "ranks");
    *newgroup = add_group(s, pick(fn, g, std::vector<int>(ranks, ranks + n)));
    return MPI_SUCCESS;
  });
}

int MPI_Group_excl(MPI_Group group, int n, const int ranks[], MPI_Group* newgroup) {
  const char* fn = "MPI_Group_excl";
  return mpi_call(MPI_COMM_NULL, [&] {
    RankState& s = session_state(fn);
    const std::vector<int> g = group_or_fail(fn, s, group).members;
    check_arg(fn, newgroup, "newgroup");
    if (n < 0 || n > static_cast<int>(g.size())) {
      fail(fn, MPI_ERR_ARG,
           "n = " + std::to_string(n) + " for a group of " + std::to_string(g.size()));
    }
    if (n > 0) check_arg(fn, ranks, "ranks");
    *newgroup = add_group(s, exclude(fn, g, std::vector<int>(ranks, ranks + n)));
    return MPI_SUCCESS;
  });
}

int MPI_Group_range_incl(MPI_Group group, int n, int ranges[][3], MPI_Group* newgroup) {
  const char* fn = "MPI_Group_range_incl";
  return mpi_call(MPI_COMM_NULL, [&] {
    RankState& s = session_state(fn);
    const std::vector<int> g = group_or_fail(fn, s, group).members;
    check_arg(fn, newgroup, "newgroup");
    const std::vector<int> ranks = expand_ranges(fn, n, ranges, static_cast<int>(g.size()));
    *newgroup = add_group(s, pick(fn, g, ranks));
    return MPI_SUCCESS;
  });
}

int MPI_Group_range_excl(MPI_Group group, int n, int ranges[][3], MPI_Group* newgroup) {
  const char* fn = "MPI_Group_range_excl";
  return mpi_call(MPI_COMM_NULL, [&] {
    RankState& s = session_state(fn);
    const std::vector<int> g = group_or_fail(fn, s, group).members;
    check_arg(fn, newgroup, "newgroup");
    const std::vector<int> ranks = expand_ranges(fn, n, ranges, static_cast<int>(g.size()));
    *newgroup = add_group(s, exclude(fn, g, ranks));
    return MPI_SUCCESS;
  });
}

// Union: the first group's members, then the second's that are not in the first.
int MPI_Group_union(MPI_Group group1, MPI_Group group2, MPI_Group* newgroup) {
  return group_of_two("MPI_Group_union", group1, group2, newgroup,
                      [](const std::vector<int>& a, const std::vector<int>& b) {
                        std::vector<int> out = a;
                        for (int w : b) {
                          if (index_of(a, w) < 0) out.push_back(w);
                        }
                        return out;
                      });
}

// Intersection: the first group's members that are in the second, in the first's order.
int MPI_Group_intersection(MPI_Group group1, MPI_Group group2, MPI_Group* newgroup) {
  return group_of_two("MPI_Group_intersection", group1, group2, newgroup,
                      [](const std::vector<int>& a, const std::vector<int>& b) {
                        std::vector<int> out;
                        for (int w : a) {
                          if (index_of(b, w) >= 0) out.push_back(w);
                        }
                        return out;
                      });
}

// Difference: the first group's members that are not in the second, in the first's order.
int MPI_Group_difference(MPI_Group group1, MPI_Group group2, MPI_Group* newgroup) {
  return group_of_two("MPI_Group_difference", group1, group2, newgroup,
                      [](const std::vector<int>& a, const std::vector<int>& b) {
                        std::vector<int> out;
                        for (int w : a) {
                          if (index_of(b, w) < 0) out.push_back(w);
                        }
                        return out;
                      });
}

int MPI_Group_translate_ranks(MPI_Group group1, int n, const int ranks1[], MPI_Group group2,
                              int ranks2[]) {
  const char* fn = "MPI_Group_translate_ranks";
  return mpi_call(MPI_COMM_NULL, [&] {
    RankState& s = session_state(fn);
    const std::vector<int>& a = group_or_fail(fn, s, group1).members;
    const std::vector<int>& b = group_or_fail(fn, s, group2).members;
    if (n < 0) fail(fn, MPI_ERR_ARG, "negative n " + std::to_string(n));
    if (n > 0) {
      check_arg(fn, ranks1, "ranks1");
      check_arg(fn, ranks2, "ranks2");
    }
    for (int i = 0; i < n; ++i) {
      const int r = ranks1[i];
      if (r == MPI_PROC_NULL) continue;
      if (r < 0 || r >= static_cast<int>(a.size())) {
        fail(fn, MPI_ERR_RANK,
             "ranks1[" + std::to_string(i) + "] = " + std::to_string(r) +
                 " is not a rank of a group of " + std::to_string(a.size()));
      }
    }
    for (int i = 0; i < n; ++i) {
      const int r = ranks1[i];
      if (r == MPI_PROC_NULL) {
        ranks2[i] = MPI_PROC_NULL;
      } else {
        const int at = index_of(b, a[static_cast<std::size_t>(r)]);
        ranks2[i] = at >= 0 ? at : MPI_UNDEFINED;
      }
    }
    return MPI_SUCCESS;
  });
}

int MPI_Group_compare(MPI_Group group1, MPI_Group group2, int* result) {
  const char* fn = "MPI_Group_compare";
  return mpi_call(MPI_COMM_NULL, [&] {
    RankState& s = session_state(fn);
    const std::vector<int>& a = group_or_fail(fn, s, group1).members;
    const std::vector<int>& b = group_or_fail(fn, s, group2).members;
    check_arg(fn, result, "result");
    *result = compare_members(a, b);
    return MPI_SUCCESS;
  });
}

int MPI_Group_free(MPI_Group* group) {
  const char* fn = "MPI_Group_free";
  return mpi_call(MPI_COMM_NULL, [&] {
    RankState& s = session_state(fn);
    check_arg(fn, group, "group");
    group_or_fail(fn, s, *group);
    // MPI_GROUP_EMPTY, which several calls return, may be freed like any group; it stays.
    if (*group != MPI_GROUP_EMPTY) s.groups[static_cast<std::size_t>(*group)] = GroupEntry{{}, true};
    *group = MPI_GROUP_NULL;
    return MPI_SUCCESS;
  });
}

}  // extern "C"
