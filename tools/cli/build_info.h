// The commit this binary was built from, for `pagesim --version`: cmake/build_info.cmake
// defines it at build time (with "-dirty" for uncommitted changes; "unknown" outside a checkout).
#pragma once

namespace pagesim::cli {

extern const char* const kBuildCommit;

}  // namespace pagesim::cli
