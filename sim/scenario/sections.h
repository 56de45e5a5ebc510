// The sections of a scenario file, each read from its tree node into the Scenario and into
// the resolved form (nlohmann::ordered_json) that `validate --resolved` prints.
#pragma once

#include <nlohmann/json.hpp>

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "pagesim/mm/config.h"
#include "pagesim/mm/machine_spec.h"
#include "pagesim/scenario/scenario.h"
#include "pagesim/workload/registry.h"
#include "pagesim/config/schema.h"

namespace pagesim::scenario::detail {

using namespace pagesim::config;  // the tree, schema and diagnostics the sections are read with

// Sets knob `name` of `cfg` from the scalar `n` through mm::set_knob, which defines what is
// valid; fails at n's position naming `path`. Returns the value as written.
std::string apply_knob(mm::KernelConfig& cfg, const std::string& name, const Node& n, const std::string& path);

struct MachineSection {
  mm::MachineSpec spec;
  std::string min_free_kbytes = "auto";  // applied to every variant before its knobs
  nlohmann::ordered_json resolved;
};
// `machine`: the uniform form (nodes, cpus_per_node, memory_per_node, low_zones) or an
// explicit list of nodes with their zones; plus min_free_kbytes.
MachineSection read_machine(const Node& n);

struct KernelSection {
  std::vector<Variant> variants;
  nlohmann::ordered_json resolved;
};
// `kernel`: preset | presets, knobs, variants. `n` may be null (the v5.17 preset).
KernelSection read_kernel(const Node* n, const Pos& where, const std::string& min_free_kbytes);

struct WorkloadSection {
  std::string name;
  uint8_t engines = run::kAllEngines;  // WorkloadInfo::engines
  const workload::WorkloadInfo* info = nullptr;
  config::Params params;
  std::map<std::string, Pos> param_pos;  // where each given parameter's value is; else the section's
  nlohmann::ordered_json resolved;
};
WorkloadSection read_workload(const Node& n, const std::vector<workload::WorkloadInfo>& workloads);

// Loads the machine file of an engine that uses one (engine.machine_file, or the shipped default
// without it) into sc.machine_model, once for the scenario's runs, and returns its inputs for the
// resolved scenario: machine_file_used (the file found), machine_file_sha1 (its content) and
// topology (engine::virtual_topology's statement). A machine file that is nowhere fails at
// `machine_file`'s position, listing the places looked.
nlohmann::ordered_json virtual_inputs(Scenario& sc, const Node* machine_file);

// `reference:`: published figures beside the model's, keyed by the scenario's variants; rows'
// `at` and `relative_to` name paths of `scenario`, the point's resolved form.
Reference read_reference(const Node& n, const std::vector<Variant>& variants, const nlohmann::ordered_json& scenario,
                         nlohmann::ordered_json& resolved);

}  // namespace pagesim::scenario::detail
