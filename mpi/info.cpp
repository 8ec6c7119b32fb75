// Info objects (MPI-4.1 section 10): MPI_Info_create, _create_env, _dup, _free, _set,
// _get_string, _delete, _get_nkeys, _get_nthkey, and the deprecated MPI_Info_get and
// _get_valuelen; MPI_INFO_NULL and MPI_INFO_ENV; MPI_Comm_set_info and _get_info.
//
// An info is a list of (key, value) strings, in the order its keys were first set (what
// MPI_Info_get_nthkey counts by). Keys and values are case sensitive; a key is 1 to
// MPI_MAX_INFO_KEY characters (MPI_ERR_INFO_KEY), a value 1 to MPI_MAX_INFO_VAL
// (MPI_ERR_INFO_VALUE); deleting a key that is not there is MPI_ERR_INFO_NOKEY; a handle that
// names no live info is MPI_ERR_INFO. Errors go to MPI_COMM_SELF's handler (no communicator).
//
// MPI_INFO_ENV holds what vmc knows of the rank's start: maxprocs (the ranks of the job),
// thread_level (what MPI_Init_thread provided) and host (MPI_Get_processor_name's name). It
// cannot be changed or freed. vmc reads no hint: MPI_Comm_set_info keeps every hint as given,
// and MPI_Comm_get_info returns them (the standard lets an implementation drop the hints it
// ignores; keeping them lets a program read back what it set). MPI_Comm_dup copies them,
// MPI_Comm_dup_with_info takes the info given.
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "mpi/state.hpp"

using namespace vmc;
using namespace vmc::mpi;

namespace {

using Entries = std::vector<std::pair<std::string, std::string>>;

const char* thread_level_name(int level) {
  switch (level) {
    case MPI_THREAD_SINGLE: return "MPI_THREAD_SINGLE";
    case MPI_THREAD_FUNNELED: return "MPI_THREAD_FUNNELED";
    case MPI_THREAD_SERIALIZED: return "MPI_THREAD_SERIALIZED";
    default: return "MPI_THREAD_MULTIPLE";
  }
}

// MPI_INFO_ENV's entries on the calling rank.
Entries env_entries(const Node& n, const RankState& s) {
  return {{"maxprocs", std::to_string(n.size())},
          {"thread_level", thread_level_name(s.thread_level)},
          {"host", "vmc-node-" + std::to_string(n.rank())}};
}

// The info `info` names, or MPI_ERR_INFO. MPI_INFO_ENV is made afresh into `env` (it is
// read-only: `writing` refuses it).
Entries& info_or_fail(const char* fn, RankState& s, MPI_Info info, Entries& env,
                      bool writing = false) {
  if (info == MPI_INFO_NULL) fail(fn, MPI_ERR_INFO, "MPI_INFO_NULL is not an info object");
  if (info == MPI_INFO_ENV) {
    if (writing) fail(fn, MPI_ERR_INFO, "MPI_INFO_ENV cannot be changed");
    env = env_entries(*this_node(), s);
    return env;
  }
  const long index = static_cast<long>(info) - kFirstInfo;
  if (index < 0 || index >= static_cast<long>(s.infos.size())) {
    fail(fn, MPI_ERR_INFO, "invalid info " + std::to_string(info) + " (no info of this rank)");
  }
  InfoEntry& e = s.infos[static_cast<std::size_t>(index)];
  if (e.freed) {
    fail(fn, MPI_ERR_INFO, "info " + std::to_string(info) + " was freed (MPI_Info_free)");
  }
  return e.entries;
}

MPI_Info add_info(RankState& s, Entries entries) {
  s.infos.push_back(InfoEntry{std::move(entries)});
  return static_cast<MPI_Info>(s.infos.size() - 1) + kFirstInfo;
}

// A key argument: not null, 1 to MPI_MAX_INFO_KEY characters (MPI_ERR_INFO_KEY).
std::string key_or_fail(const char* fn, const char* key) {
  check_arg(fn, key, "key");
  const std::size_t n = strnlen(key, MPI_MAX_INFO_KEY + 1);
  if (n == 0) fail(fn, MPI_ERR_INFO_KEY, "empty key");
  if (n > MPI_MAX_INFO_KEY) {
    fail(fn, MPI_ERR_INFO_KEY,
         "key \"" + std::string(key, 40) + "...\" is longer than MPI_MAX_INFO_KEY (" +
             std::to_string(MPI_MAX_INFO_KEY) + ")");
  }
  return std::string(key, n);
}

const std::string* find(const Entries& e, const std::string& key) {
  for (const auto& [k, v] : e) {
    if (k == key) return &v;
  }
  return nullptr;
}

// Copies `value` into `out` of `room` bytes, the terminating null included, truncated to fit.
void copy_out(const std::string& value, char* out, std::size_t room) {
  if (room == 0) return;
  const std::size_t n = std::min(value.size(), room - 1);
  std::memcpy(out, value.data(), n);
  out[n] = '\0';
}

template <class Body>
int info_call(const char* fn, Body&& body) {
  return mpi_call(MPI_COMM_NULL, [&] {
    RankState& s = session_state(fn);
    return body(s);
  });
}

}  // namespace

