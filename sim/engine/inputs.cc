#include <filesystem>

#include "pagesim/engine/engine.h"

namespace pagesim::engine {

std::string input_path(const std::string& source, const std::string& file) {
  namespace fs = std::filesystem;
  if (fs::path(file).is_absolute() || fs::exists(file)) return file;
  const fs::path beside = fs::path(source).parent_path() / file;
  return fs::exists(beside) ? beside.string() : file;
}

}  // namespace pagesim::engine
