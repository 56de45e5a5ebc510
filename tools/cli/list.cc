// `pagesim list`: what a scenario can name, one line each.
#include <fmt/format.h>

#include <algorithm>
#include <filesystem>

#include "commands.h"
#include "pagesim/config/shipped.h"
#include "pagesim/engine/registry.h"
#include "pagesim/error.h"
#include "pagesim/mm/config.h"
#include "pagesim/mm/types.h"
#include "pagesim/run/runner.h"
#include "pagesim/scenario/load.h"
#include "pagesim/workload/registry.h"

namespace pagesim::cli {

namespace {

namespace fs = std::filesystem;

// How a preset differs from the first one, in knob settings: the presets' definition.
std::string preset_delta(const std::string& name) {
  const mm::KernelConfig base = *mm::preset_config(mm::preset_names().front());
  const mm::KernelConfig cfg = *mm::preset_config(name);
  std::string out;
  for (const mm::KnobInfo& k : mm::knob_infos())
    if (mm::get_knob(cfg, k.name) != mm::get_knob(base, k.name)) out += fmt::format(" {}={}", k.name, mm::get_knob(cfg, k.name));
  return out.empty() ? " (the base: every knob at its default)" : out;
}

void list_scenarios() {
  const fs::path dir = config::shipped_dir("scenarios");
  std::vector<fs::path> files;
  std::error_code ec;
  for (const fs::directory_entry& e : fs::directory_iterator(dir, ec))
    if (e.path().extension() == ".yaml") files.push_back(e.path());
  std::sort(files.begin(), files.end());
  fmt::print("\nScenarios (pagesim run NAME, or a path; each is {}/NAME.yaml):\n", dir.string());
  for (const fs::path& f : files) {
    std::string what;
    try {
      scenario::LoadOptions opt;
      opt.engines = run::engine_names();
      what = scenario::load_file(f.string(), opt).front().description;
    } catch (const InputError& e) {
      const std::string msg = e.what();
      what = "(does not validate: " + msg.substr(0, msg.find('\n')) + ")";
    }
    fmt::print("  {:<36} {}\n", f.stem().string(), what);
  }
}

}  // namespace

int list(bool metrics_markdown) {
  if (metrics_markdown) {
    fmt::print("{}", run::metrics_markdown(run::metric_table()));
    return 0;
  }
  fmt::print("Workloads (workload.name, workload.params):\n");
  for (const workload::WorkloadInfo& w : workload::registered_workloads()) {
    fmt::print("  {:<20} {}\n", w.name, w.description);
    for (const config::ParamSpec& p : w.params) fmt::print("      {}\n", scenario::describe_param(p));
  }
  fmt::print("\nPresets (kernel.preset, kernel.presets):\n");
  for (const std::string& p : mm::preset_names()) fmt::print("  {:<20}{}\n", p, preset_delta(p));
  fmt::print("  {:<20} alias of v5.18\n", "v5.17+eric+mel");
  fmt::print("\nKnobs (kernel.knobs, kernel.variants[].knobs):\n");
  for (const mm::KnobInfo& k : mm::knob_infos()) fmt::print("  {:<30} {:<30} {}\n", k.name, k.values, k.description);
  fmt::print("\nEngines (engine.name, engine options):\n");
  for (const engine::EngineInfo& e : engine::registered_engines()) {
    fmt::print("  {:<20} {}\n", e.name, e.description);
    for (const config::ParamSpec& o : e.options) fmt::print("      {}\n", scenario::describe_param(o));
  }
  fmt::print("\nMetrics (per run under \"metrics\" in the JSON; {{x}} stands for a node, site or iteration):\n");
  for (const run::MetricInfo& m : run::metric_table())
    fmt::print("  {:<38} {:<6} {:<30} {}: {}{}{}\n", m.name, m.unit.empty() ? "-" : m.unit, run::engine_mask_names(m.engines),
               m.owner, m.description, m.host_timed ? " [host-timed on uniprocessor/native]" : "",
               m.setting ? " [setting: not plotted]" : "");
  fmt::print("\nCounters (per run under \"vmstat\" in the JSON, and in --proc vmstat):\n");
  for (unsigned i = 0; i < mm::NR_VM_EVENT_ITEMS; ++i)
    fmt::print("  {:<26} {}\n", mm::vm_event_name(i), mm::vm_event_description(i));
  list_scenarios();
  return 0;
}

}  // namespace pagesim::cli
