// How many runs go at once: host memory bounds the count, whether it was asked for or not.
#include <gtest/gtest.h>

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
  if (avail > (1u << 30)) EXPECT_GE(memory_jobs(small), 2u);
  EXPECT_LE(auto_jobs(small), 8u);  // never more than the set's runs
}

}  // namespace
}  // namespace pagesim::run
