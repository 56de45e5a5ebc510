// `--set key.path=value` overrides, spliced into the tree before validation so that they are
// typed and checked exactly like the file's own values.
#pragma once

#include <string>

#include "pagesim/config/tree.h"

namespace pagesim::scenario::detail {

using namespace pagesim::config;  // the tree, schema and diagnostics the sections are read with

// Applies one override. Missing maps along the path are created (the schema then rejects
// unknown keys at the override's position); `key[i]` indexes an existing list. Throws
// InputError positioned at "<--set>:1:COL".
void apply_override(Node& root, const std::string& arg);

}  // namespace pagesim::scenario::detail
