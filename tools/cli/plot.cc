// `pagesim plot`: gnuplot pictures of a result JSON (the work is report::plot's).
#include <fmt/format.h>

#include "commands.h"
#include "pagesim/report/report.h"

namespace pagesim::cli {

int plot(const std::string& json_file, const std::string& out_dir) {
  for (const std::string& f : report::plot(json_file, out_dir)) fmt::print("{}\n", f);
  return 0;
}

}  // namespace pagesim::cli
