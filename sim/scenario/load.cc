// Loading a scenario file: parse, apply --set overrides, expand the sweep, validate each point.
#include "pagesim/scenario/load.h"

#include <fmt/format.h>

#include <cerrno>
#include <filesystem>
#include <limits>

#include "pagesim/config/diagnostics.h"
#include "pagesim/config/shipped.h"
#include "overrides.h"
#include "pagesim/error.h"
#include "pagesim/engine/registry.h"
#include "pagesim/config/units.h"
#include "sections.h"
#include "sweep.h"

namespace pagesim::scenario {

namespace {

using namespace detail;

constexpr int64_t kMaxRepeats = 10000;

nlohmann::ordered_json outputs_json(const Outputs& o) {
  return {{"json", o.json}, {"csv", o.csv}, {"proc_dir", o.proc_dir}};
}

std::string read_output(const MapView& m, const char* key) {
  const Node* n = m.get(key);
  return n ? read_string(*n, m.path(key)) : std::string();
}

// `engine:` is an engine name, or a map with the name and options, every engine's
// (engine::EngineInfo::options), validated as workload parameters are.
void read_engine(const Node& e, const LoadOptions& opt, Scenario& sc) {
  const std::vector<std::string> names = opt.engines.empty() ? std::vector<std::string>{sc.engine} : opt.engines;
  if (e.kind != Node::Kind::map) {
    sc.engine = read_choice(e, "engine", names);
    return;
  }
  std::vector<std::string> keys{"name"};
  for (const engine::EngineInfo& info : engine::registered_engines())
    for (const config::ParamSpec& o : info.options) keys.push_back(o.name);
  const MapView m(e, "engine", keys);
  sc.engine = read_choice(m.require("name"), m.path("name"), names);
  std::map<std::string, config::ParamValue> values;
  for (const engine::EngineInfo& info : engine::registered_engines())
    for (const config::ParamSpec& o : info.options) {
      const Node* n = m.get(o.name);
      values[o.name] = n ? read_param(*n, m.path(o.name), o) : o.default_value;
    }
  sc.engine_options = config::Params(std::move(values));
  for (const engine::EngineInfo& info : engine::registered_engines())
    if (info.check_options)
      if (const std::optional<config::ParamProblem> p = info.check_options(sc.engine_options)) {
        const Node* at = m.get(p->param);
        fail(at ? at->pos : e.pos, m.path(p->param), p->message);
      }
}

// The resolved `engine`: its name and the options each engine's declaration shows
// (EngineInfo::resolves), then the machine file's inputs when the engine uses one.
nlohmann::ordered_json resolved_engine(Scenario& sc, const Node* e) {
  nlohmann::ordered_json r = {{"name", sc.engine}};
  for (const engine::EngineInfo& info : engine::registered_engines())
    for (const config::ParamSpec& o : info.options)
      if (info.resolves ? info.resolves(sc.engine, sc.engine_options, o.name) : info.name == sc.engine)
        r[o.name] = param_json(o, sc.engine_options.values().at(o.name));
  if (const engine::EngineInfo* info = engine::find_engine(sc.engine); info && info->uses_machine_model)
    r.update(virtual_inputs(sc, e && e->kind == Node::Kind::map ? e->find("machine_file") : nullptr));
  return r;
}

// Validates one sweep point (or the whole file when nothing is swept).
Scenario read_scenario(const Node& root, const std::string& file, const LoadOptions& opt) {
  const MapView m(root, "", {"description", "machine", "kernel", "workload", "engine", "repeats", "seed", "warmup_ops", "outputs", "reference"});
  Scenario sc;
  sc.file = file;
  if (const Node* d = m.get("description")) sc.description = read_string(*d, "description");
  const MachineSection machine = read_machine(m.require("machine"));
  sc.machine = machine.spec;
  KernelSection kernel = read_kernel(m.get("kernel"), root.pos, machine.min_free_kbytes);
  sc.variants = std::move(kernel.variants);
  const WorkloadSection wl = read_workload(m.require("workload"), opt.workloads ? *opt.workloads : workload::registered_workloads());
  sc.workload = wl.name;
  sc.params = wl.params;
  if (const Node* e = m.get("engine")) read_engine(*e, opt, sc);
  // A workload that measures the host runs on the host engines only (WorkloadInfo::engines).
  const engine::EngineInfo* info = engine::find_engine(sc.engine);
  const uint8_t engine_bit = info ? info->bit : 0;
  if (engine_bit && !(wl.engines & engine_bit)) {
    const Node* e = m.get("engine");
    const Node* name = e && e->kind == Node::Kind::map ? e->find("name") : e;
    const Node& at = name ? *name : m.require("workload");
    fail(at.pos, e ? "engine.name" : "workload.name",
         fmt::format("workload {} runs on the {} engine(s) only, not on {}", sc.workload, run::engine_mask_names(wl.engines), sc.engine));
  }
  if (wl.info->check)
    if (const std::optional<workload::ParamProblem> p = wl.info->check(sc.params, sc.machine, sc.engine, file))
      fail(wl.param_pos.at(p->param), "workload.params." + p->param, p->message);
  if (const Node* r = m.get("repeats")) sc.repeats = static_cast<unsigned>(read_integer(*r, "repeats", 1, kMaxRepeats));
  if (const Node* s = m.get("seed")) sc.seed = read_unsigned(*s, "seed", 0, std::numeric_limits<uint64_t>::max());
  if (const Node* w = m.get("warmup_ops")) sc.warmup_ops = read_unsigned(*w, "warmup_ops", 0, std::numeric_limits<int64_t>::max());
  if (const Node* o = m.get("outputs")) {
    const MapView out(*o, "outputs", {"json", "csv", "proc_dir"});
    sc.outputs = Outputs{read_output(out, "json"), read_output(out, "csv"), read_output(out, "proc_dir")};
  }

  nlohmann::ordered_json& r = sc.resolved;
  r["description"] = sc.description;
  r["machine"] = machine.resolved;
  r["kernel"] = std::move(kernel.resolved);
  r["workload"] = wl.resolved;
  r["engine"] = resolved_engine(sc, m.get("engine"));
  r["repeats"] = sc.repeats;
  r["seed"] = sc.seed;
  r["warmup_ops"] = sc.warmup_ops;
  r["outputs"] = outputs_json(sc.outputs);
  // Last: its rows' `at` keys are paths of the resolved scenario above.
  if (const Node* ref = m.get("reference")) {
    nlohmann::ordered_json reference;
    sc.reference = read_reference(*ref, sc.variants, r, reference);
    r["reference"] = std::move(reference);
  }
  return sc;
}

}  // namespace

ScenarioSet load_string(std::string_view yaml, const std::string& name, const LoadOptions& opt) {
  auto src = std::make_shared<const Source>(Source{name, std::string(yaml)});
  Node root = parse_yaml(src, src->text);
  for (const std::string& o : opt.overrides) apply_override(root, o);
  // A root that is not a map fails in read_scenario with a clear message; only maps can sweep.
  const std::optional<SweepSite> sweep = root.kind == Node::Kind::map ? find_sweep(root) : std::nullopt;
  ScenarioSet set;
  if (!sweep) {
    set.push_back(read_scenario(root, name, opt));
    return set;
  }
  for (size_t i = 0; i < sweep->list->items.size(); ++i) {
    Scenario sc = read_scenario(sweep_point(root, *sweep, i), name, opt);
    sc.sweep = SweepPoint{sweep->key, sweep->list->items[i].text};
    set.push_back(std::move(sc));
  }
  return set;
}

std::string find_file(const std::string& arg) {
  std::vector<std::filesystem::path> where{arg};
  for (std::filesystem::path& p : config::shipped_candidates("scenarios", arg)) where.push_back(std::move(p));
  return config::require_existing("scenario", arg, where);
}

ScenarioSet load_file(const std::string& path, const LoadOptions& opt) {
  return load_string(read_config_file(path, "scenario"), path, opt);
}

nlohmann::ordered_json resolved_json(const ScenarioSet& set) {
  if (set.size() == 1) return set.front().resolved;
  nlohmann::ordered_json points = nlohmann::ordered_json::array();
  for (const Scenario& sc : set) points.push_back(sc.resolved);
  return points;
}

void override_outputs(ScenarioSet& set, const Outputs& o) {
  for (Scenario& sc : set) {
    if (!o.json.empty()) sc.outputs.json = o.json;
    if (!o.csv.empty()) sc.outputs.csv = o.csv;
    if (!o.proc_dir.empty()) sc.outputs.proc_dir = o.proc_dir;
    sc.resolved["outputs"] = outputs_json(sc.outputs);
  }
}

std::string describe_param(const config::ParamSpec& s) {
  using config::ParamType;
  std::string type(param_type_name(s.type));
  if (s.type == ParamType::choice) type += " of " + join(s.choices, "|");
  auto bound = [&](double b) { return bound_text(s.type, b); };
  if (s.min && s.max) type += fmt::format(" in [{}, {}]", bound(*s.min), bound(*s.max));
  else if (s.min) type += fmt::format(" >= {}", bound(*s.min));
  else if (s.max) type += fmt::format(" <= {}", bound(*s.max));
  return fmt::format("{}  {}, default {}: {}", s.name, type, param_json(s, s.default_value).dump(), s.description);
}

}  // namespace pagesim::scenario
