// Median and spread of per-iteration samples, as LKP computes them.
#pragma once

#include <algorithm>
#include <cmath>
#include <vector>

namespace pagesim::run {

// The q-quantile of ascending samples: sorted[floor(q * n)], the last one for q = 1; q = 0.5
// is LKP's upper median (median_of). 0 when there are none.
inline double quantile_of_sorted(const std::vector<double>& sorted, double q) {
  if (sorted.empty()) return 0;
  const auto i = static_cast<size_t>(q * static_cast<double>(sorted.size()));
  return sorted[std::min(i, sorted.size() - 1)];
}

// LKP's upper median.
inline double median_of(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return quantile_of_sorted(v, 0.5);
}

// Population stddev as a percentage of the mean.
inline double stddev_pct_of(const std::vector<double>& v) {
  if (v.empty()) return 0;
  double mean = 0;
  for (double x : v) mean += x;
  mean /= static_cast<double>(v.size());
  double var = 0;
  for (double x : v) var += (x - mean) * (x - mean);
  var /= static_cast<double>(v.size());
  return mean ? std::sqrt(var) / mean * 100 : 0;
}

}  // namespace pagesim::run
