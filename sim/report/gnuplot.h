// Rendering through gnuplot (a Debian package, run as a subprocess): one script per figure,
// written next to the pictures so that users can edit and re-run it.
#pragma once

#include <string>
#include <vector>

namespace pagesim::report {

// A gnuplot string literal (single quotes: no escapes are interpreted; ' is doubled).
std::string gp_quote(const std::string& s);

// Writes <out_dir>/<name>.gp that draws `body` (settings and one plot command, data paths
// absolute) as <name>.png (pngcairo when gnuplot has it, else png) and <name>.svg, runs
// gnuplot on it and returns the two picture paths. Throws std::runtime_error when gnuplot is
// missing or fails (its messages go to <out_dir>/gnuplot.log).
std::vector<std::string> render(const std::string& out_dir, const std::string& name, const std::string& body,
                                int width, int height);

}  // namespace pagesim::report
