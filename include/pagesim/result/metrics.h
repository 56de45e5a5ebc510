// The declared metrics of runs[].metrics: every name a run reports is declared once, where it
// is counted (the runner, an engine, a workload), with its unit, its meaning and the engines
// that fill it. The report, `pagesim list`, the JSON schema test and docs/output.md read the
// assembled table (run::metric_table()).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace pagesim::run {

// Engines that fill a metric, as a mask.
enum EngineMask : uint8_t {
  kUniprocessor = 1,
  kNative = 2,
  kVirtual = 4,
  kThreadedEngines = kNative | kVirtual,
  kAllEngines = kUniprocessor | kNative | kVirtual,
};

struct MetricInfo {
  // The name; `{x}` stands for a part chosen at run time (a node, a site, an iteration), e.g.
  // "irq_off_{site}_count".
  std::string name;
  std::string unit;         // "s", "ns", "%", "KiB/s", "1/s"; "" for counts and ratios
  uint8_t engines = kAllEngines;
  std::string description;
  bool host_timed = false;  // measured with the host clock: differs run to run
  bool setting = false;     // an input or outcome flag echoed for the record (threads, model_valid): not plotted
  // The model's own bookkeeping, no kernel quantity (causality_yields): the comparison table
  // puts it in a section of its own.
  bool bookkeeping = false;
  std::string owner = {};   // who reports it: "runner", an engine, or a workload's name
};

// Whether `name` is an instance of the declared pattern `m.name`.
bool metric_matches(const MetricInfo& m, std::string_view name);

// The engines of a mask by name, "uniprocessor, native, virtual".
std::string engine_mask_names(uint8_t engines);

}  // namespace pagesim::run
