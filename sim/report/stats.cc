#include "stats.h"

#include <cmath>

#include "pagesim/result/samples.h"

namespace pagesim::report {

double Summary::stddev_pct() const {
  if (stddev < 0) return -1;
  return avg != 0 ? 100 * stddev / std::fabs(avg) : stddev;
}

Summary summarize(const std::vector<double>& values) {
  Summary s;
  s.samples = values.size();
  if (values.empty()) return s;
  double sum = 0;
  for (double v : values) sum += v;
  s.avg = sum / static_cast<double>(values.size());
  if (values.size() > 1) {
    double sq = 0;
    for (double v : values) sq += (v - s.avg) * (v - s.avg);
    s.stddev = std::sqrt(sq / static_cast<double>(values.size()));
  }
  return s;
}

double repeat_stat(const std::vector<double>& values, const std::string& stat) {
  if (values.empty()) return std::nan("");
  if (stat == "median") return run::median_of(values);
  const Summary s = summarize(values);
  if (stat != "sample_stddev") return s.avg;
  if (s.samples < 2) return std::nan("");
  const double n = static_cast<double>(s.samples);
  return s.stddev * std::sqrt(n / (n - 1));  // population to sample variance: * n / (n - 1)
}

std::vector<SweepGroup> group_runs(const std::vector<run::RunResult>& runs) {
  std::vector<SweepGroup> groups;
  for (const run::RunResult& r : runs) {
    if (r.interrupted) continue;
    SweepGroup* g = nullptr;
    for (SweepGroup& x : groups)
      if (x.key == r.sweep_key && x.value == r.sweep_value) g = &x;
    if (!g) g = &groups.emplace_back(SweepGroup{r.sweep_key, r.sweep_value, {}});
    VariantRuns* v = nullptr;
    for (VariantRuns& x : g->variants)
      if (x.variant == r.variant) v = &x;
    if (!v) v = &g->variants.emplace_back(VariantRuns{r.variant, {}});
    v->runs.push_back(&r);
  }
  return groups;
}

Summary metric_summary(const VariantRuns& v, const std::string& metric) {
  std::vector<double> values;
  for (const run::RunResult* r : v.runs) {
    auto it = r->metrics.find(metric);
    values.push_back(it == r->metrics.end() ? 0.0 : it->second);
  }
  return summarize(values);
}

}  // namespace pagesim::report
