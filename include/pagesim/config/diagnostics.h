// Error messages of the scenario layer: "FILE:LINE:COL: key.path: what, got what", followed by
// the source line and a caret, and a "did you mean" hint for misspelt names.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "pagesim/config/tree.h"

namespace pagesim::config {

// Throws InputError. `path` may be empty (for errors with no key, such as a bad --set syntax).
[[noreturn]] void fail(const Pos& pos, std::string_view path, std::string_view message);

// The candidate nearest to `word` by edit distance, or "" when none is near enough to be a
// plausible typo (at most a third of the word's letters, at least 2 edits allowed).
std::string nearest(std::string_view word, const std::vector<std::string>& candidates);
// " (did you mean 'x'?)" or "".
std::string did_you_mean(std::string_view word, const std::vector<std::string>& candidates);
// "a, b, c" for "expected one of ..." messages.
std::string join(const std::vector<std::string>& words, std::string_view sep = ", ");

// "machine" + "nodes" -> "machine.nodes"; "" + "seed" -> "seed".
std::string child_path(std::string_view parent, std::string_view key);

}  // namespace pagesim::config
