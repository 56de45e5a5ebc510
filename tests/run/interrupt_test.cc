// A stop request inside a run: the run stops at its next safe point and is kept as a partial
// run, and no run starts after it (exec/stop.h, run::run_all).
#include <gtest/gtest.h>

#include <atomic>

#include "pagesim/run/runner.h"
#include "pagesim/scenario/load.h"

namespace pagesim::run {
namespace {

scenario::ScenarioSet set_on(const std::string& engine) {
  scenario::LoadOptions opt;
  opt.engines = engine_names();
  return scenario::load_string("machine: {nodes: 1, cpus_per_node: 2, memory_per_node: 256M}\n"
                               "kernel: {presets: [v5.17, v5.18]}\n"
                               "workload: {name: random_mixed, params: {ops: 200000, check_every: 0}}\n"
                               "engine: {name: " + engine + "}\nrepeats: 2\n",
                               "interrupt.yaml", opt);
}

class Interrupt : public ::testing::TestWithParam<std::string> {};

// The progress line's first report inside the first run raises the request, as a SIGINT would.
TEST_P(Interrupt, StopsTheRunInFlightAndStartsNoOther) {
  const scenario::ScenarioSet set = set_on(GetParam());
  std::atomic<bool> stop{false};
  uint64_t done_at_request = 0, total = 0;
  RunOptions opt;
  opt.jobs = 1;
  opt.interrupt = &stop;
  opt.progress = [&](const Progress& p) {
    if (p.what.empty() || stop) return;
    done_at_request = p.done, total = p.total;
    stop = true;
  };
  const std::vector<RunResult> runs = run_all(set, opt);
  ASSERT_EQ(runs.size(), 1u);  // 4 runs in the set; none started after the request
  EXPECT_TRUE(runs[0].interrupted);
  EXPECT_TRUE(runs[0].metrics.empty());
  EXPECT_EQ(total, 200000u);
  EXPECT_LT(done_at_request, total);  // the request came inside the run, which then stopped
}

INSTANTIATE_TEST_SUITE_P(Engines, Interrupt, ::testing::Values("uniprocessor", "native", "virtual"));

// Without a request the same set runs whole, and no run is marked.
TEST(Interrupt, NoRequestNoPartialRun) {
  const scenario::ScenarioSet set = set_on("uniprocessor");
  std::atomic<bool> stop{false};
  RunOptions opt;
  opt.interrupt = &stop;
  const std::vector<RunResult> runs = run_all(set, opt);
  ASSERT_EQ(runs.size(), 4u);
  for (const RunResult& r : runs) EXPECT_FALSE(r.interrupted);
}

}  // namespace
}  // namespace pagesim::run
