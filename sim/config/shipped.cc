#include "pagesim/config/shipped.h"

#include <fmt/format.h>

#include "pagesim/error.h"

// PAGESIM_SHARE_RELDIR: share/pagesim relative to the installed binary's directory
// (GNUInstallDirs', e.g. "../share/pagesim"); PAGESIM_SOURCE_DIR: the source tree.
#ifndef PAGESIM_SHARE_RELDIR
#define PAGESIM_SHARE_RELDIR "../share/pagesim"
#endif
#ifndef PAGESIM_SOURCE_DIR
#define PAGESIM_SOURCE_DIR "."
#endif

namespace pagesim::config {

namespace fs = std::filesystem;

fs::path shipped_dir(std::string_view kind) {
  std::error_code ec;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    const fs::path installed = (exe.parent_path() / PAGESIM_SHARE_RELDIR / kind).lexically_normal();
    if (fs::is_directory(installed, ec)) return installed;
  }
  return fs::path(PAGESIM_SOURCE_DIR) / kind;
}

std::vector<fs::path> shipped_candidates(std::string_view kind, const std::string& name) {
  if (name.empty() || fs::path(name).has_parent_path()) return {};
  const fs::path dir = shipped_dir(kind);
  std::vector<fs::path> out{dir / name};
  if (fs::path(name).extension() != ".yaml") out.push_back(dir / (name + ".yaml"));
  return out;
}

std::string first_existing(const std::vector<fs::path>& candidates) {
  for (const fs::path& c : candidates) {
    std::error_code ec;
    if (fs::exists(c, ec) && !fs::is_directory(c, ec)) return c.string();
  }
  return "";
}

std::string looked_for(const std::vector<fs::path>& candidates) {
  std::string looked;
  for (const fs::path& c : candidates) looked += (looked.empty() ? "" : ", ") + c.string();
  return looked;
}

std::string require_existing(std::string_view what, const std::string& arg, const std::vector<fs::path>& candidates) {
  std::string found = first_existing(candidates);
  if (!found.empty()) return found;
  throw InputError(fmt::format("{} '{}' not found; looked for: {}", what, arg, looked_for(candidates)));
}

}  // namespace pagesim::config
