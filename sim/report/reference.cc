// The model beside published figures (the scenario's `reference:`): one row per reference
// figure, the reference's kernels and the model's variants side by side (reference_rows.h).
#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "reference_rows.h"
#include "pagesim/report/report.h"
#include "pagesim/run/runner.h"

namespace pagesim::report {

namespace {

std::string value(double x) {
  if (std::isnan(x)) return "-";
  const double a = std::fabs(x);
  if (a >= 1e5) return fmt::format("{:.0f}", x);
  if (a >= 100) return fmt::format("{:.1f}", x);
  return a >= 1 || a == 0 ? fmt::format("{:.2f}", x) : fmt::format("{:.3g}", x);  // a stddev, seconds per loop
}

// Percent metrics change by points, as LKP prints them; the others by a percentage.
std::string change(double base, double x, bool points) {
  if (std::isnan(base) || std::isnan(x)) return "";
  if (points) return fmt::format("{:+.1f}", x - base);
  return base == 0 ? "" : fmt::format("{:+.1f}%", (x / base - 1) * 100);
}

}  // namespace

std::string reference_table(const scenario::Scenario& sc, const std::vector<run::RunResult>& runs) {
  if (!sc.reference) return "";
  const scenario::Reference& ref = *sc.reference;
  const ReferenceLines ls = reference_lines(ref, sc.resolved, runs);
  if (ls.variants.empty()) return "";
  auto calibrated = [&](const std::string& v) { return std::find(ref.calibrated.begin(), ref.calibrated.end(), v) != ref.calibrated.end(); };
  std::string out = fmt::format("\nbeside the reference: {}\n", ref.source);
  if (std::any_of(ref.rows.begin(), ref.rows.end(), [](const auto& r) { return r.per_iteration; }))
    out += fmt::format("(rows marked /it: per iteration, the reference's totals / {} and the model's / its iterations)\n", ref.iterations);
  out += "(model: mean over repeats unless the row names another stat; @: where the figure was taken; \"not run\": no run here was)\n\n";
  const size_t w = 13;
  size_t name_w = 8;
  for (const ReferenceLine& l : ls.lines) name_w = std::max(name_w, l.name.size() + 2);
  std::string h1 = fmt::format("{:<{}}", "", name_w), h2 = h1;
  for (const auto& [model, theirs] : ls.variants) h1 += fmt::format("{:>{}}", theirs, w), h2 += fmt::format("{:>{}}", "reference", w);
  h1 += fmt::format("{:>9}", ""), h2 += fmt::format("{:>9}", "%change");
  for (const auto& [model, theirs] : ls.variants) h1 += fmt::format("{:>{}}", model, w), h2 += fmt::format("{:>{}}", "model", w);
  h1 += fmt::format("{:>9}", ""), h2 += fmt::format("{:>9}  {}", "%change", "model");
  out += h1 + "\n" + h2 + "\n";
  // A host-timed metric of the uniprocessor or native engine measures this host: not a prediction.
  const bool on_host = std::none_of(runs.begin(), runs.end(), [](const run::RunResult& r) { return r.engine == "virtual"; });
  for (const ReferenceLine& l : ls.lines) {
    const run::MetricInfo* info = run::find_metric(l.row->metric);
    const bool points = info && info->unit == "%" && l.row->relative_to.empty();
    const char* ours = on_host && info && info->host_timed ? "measured" : "predicted";
    std::string line = fmt::format("{:<{}}", l.name, name_w);
    for (double x : l.theirs) line += fmt::format("{:>{}}", value(x), w);
    line += fmt::format("{:>9}", l.theirs.size() > 1 ? change(l.theirs[0], l.theirs[1], points) : "");
    for (double x : l.ours) line += fmt::format("{:>{}}", value(x), w);
    line += fmt::format("{:>9}", l.ours.size() > 1 ? change(l.ours[0], l.ours[1], points) : "");
    std::vector<std::string> how;
    for (const auto& [model, name] : ls.variants)
      how.push_back(!l.run ? "not run" : l.row->calibration_target && calibrated(model) ? "calibrated" : ours);
    line += "  " + fmt::format("{}", fmt::join(how, " | "));
    if (!l.row->note.empty()) line += " (" + l.row->note + ")";
    out += line + "\n";
  }
  for (const std::string& n : ref.notes) out += "  note: " + n + "\n";
  return out;
}

}  // namespace pagesim::report
