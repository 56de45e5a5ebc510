// `pagesim complete`: the candidates for the word being completed, from the CLI's own
// declarations (CLI11) and the model's registries, for the bash completion
// (tools/pagesim-completion.bash), so that it cannot drift from the CLI.
#pragma once

#include <CLI/CLI.hpp>

#include <string>
#include <vector>

namespace pagesim::cli {

// `words`: the command line after "pagesim" up to the cursor; the last is the word being
// completed (empty after a space). The candidates that start with it, one word each: after
// the program, the visible subcommands; after one, its options when the word starts with '-',
// else its positionals' values (shipped scenario names for a scenario); after an option, its
// values (presets, `--set` keys and their values: presets, knobs, workloads, engines). A
// candidate "@files" asks the shell to add file names.
std::vector<std::string> complete(const CLI::App& app, const std::vector<std::string>& words);

}  // namespace pagesim::cli
