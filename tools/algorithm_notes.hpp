// The opening comments of the files under collectives/ (what each algorithm does, where it
// comes from, what it requires and costs), gathered at build time by
// tools/algorithm_notes.cmake, for the legend of `vmc show`.
#pragma once

#include <map>
#include <string>

#include "collectives/registry.hpp"

namespace vmc::cli {

// Path under collectives/ (e.g. "allreduce/allreduce_ring.cpp") -> its opening comment,
// without the comment marks.
const std::map<std::string, std::string>& algorithm_file_notes();

// The opening comment of the file of algorithm `name` of `op` (the v-variants share their
// regular operation's files; 000's hybrid rows global_combine/hybrid_combine.cpp), and the
// file's path under collectives/; empty when there is no such file.
std::pair<std::string, std::string> algorithm_note(Operation op, const std::string& name);

}  // namespace vmc::cli
