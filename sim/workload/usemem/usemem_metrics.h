// LKP's vm-scalability figures from usemem task results, per iteration and overall.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "pagesim/result/metrics.h"
#include "pagesim/result/run_result.h"
#include "pagesim/workload/usemem.h"
#include "pagesim/workload/usemem_result.h"

namespace pagesim::workload {

// results[i] are iteration i's task results, in task order. Adds vm-scalability's throughput,
// median, free_time and their stddev, the remote-store share and the placement counts to
// r.metrics. `phase_times`: the engine timed each task's mmap and faults (reserve_time_s, fault_time_s).
void usemem_metrics(const std::vector<std::vector<UsememTaskResult>>& results, unsigned nr_nodes,
                    run::RunResult& r, bool phase_times = false);

// Each task's placement per iteration, for its UsememResult (timelines are the engine's).
std::vector<TaskPlacement> usemem_placements(const std::vector<std::vector<UsememTaskResult>>& results);

// The metrics usemem_metrics() reports (the engine bodies declare theirs in workload.cc).
std::vector<run::MetricInfo> usemem_metric_infos();

// Fills the KB/s figure of a task from its bytes and time, as usemem prints it.
inline void usemem_finish(UsememTaskResult& r, uint64_t elapsed_ns) {
  r.usecs = std::max<uint64_t>(1, elapsed_ns / 1000);
  r.kbps = static_cast<double>((r.unit_bytes * 1000000ull) >> 10) / static_cast<double>(r.usecs);
}

}  // namespace pagesim::workload
