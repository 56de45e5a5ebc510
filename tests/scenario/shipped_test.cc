// Every shipped scenario runs, in the runner's short mode, without invariant violations. One
// test per file, so that ctest runs them in parallel and names the file that fails.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>

#include "pagesim/run/runner.h"
#include "pagesim/scenario/load.h"

namespace pagesim::scenario {
namespace {

std::vector<std::string> shipped_scenarios() {
  std::vector<std::string> files;
  for (const auto& e : std::filesystem::directory_iterator(std::filesystem::path(PAGESIM_SOURCE_DIR) / "scenarios"))
    if (e.path().extension() == ".yaml") files.push_back(e.path().stem().string());
  std::sort(files.begin(), files.end());
  return files;
}

class Shipped : public ::testing::TestWithParam<std::string> {};

TEST_P(Shipped, RunsShort) {
  const std::string path = (std::filesystem::path(PAGESIM_SOURCE_DIR) / "scenarios" / (GetParam() + ".yaml")).string();
  LoadOptions opt;
  opt.engines = run::engine_names();
  // A kmem_trace scenario names a trace captured outside the repository (docs/replay.md); here
  // it issues the committed hand-written one, so that the test needs nothing beside the checkout.
  if (load_file(path, opt).front().workload == "kmem_trace")
    opt.overrides.push_back(fmt::format("workload.params.trace={}/tests/workload/kmem_trace/hand.trace", PAGESIM_SOURCE_DIR));
  const ScenarioSet set = load_file(path, opt);
  run::RunOptions ro;
  ro.short_mode = true;
  const std::vector<run::RunResult> runs = run::run_all(set, ro);
  size_t expected = 0;
  for (const Scenario& sc : set) expected += sc.variants.size() * sc.repeats;
  EXPECT_EQ(runs.size(), expected) << path;
  for (const run::RunResult& r : runs) {
    EXPECT_TRUE(r.violations.empty()) << path << " " << r.variant << ": " << r.violations.front();
    // Every reservation was honoured and every allocation found a page: a run that fails its
    // tasks can pass the invariants while measuring nothing of what the scenario is about.
    for (const char* failed : {"tasks_failed", "alloc_failures"})
      if (const auto it = r.metrics.find(failed); it != r.metrics.end()) EXPECT_EQ(it->second, 0) << path << " " << r.variant << ": " << failed;
    EXPECT_FALSE(r.interrupted);
  }
}

std::string file_name(const ::testing::TestParamInfo<std::string>& info) {
  std::string s = info.param;
  std::replace_if(s.begin(), s.end(), [](char c) { return !std::isalnum(static_cast<unsigned char>(c)); }, '_');
  return s;
}

INSTANTIATE_TEST_SUITE_P(Files, Shipped, ::testing::ValuesIn(shipped_scenarios()), file_name);

// The seeds' scenarios carry the seed's published figures (`reference:`), citing the seed
// document, each row on a declared metric, and some row taken where the scenario runs (a value
// not written as the resolved scenario writes it would leave every row "not run").
TEST(ShippedScenarios, SeedsCarryTheirPublishedFigures) {
  for (const char* name : {"seed-000-clear-huge-page", "seed-002-gigantic-clearing", "seed-003-mmap-churn", "seed-003-pcp-churn",
                           "seed-004-memmap-init"}) {
    LoadOptions opt;
    opt.engines = run::engine_names();
    const ScenarioSet set = load_file((std::filesystem::path(PAGESIM_SOURCE_DIR) / "scenarios" / (std::string(name) + ".yaml")).string(), opt);
    ASSERT_TRUE(set.front().reference) << name;
    const Reference& ref = *set.front().reference;
    EXPECT_NE(ref.source.find("../shared/seeds/00"), std::string::npos) << name << ": " << ref.source;
    size_t figures = 0;
    bool some_run = false;
    for (const Reference::Row& row : ref.rows) {
      EXPECT_NE(run::find_metric(row.metric), nullptr) << name << ": " << row.metric;
      figures += row.values.size();
      for (const Scenario& sc : set) some_run = some_run || reference_applies(row.at, set.front().resolved, sc.sweep);
    }
    EXPECT_GT(figures, 0u) << name;
    EXPECT_TRUE(some_run) << name;
  }
}

TEST(ShippedScenarios, ThereAreSome) { EXPECT_GE(shipped_scenarios().size(), 5u); }

}  // namespace
}  // namespace pagesim::scenario
