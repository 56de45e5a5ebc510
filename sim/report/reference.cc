// The model beside published figures (the scenario's `reference:`): one row per reference
// metric, the reference's kernels and the model's variants side by side.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "compare_rows.h"
#include "stats.h"
#include "pagesim/report/report.h"
#include "pagesim/run/runner.h"

namespace pagesim::report {

namespace {

// The model's mean of `metric` over a variant's repeats (per iteration: each run's value over
// its own iterations); NaN when no run reports it.
double model_mean(const std::vector<SweepGroup>& groups, const std::string& variant, const std::string& metric,
                  bool per_iteration) {
  std::vector<double> values;
  for (const SweepGroup& g : groups)
    for (const VariantRuns& v : g.variants)
      if (v.variant == variant)
        for (const run::RunResult* r : v.runs) {
          const auto it = r->metrics.find(metric);
          if (it == r->metrics.end()) continue;
          const auto iters = r->metrics.find("iterations");
          values.push_back(it->second / (per_iteration && iters != r->metrics.end() && iters->second > 0 ? iters->second : 1));
        }
  return values.empty() ? std::nan("") : summarize(values).avg;
}

std::string value(double x) {
  if (std::isnan(x)) return "-";
  const double a = std::fabs(x);
  return a >= 1e5 ? fmt::format("{:.0f}", x) : a >= 100 ? fmt::format("{:.1f}", x) : fmt::format("{:.2f}", x);
}

// Percent metrics change by points, as LKP prints them; the others by a percentage.
std::string change(double base, double x, bool points) {
  if (std::isnan(base) || std::isnan(x)) return "";
  if (points) return fmt::format("{:+.1f}", x - base);
  return base == 0 ? "" : fmt::format("{:+.1f}%", (x / base - 1) * 100);
}

}  // namespace

std::string reference_table(const scenario::Scenario& sc, const std::vector<run::RunResult>& runs) {
  if (!sc.reference || !sc.sweep.key.empty()) return "";
  const scenario::Reference& ref = *sc.reference;
  std::vector<std::pair<std::string, std::string>> vs;  // the reference's variants this run has
  for (const auto& v : ref.variants)
    if (std::any_of(runs.begin(), runs.end(), [&](const run::RunResult& r) { return r.variant == v.first; })) vs.push_back(v);
  if (vs.empty()) return "";
  const std::vector<SweepGroup> groups = group_runs(runs);
  auto calibrated = [&](const std::string& v) { return std::find(ref.calibrated.begin(), ref.calibrated.end(), v) != ref.calibrated.end(); };
  std::string out = fmt::format("\nbeside the reference: {}\n", ref.source);
  out += fmt::format("(rows marked /it: per iteration, the reference's totals / {} and the model's / its iterations; model: mean over repeats)\n\n",
                     ref.iterations);
  const size_t w = 13;
  size_t name_w = 8;
  for (const scenario::Reference::Row& row : ref.rows) name_w = std::max(name_w, stat_name(row.metric).size() + 5);
  std::string h1 = fmt::format("{:<{}}", "", name_w), h2 = h1;
  for (const auto& [model, theirs] : vs) h1 += fmt::format("{:>{}}", theirs, w), h2 += fmt::format("{:>{}}", "reference", w);
  h1 += fmt::format("{:>9}", ""), h2 += fmt::format("{:>9}", "%change");
  for (const auto& [model, theirs] : vs) h1 += fmt::format("{:>{}}", model, w), h2 += fmt::format("{:>{}}", "model", w);
  h1 += fmt::format("{:>9}", ""), h2 += fmt::format("{:>9}  {}", "%change", "model");
  out += h1 + "\n" + h2 + "\n";
  for (const scenario::Reference::Row& row : ref.rows) {
    const run::MetricInfo* info = run::find_metric(row.metric);
    const bool points = info && info->unit == "%";
    std::string line = fmt::format("{:<{}}", stat_name(row.metric) + (row.per_iteration ? " /it" : ""), name_w);
    std::vector<double> theirs, ours;
    for (const auto& [model, name] : vs) {
      const auto it = row.values.find(model);
      theirs.push_back(it == row.values.end() ? std::nan("") : it->second / (row.per_iteration ? ref.iterations : 1));
      ours.push_back(model_mean(groups, model, row.metric, row.per_iteration));
    }
    for (double x : theirs) line += fmt::format("{:>{}}", value(x), w);
    line += fmt::format("{:>9}", theirs.size() > 1 ? change(theirs[0], theirs[1], points) : "");
    for (double x : ours) line += fmt::format("{:>{}}", value(x), w);
    line += fmt::format("{:>9}", ours.size() > 1 ? change(ours[0], ours[1], points) : "");
    std::vector<std::string> how;
    for (const auto& [model, name] : vs)
      how.push_back(row.calibration_target && calibrated(model) ? "calibrated" : "predicted");
    line += "  " + fmt::format("{}", fmt::join(how, " | "));
    if (!row.note.empty()) line += " (" + row.note + ")";
    out += line + "\n";
  }
  return out;
}

}  // namespace pagesim::report
