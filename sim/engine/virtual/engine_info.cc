// The virtual engine as registered (engines.def): its `engine:` options and the check before any
// run. run.cc reads the options into VirtualOptions for each run.
#include <fmt/format.h>

#include <filesystem>

#include "pagesim/engine/registry.h"
#include "pagesim/engine/virtual/sched.h"
#include "pagesim/engine/virtual/virtual.h"
#include "pagesim/error.h"

namespace pagesim::engine {

namespace {

// The machine's fit to the machine file, and the placement trace's existence.
void check_virtual(const mm::MachineSpec& spec, const config::Params& o, const vt::MachineModel* model, const std::string& source) {
  VirtualEngine::geometry_for(spec, *model);
  const std::string& trace = o.string("sched_trace");
  if (!trace.empty() && !std::filesystem::exists(input_path(source, trace)))
    throw InputError(fmt::format("{}: engine.sched_trace: '{}' does not exist", source, trace));
}

}  // namespace

EngineInfo virtual_engine() {
  using config::ParamType;
  EngineInfo e{
      "virtual",
      "tasks as fibers on virtual CPUs, one host thread; deterministic virtual time from a machine file",
      run::kVirtual,
      {
          {"machine_file", ParamType::string, std::string(), {}, {}, {},
           "the machine model: a path (from the working directory, then beside the scenario) or a shipped machine file's "
           "NAME (\"\": machines/icx-8358-2s.yaml)"},
          {"sched", ParamType::choice, std::string("pinned"), {}, {}, sched_policy_names(), "the scheduler policy (docs/model.md, \"The scheduler\")"},
          {"sched_trace", ParamType::string, std::string(), {}, {}, {}, "the trace policy's placement file: lines <time_ns> <task> <cpu>"},
          {"numa_home", ParamType::choice, std::string("kernel"), {}, {}, numa_home_names(),
           "the numa policy's rule for where a task belongs: NUMA balancing's, its fork node's, or none"},
          {"balance_window", ParamType::duration, int64_t{0}, 0, 10e9, {},
           "idle CPUs' next MC and NUMA balances fall due within it after each fork batch (0: the domain's max_interval)"},
          {"slack_ns", ParamType::integer, int64_t{0}, 0, static_cast<double>(uint64_t{1} << 40), {}, "causality slack, ns (0: strict)"},
      },
      run_virtual,
      true,
      check_virtual,
  };
  e.deterministic = true;
  e.check_options = [](const config::Params& o) -> std::optional<config::ParamProblem> {
    if (o.string("sched") == "trace" && o.string("sched_trace").empty())
      return config::ParamProblem{"sched", "the trace policy needs engine.sched_trace, a placement file"};
    return std::nullopt;
  };
  // On the virtual engine only, and of the optional ones those that apply.
  e.resolves = [](const std::string& engine, const config::Params& o, const std::string& option) {
    if (engine != "virtual") return false;
    if (option == "sched_trace") return !o.string("sched_trace").empty();
    if (option == "numa_home") return o.string("sched") == "numa";
    if (option == "balance_window") return o.integer("balance_window") != 0;
    return true;
  };
  return e;
}

}  // namespace pagesim::engine
