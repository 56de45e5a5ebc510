// How many runs go at once (host memory bounds the count, whether it was asked for or not),
// and in which order they start.
#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include "pagesim/mm/memmap.h"
#include "pagesim/run/runner.h"
#include "pagesim/scenario/load.h"

namespace pagesim::run {
namespace {

scenario::ScenarioSet machine_of(const std::string& memory_per_node) {
  scenario::LoadOptions opt;
  opt.engines = engine_names();
  return scenario::load_string("machine: {nodes: 1, cpus_per_node: 1, memory_per_node: " + memory_per_node +
                                   "}\nkernel: {presets: [v5.17, v5.18]}\nworkload: {name: random_mixed}\nrepeats: 4\n",
                               "jobs.yaml", opt);
}

TEST(Jobs, HostMemoryBoundsTheRunsAtOnce) {
  const uint64_t avail = mm::HostMemory::probe().mem_available_bytes;
  if (!avail) GTEST_SKIP() << "no MemAvailable on this host";
  // A memmap larger than the host's free memory: one run at a time, even when more are asked.
  const scenario::ScenarioSet huge = machine_of(std::to_string((avail / 64 * 4096 >> 30) + 64) + "G");
  EXPECT_EQ(memory_jobs(huge), 1u);
  EXPECT_EQ(auto_jobs(huge), 1u);
  // A 64 MiB machine (a 1 MiB memmap plus the margin) fits many times.
  const scenario::ScenarioSet small = machine_of("64M");
  if (avail > (1u << 30)) {
    EXPECT_GE(memory_jobs(small), 2u);
  }
  EXPECT_LE(auto_jobs(small), 8u);  // never more than the set's runs
}

// The repeats of one variant start side by side (they cost about the same, so workers finish
// together); the results stay in run order, repeat by repeat.
TEST(Jobs, RepeatsOfAVariantStartTogetherAndResultsStayInRunOrder) {
  scenario::LoadOptions lo;
  lo.engines = engine_names();
  const scenario::ScenarioSet set = scenario::load_string(
      "machine: {nodes: 1, cpus_per_node: 1, memory_per_node: 64M}\nkernel: {presets: [v5.17, v5.18]}\n"
      "workload: {name: random_mixed, params: {ops: 200}}\nrepeats: 2\n",
      "order.yaml", lo);
  std::vector<std::pair<std::string, unsigned>> started;
  RunOptions opt;
  opt.jobs = 1;
  opt.progress = [&](const Progress& p) {
    if (started.empty() || started.back() != std::pair(p.variant, p.repeat)) started.emplace_back(p.variant, p.repeat);
  };
  const std::vector<RunResult> runs = run_all(set, opt);
  using Run = std::pair<std::string, unsigned>;
  EXPECT_EQ(started, (std::vector<Run>{{"v5.17", 0}, {"v5.17", 1}, {"v5.18", 0}, {"v5.18", 1}}));
  std::vector<Run> order;
  for (const RunResult& r : runs) order.emplace_back(r.variant, r.repeat);
  EXPECT_EQ(order, (std::vector<Run>{{"v5.17", 0}, {"v5.18", 0}, {"v5.17", 1}, {"v5.18", 1}}));
}

}  // namespace
}  // namespace pagesim::run
