// The declared metrics table: every workload on every engine reports only declared metrics, each
// declared for that engine (the patterns themselves: tests/result/metrics_test.cc).
#include <gtest/gtest.h>

#include <fmt/format.h>

#include <fstream>

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

// docs/output.md's metrics table is the declared table as `pagesim list --metrics-markdown`
// prints it, verbatim (tools/compare-results.py reads its "Host-timed" marks).
TEST(MetricTable, IsTheDocsTable) {
  std::ifstream in(std::string(PAGESIM_SOURCE_DIR) + "/docs/output.md");
  ASSERT_TRUE(in) << "docs/output.md";
  std::string documented;
  bool inside = false;
  for (std::string line; std::getline(in, line);) {
    if (line == "<!-- metrics:end -->") inside = false;
    if (inside) documented += line + "\n";
    if (line == "<!-- metrics:begin -->") inside = true;
  }
  EXPECT_EQ(documented, metrics_markdown(metric_table()))
      << "regenerate docs/output.md's table between the metrics markers with `pagesim list --metrics-markdown`";
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
