// LKP's vm-scalability figures from usemem task results, per iteration and overall.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "pagesim/run/result.h"
#include "pagesim/workload/usemem.h"

namespace pagesim::run {

// results[i] are iteration i's task results, in task order. Adds vm-scalability's throughput,
// median, free_time and their stddev, the remote-store share and the placement counts to
// r.metrics, and each task's placement per iteration to r.tasks (timelines are the engine's).
void usemem_metrics(const std::vector<std::vector<workload::UsememTaskResult>>& results, unsigned nr_nodes,
                    RunResult& r);

// Regroups per-task results (outs[t].usemem[i]: task t, iteration i) by iteration.
template <class TaskOuts>
std::vector<std::vector<workload::UsememTaskResult>> by_iteration(const TaskOuts& outs, uint64_t iterations) {
  std::vector<std::vector<workload::UsememTaskResult>> r(iterations);
  for (const auto& o : outs)
    for (size_t it = 0; it < o.usemem.size(); ++it) r[it].push_back(o.usemem[it]);
  return r;
}

// Fills the KB/s figure of a task from its bytes and time, as usemem prints it.
inline void usemem_finish(workload::UsememTaskResult& r, uint64_t elapsed_ns) {
  r.usecs = std::max<uint64_t>(1, elapsed_ns / 1000);
  r.kbps = static_cast<double>((r.unit_bytes * 1000000ull) >> 10) / static_cast<double>(r.usecs);
}

}  // namespace pagesim::run
