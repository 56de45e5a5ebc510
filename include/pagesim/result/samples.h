// Median and spread of per-iteration samples, as LKP computes them.
#pragma once

#include <algorithm>
#include <cmath>
#include <vector>

namespace pagesim::run {

// LKP's upper median.
inline double median_of(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
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
