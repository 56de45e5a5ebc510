// The declared metrics table: every workload on every engine reports only declared metrics, each
// declared for that engine (the patterns themselves: tests/result/metrics_test.cc).
#include <gtest/gtest.h>

#include <fmt/format.h>

#include <fstream>
#include <set>

#include "pagesim/run/runner.h"
#include "pagesim/scenario/load.h"
#include "pagesim/workload/registry.h"

namespace pagesim::run {
namespace {

uint8_t engine_bit(const std::string& e) { return e == "uniprocessor" ? kUniprocessor : e == "native" ? kNative : kVirtual; }

TEST(MetricTable, EveryEntryHasAUnitOrCountDescriptionAndOwner) {
  for (const MetricInfo& m : metric_table()) {
    EXPECT_FALSE(m.description.empty()) << m.name;
    EXPECT_FALSE(m.owner.empty()) << m.name;
    EXPECT_NE(m.engines, 0) << m.name;
  }
}

// docs/output.md's metrics table lists exactly the declared metrics, and marks "Host-timed"
// exactly the host-timed ones (tools/compare-results.py reads that mark).
TEST(MetricTable, IsTheDocsTable) {
  std::ifstream in(std::string(PAGESIM_SOURCE_DIR) + "/docs/output.md");
  ASSERT_TRUE(in) << "docs/output.md";
  std::set<std::string> documented, declared, documented_host, declared_host;
  bool inside = false;
  for (std::string line; std::getline(in, line);) {
    if (line == "<!-- metrics:begin -->") inside = true;
    if (line == "<!-- metrics:end -->") inside = false;
    if (!inside || !line.starts_with("| `")) continue;
    const std::string name = line.substr(3, line.find('`', 3) - 3);
    documented.insert(name);
    if (line.find("Host-timed") != std::string::npos) documented_host.insert(name);
  }
  for (const MetricInfo& m : metric_table()) {
    declared.insert(m.name);
    if (m.host_timed) declared_host.insert(m.name);
  }
  for (const std::string& d : declared) EXPECT_TRUE(documented.count(d)) << d << " is declared but not in docs/output.md";
  for (const std::string& d : documented) EXPECT_TRUE(declared.count(d)) << d << " is in docs/output.md but not declared";
  EXPECT_EQ(documented_host, declared_host) << "the metrics docs/output.md marks Host-timed";
}

class WorkloadOnEngine : public ::testing::TestWithParam<std::tuple<std::string, std::string>> {};

TEST_P(WorkloadOnEngine, ReportsOnlyDeclaredMetrics) {
  const auto& [workload, engine] = GetParam();
  // kmem_trace's one parameter without a usable default: the trace it issues.
  const std::string params =
      workload == "kmem_trace" ? fmt::format(", params: {{trace: '{}/tests/workload/kmem_trace/hand.trace'}}", PAGESIM_SOURCE_DIR) : "";
  const std::string yaml = fmt::format(
      "machine: {{nodes: 1, cpus_per_node: 2, memory_per_node: 1G}}\n"
      "kernel: {{presets: [v5.17]}}\nworkload: {{name: {}{}}}\nengine: {}\nwarmup_ops: 2\n",
      workload, params, engine);
  scenario::LoadOptions opt;
  opt.engines = engine_names();
  const scenario::ScenarioSet set = scenario::load_string(yaml, "metrics.yaml", opt);
  RunOptions ro;
  ro.short_mode = true;
  const std::vector<RunResult> runs = run_all(set, ro);
  ASSERT_EQ(runs.size(), 1u);
  for (const auto& [name, value] : runs[0].metrics) {
    const MetricInfo* m = find_metric(name);
    ASSERT_NE(m, nullptr) << name << " is not declared (run::metric_table)";
    if (m->owner != "runner" && m->owner != "engine") {
      // A workload's metric: declared by this workload (another may declare the same name, for
      // other engines), and by it for this engine.
      const workload::WorkloadInfo* w = workload::find_workload(workload);
      const std::string other = m->owner;
      m = nullptr;
      for (const MetricInfo& d : w->metrics)
        if (metric_matches(d, name)) m = &d;
      ASSERT_NE(m, nullptr) << name << " is reported by " << workload << " but declared only by " << other;
    }
    EXPECT_TRUE(m->engines & engine_bit(engine)) << name << " is not declared for the " << engine << " engine";
  }
}

std::vector<std::tuple<std::string, std::string>> every_pair() {
  std::vector<std::tuple<std::string, std::string>> out;
  for (const workload::WorkloadInfo& w : workload::registered_workloads())
    for (const std::string& e : engine_names())
      if (w.engines & engine_bit(e)) out.emplace_back(w.name, e);
  return out;
}

std::string pair_name(const ::testing::TestParamInfo<std::tuple<std::string, std::string>>& info) {
  return std::get<0>(info.param) + "_on_" + std::get<1>(info.param);
}

INSTANTIATE_TEST_SUITE_P(All, WorkloadOnEngine, ::testing::ValuesIn(every_pair()), pair_name);

}  // namespace
}  // namespace pagesim::run
