// The workload registry: each workload lives in its own folder (sim/workload/<name>/) with its
// typed parameters, its task bodies for every engine's driver and the metrics it reports, and
// registers itself with one line in sim/workload/workloads.def. The scenario layer validates
// `workload.params` against the declared parameters; `pagesim list` describes them.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "pagesim/config/params.h"
#include "pagesim/engine/engine.h"
#include "pagesim/mm/machine_spec.h"
#include "pagesim/result/metrics.h"
#include "pagesim/result/workload_result.h"

namespace pagesim::workload {

// What a workload is built from.
struct Args {
  const config::Params& params;  // validated against WorkloadInfo::params
  uint64_t warmup_ops = 0;       // the scenario's warm-up, in the workload's own unit
};

// Rebuilds a workload's own records of a run (RunResult::workload_result) from runs[].tasks.
using ResultReader = std::function<std::shared_ptr<const run::WorkloadResult>(const nlohmann::json& tasks)>;

using config::ParamProblem;  // a parameter value that the machine or the engine rules out

struct WorkloadInfo {
  std::string name;
  std::string description;
  std::vector<config::ParamSpec> params;
  std::vector<run::MetricInfo> metrics;  // what it adds to runs[].metrics
  std::function<std::unique_ptr<engine::Program>(const Args&)> make;
  uint8_t engines = run::kAllEngines;  // the engines it runs on (a host measurement: not virtual)
  // Optional: checks the parameters against the scenario's machine and engine when it is
  // loaded, so that `pagesim validate` and `run` stop on a bad value at its line and column.
  // `source` is the scenario file, beside which input files are looked for.
  std::function<std::optional<ParamProblem>(const config::Params&, const mm::MachineSpec&, const std::string& engine,
                                            const std::string& source)>
      check;
  // Optional, virtual engine: checks the parameters against the machine file's model, before any
  // run (run::preflight, so `pagesim validate` too) and as each run starts; throws InputError
  // naming the machine file's key and the scenario `source`'s.
  std::function<void(const config::Params&, const vt::MachineModel&, const std::string& source)> check_model;
  // Optional: for a workload that sets RunResult::workload_result, the reader of its
  // runs[].tasks, so that `pagesim compare` and `merge` get its records back from a result file.
  ResultReader read_result = {};
  // The metric a reader looks at first (one of `metrics`): the comparison table's first row.
  std::string headline = {};
};

// Every registered workload, sorted by name.
const std::vector<WorkloadInfo>& registered_workloads();
const WorkloadInfo* find_workload(const std::string& name);

}  // namespace pagesim::workload
