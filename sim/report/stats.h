// Statistics over repeats, shared by the comparison table, the human summary and the plots:
// runs grouped by sweep point and variant, and LKP's average / population stddev.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "pagesim/result/run_result.h"

namespace pagesim::report {

// lib/statistics.rb: arithmetic mean and population stddev (divides by n). stddev is < 0 when
// there is a single sample, where LKP prints none.
struct Summary {
  double avg = 0;
  double stddev = -1;
  size_t samples = 0;
  // 100 * stddev / avg, the "± s%" column; < 0 when there is no stddev.
  double stddev_pct() const;
};
Summary summarize(const std::vector<double>& values);

// The seeds' figures over repeats: `stat` is "mean", "median" (LKP's upper median: the median
// for an odd count) or "sample_stddev" (divides by n - 1, as the seed documents do). NaN when
// there are no values, or fewer than two for sample_stddev.
double repeat_stat(const std::vector<double>& values, const std::string& stat);

// The runs of one variant at one sweep point, in input (repeat) order.
struct VariantRuns {
  std::string variant;
  std::vector<const run::RunResult*> runs;
};

// One sweep point (or the whole result when there is no sweep). Variants keep the order in
// which they first appear, so the scenario's first variant is the base.
struct SweepGroup {
  std::string key, value;
  std::vector<VariantRuns> variants;
};

// Groups runs by (sweep_key, sweep_value) in first-seen order. The runs must outlive the result.
// Partial (interrupted) runs are left out: their metrics cover part of a run.
std::vector<SweepGroup> group_runs(const std::vector<run::RunResult>& runs);

// A metric over the runs of one variant; a missing metric counts as 0, as LKP fills it.
Summary metric_summary(const VariantRuns& v, const std::string& metric);

}  // namespace pagesim::report
