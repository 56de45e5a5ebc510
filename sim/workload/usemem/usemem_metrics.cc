#include "usemem_metrics.h"

#include <fmt/format.h>

#include "pagesim/result/samples.h"

namespace pagesim::workload {

namespace {

constexpr run::Metric kThroughputKibS{"throughput_kib_s", "KiB/s", run::kAllEngines,
                                      "vm-scalability.throughput: the sum of the tasks' KiB/s, mean over iterations", true};
constexpr run::Metric kThroughputStddevPct{"throughput_stddev_pct", "%", run::kAllEngines, "its spread over iterations", true};
constexpr run::Metric kMedianKibS{"median_kib_s", "KiB/s", run::kAllEngines,
                                  "vm-scalability.median: the tasks' upper median, mean over iterations", true};
constexpr run::Metric kMedianStddevPct{"median_stddev_pct", "%", run::kAllEngines, "its spread over iterations", true};
constexpr run::Metric kMeanOverMedian{"mean_over_median", "", run::kAllEngines,
                                      "the tasks' mean rate over their upper median, mean over iterations", true};
constexpr run::Metric kFreeTimeS{"free_time_s", "s", run::kAllEngines, "vm-scalability.free_time: mean munmap time per task and iteration",
                                 true};
constexpr run::Metric kReserveTimeS{"reserve_time_s", "s", run::kVirtual,
                                    "mean per task and iteration of its mmap, the surplus reservation"};
constexpr run::Metric kFaultTimeS{"fault_time_s", "s", run::kVirtual,
                                  "mean per task and iteration of its fault loop: dequeue and clear_huge_page"};
constexpr run::Metric kRemoteStoreSharePct{"remote_store_share_pct", "%", run::kAllEngines,
                                           "node-store-miss-rate: stores to a page homed on another node than the storing CPU's"};
constexpr run::Metric kStores{"stores", "", run::kAllEngines, "8-byte stores issued"};
constexpr run::Metric kUserS{"user_s", "s", run::kAllEngines, "store-loop time summed over tasks", true};
constexpr run::Metric kTasksFailed{"tasks_failed", "", run::kAllEngines, "task-iterations whose mmap or a fault failed"};
constexpr run::Metric kTasksMovedReserveToFaultPct{"tasks_moved_reserve_to_fault_pct", "%", run::kAllEngines,
                                                   "tasks on another node at their first fault than at mmap"};
constexpr run::Metric kStoreLoopAwayFromFaultNodePct{"store_loop_away_from_fault_node_pct", "%", run::kVirtual,
                                                     "store-loop time run on another node than the fault node"};
constexpr run::MetricPattern<1> kFaultPagesNode{"fault_pages_node{n}", "pages", run::kAllEngines, "huge pages faulted from node n's pool"};
constexpr run::MetricPattern<1> kReserveTasksNode{"reserve_tasks_node{n}", "", run::kAllEngines,
                                                  "task-iterations whose mmap (gather_surplus_pages) ran on node n"};
constexpr run::MetricPattern<1> kFaultTasksNode{"fault_tasks_node{n}", "", run::kAllEngines,
                                                "task-iterations whose first fault ran on node n"};
constexpr run::Metric kIterations{"iterations", "", run::kAllEngines, "case iterations run", false, true};

// The share of a task's stores that went to another node than its CPU's. Stores are uniform
// over the task's pages; without the engine's store-loop residency, the share is that of its
// pages on another node than the CPU it faulted on.
double remote_share(const UsememTaskResult& t) {
  if (t.remote_store_share >= 0) return t.remote_store_share;
  return t.pages ? static_cast<double>(t.remote_pages) / static_cast<double>(t.pages) : 0;
}

TaskPlacement::Iteration placement_of(const UsememTaskResult& t) {
  TaskPlacement::Iteration p;
  p.failed = t.failed;
  p.reserve_node = t.reserve_node;
  p.fault_node = t.fault_node;
  p.fault_node_pages = t.fault_node_pages;
  for (uint64_t ps : t.store_node_ps) p.store_loop_node_s.push_back(static_cast<double>(ps) / 1e12);
  p.remote_store_share_pct = remote_share(t) * 100;
  p.kbps = t.failed ? 0 : t.kbps;
  p.start = t.start;
  return p;
}

}  // namespace

std::vector<TaskPlacement> usemem_placements(const std::vector<std::vector<UsememTaskResult>>& results) {
  std::vector<TaskPlacement> tasks;
  for (const auto& iteration : results) {
    if (tasks.size() < iteration.size()) tasks.resize(iteration.size());
    for (size_t t = 0; t < iteration.size(); ++t) {
      tasks[t].task = static_cast<unsigned>(t);
      tasks[t].iterations.push_back(placement_of(iteration[t]));
    }
  }
  return tasks;
}

void usemem_metrics(const std::vector<std::vector<UsememTaskResult>>& results, unsigned nr_nodes,
                    run::RunResult& r, bool phase_times) {
  std::map<std::string, double>& m = r.metrics;
  kIterations.set(m, static_cast<double>(results.size()));
  std::vector<double> throughput, medians, mean_over_median;
  double reserve_s = 0, fault_s = 0;
  double free_sum = 0, free_n = 0, stores = 0, remote_stores = 0, failed = 0, user_ns = 0;
  std::vector<double> fault_pages(nr_nodes, 0), reserve_tasks(nr_nodes, 0), fault_tasks(nr_nodes, 0);
  double tasks_split = 0, task_samples = 0, loop_ps = 0, loop_away_ps = 0;
  for (const auto& iteration : results) {
    const LkpSample s = lkp_parse(iteration);
    throughput.push_back(s.throughput);
    medians.push_back(s.median);
    if (const size_t ok = iteration.size() - s.tasks_failed; ok && s.median > 0)
      mean_over_median.push_back(s.throughput / static_cast<double>(ok) / s.median);
    failed += static_cast<double>(s.tasks_failed);
    for (const UsememTaskResult& t : iteration) {
      if (t.failed) continue;
      free_sum += static_cast<double>(t.free_usecs) / 1e6;
      reserve_s += static_cast<double>(t.reserve_ns) / 1e9;
      fault_s += static_cast<double>(t.fault_ns) / 1e9;
      free_n++;
      stores += static_cast<double>(t.stores);
      remote_stores += static_cast<double>(t.stores) * remote_share(t);
      user_ns += static_cast<double>(t.user_ns);
      for (unsigned n = 0; n < nr_nodes && n < t.fault_node_pages.size(); ++n) fault_pages[n] += static_cast<double>(t.fault_node_pages[n]);
      if (t.reserve_node < nr_nodes) reserve_tasks[t.reserve_node]++;
      if (t.fault_node < nr_nodes) fault_tasks[t.fault_node]++;
      task_samples++;
      tasks_split += t.reserve_node != t.fault_node;
      for (size_t n = 0; n < t.store_node_ps.size(); ++n) {  // virtual: where the loop ran
        loop_ps += static_cast<double>(t.store_node_ps[n]);
        if (n != t.fault_node) loop_away_ps += static_cast<double>(t.store_node_ps[n]);
      }
    }
  }
  double mean = 0;
  for (double x : throughput) mean += x;
  mean /= throughput.empty() ? 1 : static_cast<double>(throughput.size());
  double median_mean = 0;
  for (double x : medians) median_mean += x;
  median_mean /= medians.empty() ? 1 : static_cast<double>(medians.size());
  kThroughputKibS.set(m, mean);
  kThroughputStddevPct.set(m, run::stddev_pct_of(throughput));
  kMedianKibS.set(m, median_mean);
  kMedianStddevPct.set(m, run::stddev_pct_of(medians));
  double ratio = 0;
  for (double x : mean_over_median) ratio += x;
  if (!mean_over_median.empty()) kMeanOverMedian.set(m, ratio / static_cast<double>(mean_over_median.size()));
  kFreeTimeS.set(m, free_n ? free_sum / free_n : 0);
  if (phase_times) {  // mean per task and iteration
    kReserveTimeS.set(m, free_n ? reserve_s / free_n : 0);
    kFaultTimeS.set(m, free_n ? fault_s / free_n : 0);
  }
  kRemoteStoreSharePct.set(m, stores ? remote_stores / stores * 100 : 0);
  kStores.set(m, stores);
  kUserS.set(m, user_ns / 1e9);
  kTasksFailed.set(m, failed);
  kTasksMovedReserveToFaultPct.set(m, task_samples ? tasks_split / task_samples * 100 : 0);
  if (loop_ps > 0) kStoreLoopAwayFromFaultNodePct.set(m, loop_away_ps / loop_ps * 100);
  for (unsigned n = 0; n < nr_nodes; ++n) {
    kFaultPagesNode.at(n).set(m, fault_pages[n]);
    kReserveTasksNode.at(n).set(m, reserve_tasks[n]);
    kFaultTasksNode.at(n).set(m, fault_tasks[n]);
  }
}

std::vector<run::MetricInfo> usemem_metric_infos() {
  return run::metric_infos(kThroughputKibS, kThroughputStddevPct, kMedianKibS, kMedianStddevPct, kMeanOverMedian, kFreeTimeS, kReserveTimeS,
                           kFaultTimeS, kRemoteStoreSharePct, kStores, kUserS, kTasksFailed, kTasksMovedReserveToFaultPct,
                           kStoreLoopAwayFromFaultNodePct, kFaultPagesNode, kReserveTasksNode, kFaultTasksNode, kIterations);
}

}  // namespace pagesim::workload
