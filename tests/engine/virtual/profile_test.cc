// The measured phase's profile that the virtual engine reports for every workload
// (phase_profile.h): where all vCPU time went, self shares, spinning per lock and idle adding
// up to 100%, with the warm-up before the phase left out.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include "pagesim/run/runner.h"
#include "pagesim/scenario/load.h"
#include "pagesim/workload/registry.h"

namespace pagesim {
namespace {

run::RunResult run_virtual(const std::string& yaml) {
  scenario::LoadOptions opt;
  opt.engines = run::engine_names();
  const scenario::ScenarioSet set = scenario::load_string(yaml, "profile.yaml", opt);
  run::RunOptions ro;
  ro.short_mode = true;
  std::vector<run::RunResult> runs = run::run_all(set, ro);
  EXPECT_EQ(runs.size(), 1u);
  return runs.at(0);
}

// perf-profile.<row>, 0 when the run left it out (a site that charged nothing).
double share(const std::map<std::string, double>& m, const std::string& row) {
  const auto it = m.find("perf-profile." + row);
  return it == m.end() ? 0 : it->second;
}

// The rows that partition all vCPU time: perf-profile.self.*, perf-profile.spin.*, idle_pct.
double partition_sum(const std::map<std::string, double>& m) {
  double sum = 0;
  for (const auto& [name, v] : m)
    if (name.starts_with("perf-profile.self.") || name.starts_with("perf-profile.spin.") || name == "idle_pct") sum += v;
  return sum;
}

// thp_alloc on 2 nodes x 4 vCPUs with a warm-up twice as long as the measured loops: had the
// warm-up's busy time counted, idle would be clamped at 0 and the shares would pass 100%.
TEST(VirtualProfile, ThpAllocSharesAddUpToAllCpuTime) {
  const run::RunResult r = run_virtual(
      "machine: {nodes: 2, cpus_per_node: 4, memory_per_node: 512M}\n"
      "kernel: {presets: [v5.17]}\n"
      "workload: {name: thp_alloc, params: {iterations: 10, batch: 4}}\n"
      "engine: virtual\nwarmup_ops: 20\n");
  const auto& m = r.metrics;
  for (const char* row : {"idle_pct", "time.elapsed_time", "perf-profile.self.prep_compound_page", "perf-profile.self.rmqueue_bulk",
                          "perf-profile.self.__rmqueue_smallest", "perf-profile.self.free_pcppages_bulk",
                          "perf-profile.self.__free_one_page", "perf-profile.self.other", "perf-profile.spin.zone_lock",
                          "perf-profile.spin.hugetlb_lock", "perf-profile.children.rmqueue_bulk"})
    ASSERT_TRUE(m.count(row)) << row;
  for (const auto& [name, v] : m) {
    if (name.starts_with("perf-profile.") || name == "idle_pct") {
      EXPECT_GE(v, 0) << name;
    }
  }
  EXPECT_NEAR(partition_sum(m), 100, 1e-9);
  EXPECT_GT(m.at("idle_pct"), 0) << "the tasks wait at the closing barrier";
  EXPECT_LT(m.at("idle_pct"), 100);
  // The children rows are counted apart: prep_compound_page takes no lock, so its children
  // share is its self share; rmqueue_bulk's and free_pcppages_bulk's are their own and their
  // callees' self shares and all the zone->lock spinning (they alone take it here).
  EXPECT_DOUBLE_EQ(share(m, "self.prep_compound_page"), share(m, "children.prep_compound_page"));
  EXPECT_NEAR(share(m, "children.rmqueue_bulk") + share(m, "children.free_pcppages_bulk"),
              share(m, "self.rmqueue_bulk") + share(m, "self.__rmqueue_smallest") + share(m, "self.expand") +
                  share(m, "self.check_pcp_refill") + share(m, "self.free_pcppages_bulk") + share(m, "self.__free_one_page") +
                  share(m, "spin.zone_lock"),
              1e-9);
  EXPECT_NEAR(share(m, "spin.zone_lock") + share(m, "spin.hugetlb_lock"), share(m, "children.native_queued_spin_lock_slowpath"), 1e-9);
  // Every site is charged inside a syscall here, so the busy time outside the syscalls is
  // charged to no site: "other" holds at least that.
  const double sys_share = 100 * m.at("sys_s") / (m.at("elapsed_s") * 8);
  EXPECT_GE(share(m, "self.other") + 1e-9, 100 - m.at("idle_pct") - sys_share);
}

class VirtualWorkloadProfile : public ::testing::TestWithParam<std::string> {};

// Every workload on the virtual engine gets the profile without code of its own.
TEST_P(VirtualWorkloadProfile, ReportsSharesThatAddUpToAllCpuTime) {
  const std::string& workload = GetParam();
  const std::string params =
      workload == "kmem_trace" ? fmt::format(", params: {{trace: '{}/tests/workload/kmem_trace/hand.trace'}}", PAGESIM_SOURCE_DIR) : "";
  const run::RunResult r = run_virtual(fmt::format(
      "machine: {{nodes: 1, cpus_per_node: 2, memory_per_node: 1G}}\n"
      "kernel: {{presets: [v5.17]}}\nworkload: {{name: {}{}}}\nengine: virtual\nwarmup_ops: 2\n",
      workload, params));
  for (const char* row : {"idle_pct", "time.elapsed_time", "time.system_time", "sched.migrations", "perf-profile.self.other",
                          "perf-profile.spin.zone_lock", "perf-profile.children.rmqueue_bulk"})
    EXPECT_TRUE(r.metrics.count(row)) << row;
  EXPECT_NEAR(partition_sum(r.metrics), 100, 1e-9);
}

std::vector<std::string> virtual_workloads() {
  std::vector<std::string> out;
  for (const workload::WorkloadInfo& w : workload::registered_workloads())
    if (w.engines & run::kVirtual) out.push_back(w.name);
  return out;
}

INSTANTIATE_TEST_SUITE_P(All, VirtualWorkloadProfile, ::testing::ValuesIn(virtual_workloads()),
                         [](const ::testing::TestParamInfo<std::string>& i) { return i.param; });

}  // namespace
}  // namespace pagesim
