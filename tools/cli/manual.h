// What --help and the man page say beyond the options, and pagesim(1) itself, rendered from
// the CLI's own declarations (CLI11), so that the manual cannot drift from --help.
#pragma once

#include <CLI/CLI.hpp>

#include <string>

namespace pagesim::cli {

// --help's head: "pagesim: WHAT IT IS", what it does, an example. The man page's NAME and
// DESCRIPTION say the same.
std::string app_description();

// --help's footer: the exit codes and the files, the man page's EXIT STATUS and FILES.
std::string help_footer();

// pagesim(1) in roff: NAME, SYNOPSIS, DESCRIPTION, the global options, one section per visible
// subcommand (its usage, description, example and options), EXIT STATUS, FILES.
std::string man_page(const CLI::App& app, const std::string& version);

}  // namespace pagesim::cli
