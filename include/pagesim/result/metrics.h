// The declared metrics of runs[].metrics: every name a run reports is declared once, at the top
// of the file that counts it (the runner, an engine, a workload), as a typed handle (Metric,
// MetricPattern) with its unit, its meaning and the engines that fill it, and is written
// through that handle, so a misspelt name does not compile. The report, `pagesim list`, the
// JSON schema test and docs/output.md read the assembled table (run::metric_table()).
#pragma once

#include <fmt/format.h>

#include <cstddef>
#include <cstdint>
#include <map>
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

// The declared table as docs/output.md's rows (`pagesim list --metrics-markdown`).
std::string metrics_markdown(const std::vector<MetricInfo>& table);

using Metrics = std::map<std::string, double>;  // runs[].metrics

namespace detail {
consteval size_t count_parts(std::string_view name) {
  size_t n = 0;
  for (char c : name) n += c == '{';
  return n;
}
// The name with its `{x}` parts replaced, in order; throws std::invalid_argument for a part that
// is empty, holds a brace or the text that follows its place (the name would read back split
// elsewhere), so that every written name is an instance of its pattern.
std::string fill_parts(std::string_view pattern, const std::vector<std::string>& parts);
}  // namespace detail

// The fields every handle declares, in MetricInfo's order.
struct MetricDecl {
  std::string_view name, unit;
  uint8_t engines = kAllEngines;
  std::string_view description;
  bool host_timed = false, setting = false, bookkeeping = false;

  MetricInfo info() const {
    return {std::string(name), std::string(unit), engines, std::string(description), host_timed, setting, bookkeeping};
  }
};

// A metric with a fixed name: `constexpr run::Metric kAllocs{"allocs", "", kAllEngines, "..."};`
// then `kAllocs.set(r.metrics, n)`. A name with a `{x}` part does not compile.
struct Metric : MetricDecl {
  consteval Metric(std::string_view n, std::string_view u, uint8_t e, std::string_view d, bool host = false,
                   bool set = false, bool book = false)
      : MetricDecl{n, u, e, d, host, set, book} {
    if (detail::count_parts(n) != 0) throw "a patterned name needs run::MetricPattern";
  }
  void set(Metrics& m, double v) const { m[std::string(name)] = v; }
  double get(const Metrics& m) const { return m.at(std::string(name)); }
  // Its value, or `otherwise` where the run did not report it (an engine that does not count it).
  double get_or(const Metrics& m, double otherwise) const {
    const auto it = m.find(std::string(name));
    return it == m.end() ? otherwise : it->second;
  }
};

// A metric whose name has N parts chosen at run time (`irq_off_{site}_count`): declared with
// its N, written as `kIrqOffCount.at(site).set(m, v)`. A pattern whose part count is not N does
// not compile; at() takes exactly N parts and refuses one that does not fit (detail::fill_parts).
template <size_t N>
struct MetricPattern : MetricDecl {
  consteval MetricPattern(std::string_view n, std::string_view u, uint8_t e, std::string_view d, bool host = false,
                          bool set = false, bool book = false)
      : MetricDecl{n, u, e, d, host, set, book} {
    if (N == 0 || detail::count_parts(n) != N) throw "the pattern's {x} parts are not N";
  }
  struct Instance {
    std::string name;
    void set(Metrics& m, double v) const { m[name] = v; }
  };
  template <typename... Parts>
  Instance at(const Parts&... parts) const {
    static_assert(sizeof...(Parts) == N, "one value per {x} part of the pattern");
    return {detail::fill_parts(name, {fmt::format("{}", parts)...})};
  }
};

// The declarations of handles, in order, for a declared list (WorkloadInfo::metrics, an engine's).
template <typename... Handles>
std::vector<MetricInfo> metric_infos(const Handles&... handles) {
  return {handles.info()...};
}

}  // namespace pagesim::run
