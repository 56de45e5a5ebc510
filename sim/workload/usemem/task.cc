#include "pagesim/workload/usemem.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>

#include "pagesim/result/samples.h"

namespace pagesim::workload {

uint64_t now_ns() {
  return static_cast<uint64_t>(
      std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch()).count());
}

DataRegion::DataRegion(uint64_t bytes)
    : region_(std::max<uint64_t>(bytes, 4096), "usemem data region", /*noreserve=*/true) {}

LkpSample lkp_parse(const std::vector<UsememTaskResult>& tasks) {
  LkpSample s;
  std::vector<double> kbps;
  double free_total = 0;
  for (const UsememTaskResult& t : tasks) {
    if (t.failed) {
      s.tasks_failed++;
      continue;
    }
    kbps.push_back(t.kbps);
    s.throughput += t.kbps;
    free_total += static_cast<double>(t.free_usecs) / 1e6;
  }
  if (!kbps.empty()) {
    std::sort(kbps.begin(), kbps.end());
    s.median = run::quantile_of_sorted(kbps, 0.5);  // LKP's upper median
    s.free_time = free_total / static_cast<double>(kbps.size());
  }
  return s;
}

}  // namespace pagesim::workload
