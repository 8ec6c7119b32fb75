// vmc's table of the MPI-4.1 C functions (mpi/include/vmc_mpi_functions.h) holds every function
// once, in its place, and its lines say what mpi.h, mpi/unsupported.cpp and mpi/pmpi.cpp make
// of them: each line well formed, its arguments the names of its parameters, its communicator
// the first MPI_Comm parameter; the chapters in order, each sorted and as long as its heading
// says; and as many functions as MPI-4.1 has (the count the table's opening comment explains),
// so that a line lost or doubled in a merge fails here. The table of the MPI-1 functions
// MPI-3.0 removed (mpi/include/vmc_mpi_removed_functions.h) alike: those ten, none of them in
// MPI-4.1's table. Also vmc's table of predefined datatypes (mpi/datatypes.hpp) against
// mpi.h's handles.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "mpi/datatypes.hpp"
#include "mpi/include/mpi.h"

namespace {

// The C functions of MPI-4.1: 452 with int counts (the tool interface aside), their 159
// big-count _c variants and the 51 MPI_T_ functions.
constexpr int kMpi41Functions = 662;

// The table's lines counted by the preprocessor, as mpi.h and the definitions see them.
#define VMC_MPI_IMPLEMENTED(ret, name, params, args, comm) +1
#define VMC_MPI_UNSUPPORTED(ret, name, params, args, comm) +1
constexpr int kPreprocessedLines = 0
#include "mpi/include/vmc_mpi_functions.h"
    ;
#undef VMC_MPI_IMPLEMENTED
#undef VMC_MPI_UNSUPPORTED

#define VMC_MPI_IMPLEMENTED(ret, name, params, args, comm) +1
#define VMC_MPI_UNSUPPORTED(ret, name, params, args, comm)
constexpr int kImplemented = 0
#include "mpi/include/vmc_mpi_functions.h"
    ;
#undef VMC_MPI_IMPLEMENTED
#undef VMC_MPI_UNSUPPORTED

#define VMC_MPI_IMPLEMENTED(ret, name, params, args, comm) +1
#define VMC_MPI_UNSUPPORTED(ret, name, params, args, comm) +1
constexpr int kPreprocessedRemovedLines = 0
#include "mpi/include/vmc_mpi_removed_functions.h"
    ;
#undef VMC_MPI_IMPLEMENTED
#undef VMC_MPI_UNSUPPORTED

constexpr const char* kTable = VMC_SOURCE_DIR "/mpi/include/vmc_mpi_functions.h";
constexpr const char* kRemovedTable = VMC_SOURCE_DIR "/mpi/include/vmc_mpi_removed_functions.h";

struct Entry {
  int line = 0;
  bool implemented = false;
  std::string ret, name, params, args, comm;
  int chapter = 0;
};

struct Chapter {
  int number = 0;
  int declared = 0;  // the count its heading gives
  std::vector<std::string> names;
};

struct Table {
  std::vector<Entry> entries;
  std::vector<Chapter> chapters;
  std::vector<std::string> malformed;
};

std::string trim(const std::string& s) {
  const auto b = s.find_first_not_of(' ');
  if (b == std::string::npos) return "";
  return s.substr(b, s.find_last_not_of(' ') - b + 1);
}

std::vector<std::string> split_commas(const std::string& s) {
  std::vector<std::string> parts;
  if (trim(s).empty()) return parts;
  std::stringstream in(s);
  for (std::string part; std::getline(in, part, ',');) parts.push_back(trim(part));
  return parts;
}

// The name a parameter declares ("int ranges[][3]" -> "ranges"); empty for "void" and "...".
std::string parameter_name(const std::string& parameter) {
  if (parameter == "void" || parameter == "...") return "";
  static const std::regex name(R"((\w+)(\[[^\]]*\])*$)");
  std::smatch m;
  return std::regex_search(parameter, m, name) ? m[1].str() : "?";
}

Table read_table(const char* path = kTable) {
  Table t;
  std::ifstream in(path);
  EXPECT_TRUE(in) << "cannot read the table";
  static const std::regex entry(
      R"(^VMC_MPI_(IMPLEMENTED|UNSUPPORTED)\(([A-Za-z_][A-Za-z_0-9 ]*), (MPI_\w+), \(([^()]*)\), \(([^()]*)\), (\w+)\)$)");
  static const std::regex heading(R"(^/\* (\d+)\. [^(]+ \((\d+)\) \*/$)");
  std::smatch m;
  int number = 0;
  bool in_comment = false;
  for (std::string line; std::getline(in, line);) {
    ++number;
    if (in_comment || line.rfind("/*", 0) == 0) {
      if (std::regex_match(line, m, heading)) {
        t.chapters.push_back({std::stoi(m[1]), std::stoi(m[2]), {}});
        continue;
      }
      in_comment = line.find("*/") == std::string::npos;
      continue;
    }
    if (trim(line).empty()) continue;
    if (!std::regex_match(line, m, entry) || t.chapters.empty()) {
      t.malformed.push_back(std::to_string(number) + ": " + line);
      continue;
    }
    t.entries.push_back({number, m[1] == "IMPLEMENTED", m[2], m[3], m[4], m[5], m[6],
                         t.chapters.back().number});
    t.chapters.back().names.push_back(m[3]);
  }
  return t;
}

TEST(FunctionTable, HoldsEveryMpi41FunctionOnce) {
  const Table t = read_table();
  EXPECT_TRUE(t.malformed.empty()) << "lines that are neither a heading nor an entry:\n"
                                   << ::testing::PrintToString(t.malformed);
  EXPECT_EQ(static_cast<int>(t.entries.size()), kMpi41Functions)
      << "MPI-4.1 has " << kMpi41Functions << " C functions: a line is missing or one too many";
  EXPECT_EQ(kPreprocessedLines, static_cast<int>(t.entries.size()))
      << "the preprocessor sees another number of lines than the text holds";
  std::map<std::string, int> seen;
  for (const Entry& e : t.entries) {
    const auto [it, fresh] = seen.emplace(e.name, e.line);
    EXPECT_TRUE(fresh) << e.name << " on lines " << it->second << " and " << e.line;
  }
  int implemented = 0;
  for (const Entry& e : t.entries) implemented += e.implemented ? 1 : 0;
  EXPECT_EQ(implemented, kImplemented);
  EXPECT_GT(implemented, 0);
}

TEST(FunctionTable, KnowsTheFunctionsOfEachKind) {
  const Table t = read_table();
  std::set<std::string> names;
  int big_count = 0, tools = 0;
  for (const Entry& e : t.entries) {
    names.insert(e.name);
    big_count += e.name.size() > 2 && e.name.compare(e.name.size() - 2, 2, "_c") == 0;
    tools += e.name.rfind("MPI_T_", 0) == 0;
  }
  EXPECT_EQ(big_count, 159);
  EXPECT_EQ(tools, 51);
  // A few of each group the count rests on: MPI-4.1's additions, sessions, partitioned calls,
  // deprecated ones, conversions; and none of what MPI-3.0 removed.
  for (const char* name :
       {"MPI_Send", "MPI_Send_c", "MPI_Remove_error_class", "MPI_Status_get_source",
        "MPI_Type_get_value_index", "MPI_Request_get_status_some", "MPI_Buffer_iflush",
        "MPI_Session_detach_buffer_c", "MPI_Get_hw_resource_info", "MPI_Session_init",
        "MPI_Psend_init", "MPI_Pready_list", "MPI_Attr_get", "MPI_Info_get_valuelen",
        "MPI_Comm_c2f", "MPI_Status_f082f", "MPI_Pcontrol", "MPI_T_event_read", "MPI_Wtime",
        "MPI_File_iwrite_at_all_c", "MPI_Register_datarep_c", "MPI_Status_set_elements_c"}) {
    EXPECT_TRUE(names.count(name)) << name;
  }
  for (const char* name : {"MPI_Address", "MPI_Errhandler_set", "MPI_Type_extent",
                           "MPI_Type_struct", "MPI_Type_lb", "MPI_Sizeof", "MPI_DUP_FN"}) {
    EXPECT_FALSE(names.count(name)) << name << " is not an MPI-4.1 C function";
  }
}

TEST(FunctionTable, TheRemovedTableHoldsTheMpi1FunctionsMpi30Removed) {
  const Table t = read_table(kRemovedTable);
  EXPECT_TRUE(t.malformed.empty()) << ::testing::PrintToString(t.malformed);
  std::vector<std::string> names;
  for (const Entry& e : t.entries) names.push_back(e.name);
  EXPECT_EQ(names, (std::vector<std::string>{
                       "MPI_Address", "MPI_Errhandler_create", "MPI_Errhandler_get",
                       "MPI_Errhandler_set", "MPI_Type_extent", "MPI_Type_hindexed",
                       "MPI_Type_hvector", "MPI_Type_lb", "MPI_Type_struct", "MPI_Type_ub"}));
  EXPECT_EQ(kPreprocessedRemovedLines, static_cast<int>(t.entries.size()));
  ASSERT_EQ(t.chapters.size(), 1u);
  EXPECT_EQ(t.chapters[0].number, 17);
  EXPECT_EQ(t.chapters[0].declared, static_cast<int>(t.entries.size()));
  // Each is another name of a call vmc implements (the constructors of derived datatypes
  // among them), so each is implemented.
  for (const Entry& e : t.entries) EXPECT_TRUE(e.implemented) << e.name;
  std::set<std::string> current;
  for (const Entry& e : read_table().entries) current.insert(e.name);
  for (const std::string& name : names) EXPECT_FALSE(current.count(name)) << name;
}

// Both tables' entries.
std::vector<Entry> every_entry() {
  std::vector<Entry> all = read_table().entries;
  for (const Entry& e : read_table(kRemovedTable).entries) all.push_back(e);
  return all;
}

TEST(FunctionTable, ArgumentsAreTheParametersNames) {
  for (const Entry& e : every_entry()) {
    std::vector<std::string> expected;
    for (const std::string& p : split_commas(e.params)) {
      if (const std::string name = parameter_name(p); !name.empty()) expected.push_back(name);
    }
    EXPECT_EQ(split_commas(e.args), expected) << e.name << " (line " << e.line << ")";
  }
}

TEST(FunctionTable, TheCommunicatorIsTheFirstMpiCommParameter) {
  for (const Entry& e : every_entry()) {
    std::string first;
    for (const std::string& p : split_commas(e.params)) {
      if (p.rfind("MPI_Comm ", 0) == 0) {
        first = parameter_name(p);
        break;
      }
    }
    EXPECT_EQ(e.comm, first.empty() ? "MPI_COMM_NULL" : first)
        << e.name << " (line " << e.line << ")";
  }
}

TEST(FunctionTable, ChaptersInOrderEachSortedAndCounted) {
  const Table t = read_table();
  ASSERT_FALSE(t.chapters.empty());
  for (std::size_t i = 0; i < t.chapters.size(); ++i) {
    const Chapter& c = t.chapters[i];
    if (i > 0) {
      EXPECT_GT(c.number, t.chapters[i - 1].number) << "chapter " << c.number;
    }
    EXPECT_EQ(static_cast<int>(c.names.size()), c.declared) << "chapter " << c.number;
    const auto unsorted = std::is_sorted_until(c.names.begin(), c.names.end());
    EXPECT_TRUE(unsorted == c.names.end())
        << "chapter " << c.number << ": " << *unsorted << " is out of order";
  }
}

// Each predefined datatype's handle, by name.
struct NamedHandle {
  MPI_Datatype handle;
  const char* name;
};
#define VMC_NAMED(t) NamedHandle{t, #t}
constexpr NamedHandle kHandles[] = {
    VMC_NAMED(MPI_CHAR), VMC_NAMED(MPI_SIGNED_CHAR), VMC_NAMED(MPI_UNSIGNED_CHAR),
    VMC_NAMED(MPI_BYTE), VMC_NAMED(MPI_SHORT), VMC_NAMED(MPI_UNSIGNED_SHORT), VMC_NAMED(MPI_INT),
    VMC_NAMED(MPI_UNSIGNED), VMC_NAMED(MPI_LONG), VMC_NAMED(MPI_UNSIGNED_LONG),
    VMC_NAMED(MPI_LONG_LONG), VMC_NAMED(MPI_UNSIGNED_LONG_LONG), VMC_NAMED(MPI_FLOAT),
    VMC_NAMED(MPI_DOUBLE), VMC_NAMED(MPI_LONG_DOUBLE), VMC_NAMED(MPI_INT8_T),
    VMC_NAMED(MPI_UINT8_T), VMC_NAMED(MPI_INT16_T), VMC_NAMED(MPI_UINT16_T),
    VMC_NAMED(MPI_INT32_T), VMC_NAMED(MPI_UINT32_T), VMC_NAMED(MPI_INT64_T),
    VMC_NAMED(MPI_UINT64_T), VMC_NAMED(MPI_C_BOOL), VMC_NAMED(MPI_WCHAR), VMC_NAMED(MPI_AINT),
    VMC_NAMED(MPI_OFFSET), VMC_NAMED(MPI_COUNT), VMC_NAMED(MPI_PACKED),
    VMC_NAMED(MPI_C_FLOAT_COMPLEX), VMC_NAMED(MPI_C_DOUBLE_COMPLEX),
    VMC_NAMED(MPI_C_LONG_DOUBLE_COMPLEX), VMC_NAMED(MPI_CXX_BOOL),
    VMC_NAMED(MPI_CXX_FLOAT_COMPLEX), VMC_NAMED(MPI_CXX_DOUBLE_COMPLEX),
    VMC_NAMED(MPI_CXX_LONG_DOUBLE_COMPLEX), VMC_NAMED(MPI_FLOAT_INT), VMC_NAMED(MPI_DOUBLE_INT),
    VMC_NAMED(MPI_LONG_INT), VMC_NAMED(MPI_2INT), VMC_NAMED(MPI_SHORT_INT),
    VMC_NAMED(MPI_LONG_DOUBLE_INT), VMC_NAMED(MPI_CHARACTER), VMC_NAMED(MPI_LOGICAL),
    VMC_NAMED(MPI_INTEGER), VMC_NAMED(MPI_REAL), VMC_NAMED(MPI_DOUBLE_PRECISION),
    VMC_NAMED(MPI_COMPLEX), VMC_NAMED(MPI_DOUBLE_COMPLEX), VMC_NAMED(MPI_2REAL),
    VMC_NAMED(MPI_2DOUBLE_PRECISION), VMC_NAMED(MPI_2INTEGER), VMC_NAMED(MPI_INTEGER1),
    VMC_NAMED(MPI_INTEGER2), VMC_NAMED(MPI_INTEGER4), VMC_NAMED(MPI_INTEGER8),
    VMC_NAMED(MPI_INTEGER16), VMC_NAMED(MPI_REAL2), VMC_NAMED(MPI_REAL4), VMC_NAMED(MPI_REAL8),
    VMC_NAMED(MPI_REAL16), VMC_NAMED(MPI_COMPLEX4), VMC_NAMED(MPI_COMPLEX8),
    VMC_NAMED(MPI_COMPLEX16), VMC_NAMED(MPI_COMPLEX32), VMC_NAMED(MPI_LB), VMC_NAMED(MPI_UB)};
#undef VMC_NAMED

TEST(PredefinedTypes, EveryHandleIsItsRow) {
  using vmc::mpi::predefined_type;
  EXPECT_EQ(std::size(kHandles) + 1, vmc::mpi::kPredefinedTypes.size())
      << "every predefined handle of mpi.h and MPI_DATATYPE_NULL";
  for (const NamedHandle& h : kHandles) {
    const vmc::mpi::PredefinedType* row = predefined_type(h.handle);
    ASSERT_NE(row, nullptr) << h.name;
    EXPECT_STREQ(row->name, h.name);
    // Every type holds data but MPI-1's bound markers.
    EXPECT_EQ(row->size > 0, row->kind != vmc::mpi::TypeKind::bound) << h.name;
    EXPECT_LE(row->size, row->extent) << h.name;
  }
  EXPECT_EQ(predefined_type(MPI_DATATYPE_NULL), nullptr);
  EXPECT_EQ(predefined_type(VMC_MPI_PREDEFINED_TYPES), nullptr);
  EXPECT_EQ(predefined_type(VMC_MPI_FIRST_DERIVED_TYPE), nullptr);
  EXPECT_EQ(predefined_type(-1), nullptr);
}

TEST(PredefinedTypes, SizesExtentsAndKinds) {
  using vmc::mpi::predefined_type;
  using vmc::mpi::TypeKind;
  EXPECT_EQ(predefined_type(MPI_INT)->size, sizeof(int));
  EXPECT_EQ(predefined_type(MPI_LONG_DOUBLE)->size, sizeof(long double));
  EXPECT_EQ(predefined_type(MPI_AINT)->size, sizeof(MPI_Aint));
  EXPECT_EQ(predefined_type(MPI_C_DOUBLE_COMPLEX)->size, 2 * sizeof(double));
  // A pair's size is its members', its extent the padded struct's.
  EXPECT_EQ(predefined_type(MPI_DOUBLE_INT)->size, sizeof(double) + sizeof(int));
  struct DoubleInt {
    double d;
    int i;
  };
  EXPECT_EQ(predefined_type(MPI_DOUBLE_INT)->extent, sizeof(DoubleInt));
  EXPECT_EQ(predefined_type(MPI_SHORT_INT)->size, sizeof(short) + sizeof(int));
  EXPECT_EQ(predefined_type(MPI_2INT)->kind, TypeKind::pair);
  EXPECT_EQ(predefined_type(MPI_INTEGER8)->kind, TypeKind::fortran_integer);
  EXPECT_EQ(predefined_type(MPI_UINT16_T)->kind, TypeKind::c_integer);
  EXPECT_EQ(predefined_type(MPI_CXX_BOOL)->kind, TypeKind::logical);
  EXPECT_EQ(predefined_type(MPI_COUNT)->kind, TypeKind::multi_language);
  EXPECT_EQ(predefined_type(MPI_BYTE)->kind, TypeKind::byte);
  EXPECT_EQ(predefined_type(MPI_UB)->kind, TypeKind::bound);
  EXPECT_EQ(predefined_type(MPI_LB)->extent, 0u);
}

}  // namespace
