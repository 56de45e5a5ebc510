// File-name helpers shared by the procfs directory and the plots.
#pragma once

#include <string>

namespace pagesim::report {

// A filesystem-safe path component: keeps [A-Za-z0-9._+=-], replaces the rest with '_'
// (variant names carry spaces and commas, lock classes '&' and '>').
std::string safe_component(const std::string& s);

}  // namespace pagesim::report
