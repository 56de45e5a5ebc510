#include <filesystem>

#include "pagesim/config/shipped.h"
#include "pagesim/engine/engine.h"

namespace pagesim::engine {

namespace {

namespace fs = std::filesystem;

// As given (absolute, or from the working directory), then beside the scenario file.
std::vector<fs::path> path_candidates(const std::string& source, const std::string& file) {
  if (fs::path(file).is_absolute()) return {file};
  return {file, fs::path(source).parent_path() / file};
}

}  // namespace

std::string input_path(const std::string& source, const std::string& file) {
  const std::string found = config::first_existing(path_candidates(source, file));
  return found.empty() ? file : found;
}

std::vector<fs::path> machine_file_candidates(const std::string& source, const std::string& file) {
  std::vector<fs::path> where = path_candidates(source, file);
  for (fs::path& p : config::shipped_candidates("machines", file)) where.push_back(std::move(p));
  return where;
}

}  // namespace pagesim::engine
