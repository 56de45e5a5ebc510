#include "usemem_metrics.h"

#include <fmt/format.h>

#include "pagesim/result/samples.h"

namespace pagesim::workload {

namespace {

// The share of a task's stores that went to another node than its CPU's. Stores are uniform
// over the task's pages; without the engine's store-loop residency, the share is that of its
// pages on another node than the CPU it faulted on.
double remote_share(const UsememTaskResult& t) {
  if (t.remote_store_share >= 0) return t.remote_store_share;
  return t.pages ? static_cast<double>(t.remote_pages) / static_cast<double>(t.pages) : 0;
}

run::TaskPlacement::Iteration placement_of(const UsememTaskResult& t) {
  run::TaskPlacement::Iteration p;
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

void usemem_metrics(const std::vector<std::vector<UsememTaskResult>>& results, unsigned nr_nodes,
                    run::RunResult& r, bool phase_times) {
  std::map<std::string, double>& m = r.metrics;
  m["iterations"] = static_cast<double>(results.size());
  r.tasks.clear();
  for (const auto& iteration : results) {
    if (r.tasks.size() < iteration.size()) r.tasks.resize(iteration.size());
    for (size_t t = 0; t < iteration.size(); ++t) {
      r.tasks[t].task = static_cast<unsigned>(t);
      r.tasks[t].iterations.push_back(placement_of(iteration[t]));
    }
  }
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
  m["throughput_kib_s"] = mean;
  m["throughput_stddev_pct"] = run::stddev_pct_of(throughput);
  m["median_kib_s"] = median_mean;
  m["median_stddev_pct"] = run::stddev_pct_of(medians);
  double ratio = 0;
  for (double x : mean_over_median) ratio += x;
  if (!mean_over_median.empty()) m["mean_over_median"] = ratio / static_cast<double>(mean_over_median.size());
  m["free_time_s"] = free_n ? free_sum / free_n : 0;
  if (phase_times) {  // mean per task and iteration
    m["reserve_time_s"] = free_n ? reserve_s / free_n : 0;
    m["fault_time_s"] = free_n ? fault_s / free_n : 0;
  }
  m["remote_store_share_pct"] = stores ? remote_stores / stores * 100 : 0;
  m["stores"] = stores;
  m["user_s"] = user_ns / 1e9;
  m["tasks_failed"] = failed;
  m["tasks_moved_reserve_to_fault_pct"] = task_samples ? tasks_split / task_samples * 100 : 0;
  if (loop_ps > 0) m["store_loop_away_from_fault_node_pct"] = loop_away_ps / loop_ps * 100;
  for (unsigned n = 0; n < nr_nodes; ++n) {
    m[fmt::format("fault_pages_node{}", n)] = fault_pages[n];
    m[fmt::format("reserve_tasks_node{}", n)] = reserve_tasks[n];
    m[fmt::format("fault_tasks_node{}", n)] = fault_tasks[n];
  }
}

std::vector<run::MetricInfo> usemem_metric_infos() {
  using run::kAllEngines, run::kVirtual, run::kUniprocessor, run::kNative;
  return {
      {"throughput_kib_s", "KiB/s", kAllEngines, "vm-scalability.throughput: the sum of the tasks' KiB/s, mean over iterations", true},
      {"throughput_stddev_pct", "%", kAllEngines, "its spread over iterations", true},
      {"median_kib_s", "KiB/s", kAllEngines, "vm-scalability.median: the tasks' upper median, mean over iterations", true},
      {"median_stddev_pct", "%", kAllEngines, "its spread over iterations", true},
      {"mean_over_median", "", kAllEngines, "the tasks' mean rate over their upper median, mean over iterations", true},
      {"free_time_s", "s", kAllEngines, "vm-scalability.free_time: mean munmap time per task and iteration", true},
      {"reserve_time_s", "s", kVirtual, "mean per task and iteration of its mmap, the surplus reservation"},
      {"fault_time_s", "s", kVirtual, "mean per task and iteration of its fault loop: dequeue and clear_huge_page"},
      {"remote_store_share_pct", "%", kAllEngines,
       "node-store-miss-rate: stores to a page homed on another node than the storing CPU's"},
      {"stores", "", kAllEngines, "8-byte stores issued"},
      {"user_s", "s", kAllEngines, "store-loop time summed over tasks", true},
      {"tasks_failed", "", kAllEngines, "task-iterations whose mmap or a fault failed"},
      {"tasks_moved_reserve_to_fault_pct", "%", kAllEngines, "tasks on another node at their first fault than at mmap"},
      {"store_loop_away_from_fault_node_pct", "%", kVirtual, "store-loop time run on another node than the fault node"},
      {"fault_pages_node{n}", "pages", kAllEngines, "huge pages faulted from node n's pool"},
      {"reserve_tasks_node{n}", "", kAllEngines, "task-iterations whose mmap (gather_surplus_pages) ran on node n"},
      {"fault_tasks_node{n}", "", kAllEngines, "task-iterations whose first fault ran on node n"},
      {"data_scale", "", kUniprocessor | kNative, "the host data region is SIZE / data_scale", false, true},
      {"size_bytes", "B", kAllEngines, "per-task SIZE", false, true},
      {"nr_task", "", kVirtual, "usemem -n", false, true},
      {"iterations", "", kAllEngines, "case iterations run", false, true},
      {"store_dram_util_node{n}_it{i}", "", kVirtual,
       "node n's memory controller utilisation (busiest station) with iteration i's store loops all running"},
      {"store_dram_transactions_node{n}_it{i}", "1/s", kVirtual, "DRAM transactions homed on node n, same fixed point"},
      {"store_directory_writes_node{n}_it{i}", "1/s", kVirtual,
       "directory writes among them (remote RFOs on a machine with directory_writes), same fixed point"},
      {"store_local_ns_node{n}_it{i}", "ns", kVirtual, "loaded latency of a local miss on node n, iteration i"},
      {"store_remote_ns_node{n}_it{i}", "ns", kVirtual, "loaded latency of a remote miss to node n, iteration i"},
      {"hugepages_surp_node{n}_it{i}", "pages", kVirtual, "HugePages_Surp of node n once every task of iteration i faulted"},
      {"hugepages_surp_after_mmap_node{n}_it{i}", "pages", kVirtual,
       "HugePages_Surp of node n when iteration i's last mmap (reservation) returned"},
      {"memory_model_solves", "", kVirtual, "re-solves of the memory model as loops and clears start, move and end"},
  };
}

}  // namespace pagesim::workload
