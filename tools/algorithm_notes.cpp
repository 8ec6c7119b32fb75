#include "tools/algorithm_notes.hpp"

namespace vmc::cli {

std::pair<std::string, std::string> algorithm_note(Operation op, const std::string& name) {
  std::string operation = to_string(op);
  const auto& notes = algorithm_file_notes();
  std::vector<std::string> paths{operation + "/" + operation + "_" + name + ".cpp"};
  if (operation.back() == 'v') {  // scatterv, gatherv, allgatherv, alltoallv
    operation.pop_back();
    paths.push_back(operation + "/" + operation + "_" + name + ".cpp");
  }
  if (name.starts_with("hybrid")) paths.push_back("global_combine/hybrid_combine.cpp");
  for (const std::string& path : paths) {
    if (auto it = notes.find(path); it != notes.end()) return {path, it->second};
  }
  return {};
}

}  // namespace vmc::cli
