// Engines behind the runner. An engine runs a scenario's workload on a built Machine and fills
// the engine-specific parts of a RunResult (metrics, locks, cache); the runner does the rest.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "pagesim/mm/machine.h"
#include "pagesim/run/runner.h"

namespace pagesim::run {

struct RunContext {
  const scenario::Scenario& sc;
  const scenario::Variant& variant;
  uint64_t seed;
  const RunOptions& opt;
  mm::Machine& machine;
  RunResult& result;
};

struct EngineInfo {
  std::string name;
  std::string description;
  std::function<void(RunContext&)> run;
};

const std::vector<EngineInfo>& engines();

// Engine implementations (one file each).
void run_uniprocessor(RunContext& ctx);
void run_native(RunContext& ctx);
void run_virtual(RunContext& ctx);

}  // namespace pagesim::run