namespace vmc::mpi {

// The entries of `info` for a call that takes one (MPI_INFO_NULL: none).
std::vector<std::pair<std::string, std::string>> info_entries(const char* fn, RankState& s,
                                                              MPI_Info info) {
  if (info == MPI_INFO_NULL) return {};
  Entries env;
  return info_or_fail(fn, s, info, env);
}

}  // namespace vmc::mpi

extern "C" {

int MPI_Info_create(MPI_Info* info) {
  const char* fn = "MPI_Info_create";
  return info_call(fn, [&](RankState& s) {
    check_arg(fn, info, "info");
    *info = add_info(s, {});
    return MPI_SUCCESS;
  });
}

int MPI_Info_create_env(int argc, char* argv[], MPI_Info* info) {
  const char* fn = "MPI_Info_create_env";
  return mpi_call(MPI_COMM_NULL, [&] {
    // MPI-4.1 allows this call before MPI_Init; vmc's state is the session's, so not here.
    RankState& s = session_state(fn);
    check_arg(fn, info, "info");
    if (argc < 0) fail(fn, MPI_ERR_ARG, "negative argc " + std::to_string(argc));
    Entries e = env_entries(*this_node(), s);
    if (argc > 0 && argv != nullptr && argv[0] != nullptr) {
      e.emplace_back("command", argv[0]);
      std::string args;
      for (int i = 1; i < argc && argv[i] != nullptr; ++i) {
        if (i > 1) args += ' ';
        args += argv[i];
      }
      if (!args.empty()) e.emplace_back("argv", args);
    }
    *info = add_info(s, std::move(e));
    return MPI_SUCCESS;
  });
}

int MPI_Info_dup(MPI_Info info, MPI_Info* newinfo) {
  const char* fn = "MPI_Info_dup";
  return info_call(fn, [&](RankState& s) {
    Entries env;
    Entries copy = info_or_fail(fn, s, info, env);
    check_arg(fn, newinfo, "newinfo");
    *newinfo = add_info(s, std::move(copy));
    return MPI_SUCCESS;
  });
}

int MPI_Info_free(MPI_Info* info) {
  const char* fn = "MPI_Info_free";
  return info_call(fn, [&](RankState& s) {
    check_arg(fn, info, "info");
    Entries env;
    if (*info == MPI_INFO_ENV) fail(fn, MPI_ERR_INFO, "MPI_INFO_ENV cannot be freed");
    info_or_fail(fn, s, *info, env);
    s.infos[static_cast<std::size_t>(*info - kFirstInfo)] = InfoEntry{{}, true};
    *info = MPI_INFO_NULL;
    return MPI_SUCCESS;
  });
}

int MPI_Info_set(MPI_Info info, const char* key, const char* value) {
  const char* fn = "MPI_Info_set";
  return info_call(fn, [&](RankState& s) {
    Entries env;
    Entries& e = info_or_fail(fn, s, info, env, true);
    const std::string k = key_or_fail(fn, key);
    check_arg(fn, value, "value");
    const std::size_t n = strnlen(value, MPI_MAX_INFO_VAL + 1);
    if (n == 0) fail(fn, MPI_ERR_INFO_VALUE, "empty value of key \"" + k + "\"");
    if (n > MPI_MAX_INFO_VAL) {
      fail(fn, MPI_ERR_INFO_VALUE,
           "the value of key \"" + k + "\" is longer than MPI_MAX_INFO_VAL (" +
               std::to_string(MPI_MAX_INFO_VAL) + ")");
    }
    for (auto& [ek, ev] : e) {
      if (ek == k) {
        ev.assign(value, n);
        return MPI_SUCCESS;
      }
    }
    e.emplace_back(k, std::string(value, n));
    return MPI_SUCCESS;
  });
}

int MPI_Info_delete(MPI_Info info, const char* key) {
  const char* fn = "MPI_Info_delete";
  return info_call(fn, [&](RankState& s) {
    Entries env;
    Entries& e = info_or_fail(fn, s, info, env, true);
    const std::string k = key_or_fail(fn, key);
    for (auto it = e.begin(); it != e.end(); ++it) {
      if (it->first == k) {
        e.erase(it);
        return MPI_SUCCESS;
      }
    }
    fail(fn, MPI_ERR_INFO_NOKEY, "no key \"" + k + "\" in info " + std::to_string(info));
  });
}

// MPI-4's form: *buflen in, the room in value; out, the value's length plus one (the null).
// With *buflen 0 only the length is returned.
int MPI_Info_get_string(MPI_Info info, const char* key, int* buflen, char* value, int* flag) {
  const char* fn = "MPI_Info_get_string";
  return info_call(fn, [&](RankState& s) {
    Entries env;
    const Entries& e = info_or_fail(fn, s, info, env);
    const std::string k = key_or_fail(fn, key);
    check_arg(fn, buflen, "buflen");
    check_arg(fn, flag, "flag");
    if (*buflen < 0) fail(fn, MPI_ERR_ARG, "negative buflen " + std::to_string(*buflen));
    const std::string* v = find(e, k);
    *flag = v != nullptr ? 1 : 0;
    if (v == nullptr) return MPI_SUCCESS;
    if (*buflen > 0) {
      check_arg(fn, value, "value");
      copy_out(*v, value, static_cast<std::size_t>(*buflen));
    }
    *buflen = static_cast<int>(v->size()) + 1;
    return MPI_SUCCESS;
  });
}

// Deprecated (MPI-4.0): value must hold valuelen characters and the null.
int MPI_Info_get(MPI_Info info, const char* key, int valuelen, char* value, int* flag) {
  const char* fn = "MPI_Info_get";
  return info_call(fn, [&](RankState& s) {
    Entries env;
    const Entries& e = info_or_fail(fn, s, info, env);
    const std::string k = key_or_fail(fn, key);
    check_arg(fn, flag, "flag");
    if (valuelen < 0) fail(fn, MPI_ERR_ARG, "negative valuelen " + std::to_string(valuelen));
    const std::string* v = find(e, k);
    *flag = v != nullptr ? 1 : 0;
    if (v != nullptr) {
      check_arg(fn, value, "value");
      copy_out(*v, value, static_cast<std::size_t>(valuelen) + 1);
    }
    return MPI_SUCCESS;
  });
}

// Deprecated (MPI-4.0): the value's length, without the null.
int MPI_Info_get_valuelen(MPI_Info info, const char* key, int* valuelen, int* flag) {
  const char* fn = "MPI_Info_get_valuelen";
  return info_call(fn, [&](RankState& s) {
    Entries env;
    const Entries& e = info_or_fail(fn, s, info, env);
    const std::string k = key_or_fail(fn, key);
    check_arg(fn, valuelen, "valuelen");
    check_arg(fn, flag, "flag");
    const std::string* v = find(e, k);
    *flag = v != nullptr ? 1 : 0;
    if (v != nullptr) *valuelen = static_cast<int>(v->size());
    return MPI_SUCCESS;
  });
}

int MPI_Info_get_nkeys(MPI_Info info, int* nkeys) {
  const char* fn = "MPI_Info_get_nkeys";
  return info_call(fn, [&](RankState& s) {
    Entries env;
    const Entries& e = info_or_fail(fn, s, info, env);
    check_arg(fn, nkeys, "nkeys");
    *nkeys = static_cast<int>(e.size());
    return MPI_SUCCESS;
  });
}

// key must hold MPI_MAX_INFO_KEY characters and the null.
int MPI_Info_get_nthkey(MPI_Info info, int n, char* key) {
  const char* fn = "MPI_Info_get_nthkey";
  return info_call(fn, [&](RankState& s) {
    Entries env;
    const Entries& e = info_or_fail(fn, s, info, env);
    check_arg(fn, key, "key");
    if (n < 0 || n >= static_cast<int>(e.size())) {
      fail(fn, MPI_ERR_ARG,
           "n = " + std::to_string(n) + " for an info of " + std::to_string(e.size()) + " keys");
    }
    copy_out(e[static_cast<std::size_t>(n)].first, key, MPI_MAX_INFO_KEY + 1);
    return MPI_SUCCESS;
  });
}

int MPI_Comm_set_info(MPI_Comm comm, MPI_Info info) {
  const char* fn = "MPI_Comm_set_info";
  return mpi_call(comm, [&] {
    RankState& s = session_state(fn);
    comm_or_fail(fn, s, comm);
    Entries given = info_entries(fn, s, info);
    // Each key given replaces the one of the same name; the others stay (MPI-4.1 7.4.4).
    Entries& kept = s.comms[static_cast<std::size_t>(comm)].info;
    for (auto& [k, v] : given) {
      bool found = false;
      for (auto& [kk, vv] : kept) {
        if (kk == k) {
          vv = v;
          found = true;
        }
      }
      if (!found) kept.emplace_back(k, v);
    }
    return MPI_SUCCESS;
  });
}

int MPI_Comm_get_info(MPI_Comm comm, MPI_Info* info_used) {
  const char* fn = "MPI_Comm_get_info";
  return mpi_call(comm, [&] {
    RankState& s = session_state(fn);
    const CommEntry& c = comm_or_fail(fn, s, comm);
    check_arg(fn, info_used, "info_used");
    *info_used = add_info(s, c.info);
    return MPI_SUCCESS;
  });
}

}  // extern "C"
