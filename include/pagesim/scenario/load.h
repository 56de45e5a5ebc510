// Loading scenario files: a strict schema over yaml-cpp (docs/scenarios.md is the reference).
//
// Every problem with the input throws pagesim::InputError with a message of the form
//   FILE:LINE:COL: key.path: expected ..., got ...
// (1-based positions) followed by the offending source line and a caret. Misspelt keys and
// names carry "(did you mean 'x'?)". Overrides from the command line are positioned as
// "<--set>:1:COL" within their argument.
//
// Example:
//   scenario::LoadOptions opt;
//   opt.overrides = {"workload.params.ops=1000"};
//   opt.engines = run::engine_names();
//   const scenario::ScenarioSet set = scenario::load_file("scenarios/default.yaml", opt);
#pragma once

#include <nlohmann/json.hpp>

#include <string>
#include <string_view>
#include <vector>

#include "pagesim/scenario/scenario.h"
#include "pagesim/workload/registry.h"

namespace pagesim::scenario {

struct LoadOptions {
  // "key.path=value" overrides, applied in order before validation. The value is YAML text,
  // typed by the schema like a value in the file (a list makes a sweep). Path segments are
  // map keys, or `key[i]` for the i-th element of a list (machine.nodes[1].cpus).
  std::vector<std::string> overrides;
  // Valid `engine` names (the CLI passes run::engine_names()). Empty: only Scenario's default.
  std::vector<std::string> engines;
  // Workloads to validate against; nullptr: workload::registered_workloads(). Tests inject their
  // own to cover every parameter type.
  const std::vector<workload::WorkloadInfo>* workloads = nullptr;
};

// The scenario file `arg` names: a path that exists, else a shipped scenario by name (NAME or
// NAME.yaml in config::shipped_dir("scenarios")). Throws InputError listing where it looked.
std::string find_file(const std::string& arg);

// Reads and validates a scenario file. Throws InputError (a missing file included).
ScenarioSet load_file(const std::string& path, const LoadOptions& opt = {});
// The same from text; `name` stands for the file name in messages and in Scenario::file.
ScenarioSet load_string(std::string_view yaml, const std::string& name, const LoadOptions& opt = {});

// The resolved scenario of a set as one JSON value: the scenario itself when there is no sweep,
// otherwise an array with one resolved scenario per sweep point. Each is loadable as a scenario.
nlohmann::ordered_json resolved_json(const ScenarioSet& set);

// Replaces the outputs of every scenario in the set (and in their resolved form), as the CLI's
// --json/--csv/--proc/--out options do. Empty fields of `o` leave the scenario's value alone.
void override_outputs(ScenarioSet& set, const Outputs& o);

// The preset names a scenario accepts: mm's presets and the alias v5.17+eric+mel (= v5.18).
std::vector<std::string> preset_choices();

// One line describing a workload parameter, for `pagesim list` and docs:
// "ops  integer in [1, 1000000000000], default 200000: allocation or free operations".
std::string describe_param(const config::ParamSpec& spec);

}  // namespace pagesim::scenario
