// The input files pagesim ships (scenarios/, machines/): under share/pagesim beside an
// installed binary (<prefix>/bin/pagesim finds <prefix>/share/pagesim through /proc/self/exe,
// so a copied or relocated prefix works), else the source tree the binary was built from (a
// build tree's binary). Both layouts keep scenarios/ and machines/ siblings, so a shipped
// scenario's "../machines/x.yaml" resolves in either.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace pagesim::config {

// The directory of the shipped files of `kind`: "scenarios" or "machines".
std::filesystem::path shipped_dir(std::string_view kind);

// Where a file named `name` is looked for among the shipped ones of `kind`: NAME and NAME.yaml
// in shipped_dir(kind). None when `name` has a directory part: a path is never a name.
std::vector<std::filesystem::path> shipped_candidates(std::string_view kind, const std::string& name);

// The first of `candidates` that exists and is not a directory (`pagesim run default --out
// default` leaves one), or "".
std::string first_existing(const std::vector<std::filesystem::path>& candidates);
// "A, B, ...": the candidates as the not-found errors list them.
std::string looked_for(const std::vector<std::filesystem::path>& candidates);
// The same, or throws InputError "WHAT 'ARG' not found; looked for: A, B, ..." (exit code 2, as
// all bad input).
std::string require_existing(std::string_view what, const std::string& arg, const std::vector<std::filesystem::path>& candidates);

}  // namespace pagesim::config
