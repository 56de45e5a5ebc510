// A scenario: what to run, on which machine, under which kernel variants, how often, and where
// the results go. Produced by the scenario layer (scenario/load.h) from a YAML file; consumed by
// the runner (run/runner.h). Engine-independent.
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "pagesim/mm/config.h"
#include "pagesim/mm/machine_spec.h"
#include "pagesim/config/params.h"
#include "pagesim/engine/registry.h"
#include "pagesim/vt/machine_model.h"

namespace pagesim::scenario {

// One kernel variant to run: a preset name plus knob overrides, resolved into a config.
struct Variant {
  std::string name;        // as shown in reports: the preset, or "preset knob=value,..."
  mm::KernelConfig config;
};

struct Outputs {
  std::string json;   // "" = none
  std::string csv;
  std::string proc_dir;  // kernel procfs formats per run
};

// One point of a sweep: the parameter path and value that distinguish it ("" when no sweep).
struct SweepPoint {
  std::string key;    // e.g. "machine.cpus"
  std::string value;  // as written, e.g. "4"
};

// Published figures to put beside the model's (`reference:`), e.g. the robot's e-mail.
struct Reference {
  std::string source;
  unsigned iterations = 1;                 // the reference run's: per_iteration rows divide by it
  std::vector<std::string> calibrated;     // model variants calibrated against it; others predict
  std::vector<std::pair<std::string, std::string>> variants;  // model variant -> the reference's name
  struct Row {
    std::string metric;                    // the model's metric name
    bool per_iteration = false;            // totals: divided by the reference's and the model's iterations
    bool calibration_target = false;       // the calibrated variants were fitted to this row
    std::string note;
    std::map<std::string, double> values;  // model variant -> the reference's figure
    std::string label;                     // whose figure: the reference's machine, kernel, size
    // Where the figure was taken, as (key path, value) pairs of the resolved scenario (the swept
    // key included): the model's cell comes from the runs of the point that matches them all.
    // Empty: every run. A row that no point matches is shown with no model cell ("not run").
    std::vector<std::pair<std::string, std::string>> at;
    // Non-empty: the figure is a ratio, the model's stat at `at` over its stat here (a speedup).
    std::vector<std::pair<std::string, std::string>> relative_to;
    std::string stat = "mean";             // over repeats: mean, median or sample_stddev (n - 1)
  };
  std::vector<Row> rows;
  std::vector<std::string> notes;          // published figures with no counterpart in the model
};

// The value at `path` ("workload.params.mode", "machine.nodes[1].cpus") of a resolved scenario
// as a string (a JSON string as is, anything else dumped), or nullopt when there is none.
std::optional<std::string> resolved_value(const nlohmann::ordered_json& resolved, const std::string& path);
// Whether every (path, value) of `at` holds at a sweep point whose resolved scenario (or that of
// the first point, the point's own value standing in for the swept key) is `resolved`.
bool reference_applies(const std::vector<std::pair<std::string, std::string>>& at, const nlohmann::ordered_json& resolved,
                       const SweepPoint& point);
// A `reference:` back from its resolved form (the result JSON's scenario.reference).
Reference reference_from_resolved(const nlohmann::ordered_json& resolved);

struct Scenario {
  std::string file;                 // the YAML file it came from
  std::string description;
  mm::MachineSpec machine;
  std::vector<Variant> variants;    // the first is the base of comparisons
  std::string workload;             // a registered workload name
  config::Params params;
  std::string engine = "uniprocessor";
  // `engine:` options, every registered engine's (engine/registry.h), validated; defaults unset.
  config::Params engine_options = ::pagesim::engine::default_engine_options();
  // The machine file's model when the engine uses one (EngineInfo::uses_machine_model): loaded
  // once, when the scenario loads, and shared by its runs.
  std::shared_ptr<const vt::MachineModel> machine_model;
  unsigned repeats = 1;
  uint64_t seed = 1;
  uint64_t warmup_ops = 0;          // workload-defined unit; 0 = no warm-up phase
  Outputs outputs;
  SweepPoint sweep;
  std::optional<Reference> reference;
  nlohmann::ordered_json resolved;  // the fully resolved scenario, as `validate --resolved` prints it
};

// A scenario file expands to one Scenario per sweep point (one when there is no sweep).
using ScenarioSet = std::vector<Scenario>;

}  // namespace pagesim::scenario
