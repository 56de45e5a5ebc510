// A scenario: what to run, on which machine, under which kernel variants, how often, and where
// the results go. Produced by the scenario layer (scenario/load.h) from a YAML file; consumed by
// the runner (run/runner.h). Engine-independent.
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "pagesim/mm/config.h"
#include "pagesim/mm/machine_spec.h"
#include "pagesim/config/params.h"
#include "pagesim/engine/engine.h"

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
  };
  std::vector<Row> rows;
};

struct Scenario {
  std::string file;                 // the YAML file it came from
  std::string description;
  mm::MachineSpec machine;
  std::vector<Variant> variants;    // the first is the base of comparisons
  std::string workload;             // a registered workload name
  config::Params params;
  std::string engine = "uniprocessor";
  ::pagesim::engine::EngineOptions engine_options;
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
