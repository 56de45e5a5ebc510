// libFuzzer target: a `--set key.path=value` override on arbitrary text, applied to a small
// valid scenario (InputError or a scenario set).
#include <cstddef>
#include <cstdint>
#include <string>

#include "pagesim/error.h"
#include "pagesim/scenario/load.h"

namespace {
constexpr const char* kScenario =
    "machine: {nodes: 2, cpus_per_node: 2, memory_per_node: 64M}\n"
    "kernel: {presets: [v5.17, v5.18], knobs: {thp: true}}\n"
    "workload: {name: random_mixed, params: {ops: 1000}}\n"
    "engine: {name: virtual, sched: numa}\n"
    "repeats: 2\n";
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  pagesim::scenario::LoadOptions opt;
  opt.engines = {"uniprocessor", "native", "virtual"};
  opt.overrides = {std::string(reinterpret_cast<const char*>(data), size)};
  try {
    pagesim::scenario::load_string(kScenario, "fuzz.yaml", opt);
  } catch (const pagesim::InputError&) {
  }
  return 0;
}
