// CSV: one row per run and metric (docs/output.md).
#include <fmt/format.h>

#include "pagesim/report/report.h"

namespace pagesim::report {

namespace {

// RFC 4180: quote a field that holds a comma, a quote or a line break; double inner quotes.
// Variant names such as "v5.17 thp=false,khugepaged=false" need it.
std::string csv_field(const std::string& s) {
  if (s.find_first_of(",\"\r\n") == std::string::npos) return s;
  std::string out = "\"";
  for (char c : s) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + "\"";
}

}  // namespace

std::string to_csv(const std::vector<run::RunResult>& runs) {
  std::string out = "variant,engine,repeat,sweep_key,sweep_value,metric,value,interrupted\n";
  for (const run::RunResult& r : runs) {
    const std::string run = fmt::format("{},{},{},{},{}", csv_field(r.variant), csv_field(r.engine), r.repeat,
                                        csv_field(r.sweep_key), csv_field(r.sweep_value));
    // {} prints the shortest text that reads back as the same double.
    for (const auto& [metric, value] : r.metrics)
      out += fmt::format("{},{},{},{:d}\n", run, csv_field(metric), value, r.interrupted);
    // A run stopped before it measured anything still gets its row, as it has its JSON record.
    if (r.metrics.empty() && r.interrupted) out += run + ",,,1\n";
  }
  return out;
}

}  // namespace pagesim::report
