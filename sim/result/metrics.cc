#include "pagesim/result/metrics.h"

#include <stdexcept>

namespace pagesim::run {

bool metric_matches(const MetricInfo& m, std::string_view name) {
  std::string_view pat = m.name;
  // Literal pieces must match in order; each {x} takes one or more characters up to the next piece.
  while (!pat.empty()) {
    const size_t open = pat.find('{');
    const std::string_view lit = pat.substr(0, open);
    if (name.substr(0, lit.size()) != lit) return false;
    name.remove_prefix(lit.size());
    if (open == std::string_view::npos) return name.empty();
    pat.remove_prefix(pat.find('}', open) + 1);
    const size_t next = pat.find('{');
    const std::string_view follow = pat.substr(0, next);
    const size_t at = follow.empty() ? name.size() : name.find(follow, 1);
    if (at == std::string_view::npos || at == 0) return false;
    name.remove_prefix(at);
  }
  return name.empty();
}

std::string engine_mask_names(uint8_t engines) {
  std::string out;
  const std::pair<uint8_t, const char*> names[] = {{kUniprocessor, "uniprocessor"}, {kNative, "native"}, {kVirtual, "virtual"}};
  for (const auto& [bit, name] : names)
    if (engines & bit) out += (out.empty() ? "" : ", ") + std::string(name);
  return out;
}

std::string metrics_markdown(const std::vector<MetricInfo>& table) {
  std::string out = "| Metric | Unit | Engines | Declared by | Meaning |\n|---|---|---|---|---|\n";
  for (const MetricInfo& m : table)
    out += fmt::format("| `{}` | {} | {} | {} | {}{}{} |\n", m.name, m.unit, engine_mask_names(m.engines), m.owner, m.description,
                       m.host_timed ? ". Host-timed on the uniprocessor and native engines." : "",
                       m.setting ? ". A setting, not plotted." : "");
  return out;
}

namespace detail {

std::string fill_parts(std::string_view pattern, const std::vector<std::string>& parts) {
  std::string out;
  for (const std::string& part : parts) {
    const size_t open = pattern.find('{'), close = pattern.find('}', open);
    const std::string_view rest = pattern.substr(close + 1);
    const std::string_view follow = rest.substr(0, rest.find('{'));
    if (part.empty() || part.find_first_of("{}") != std::string::npos || (!follow.empty() && part.find(follow) != std::string::npos))
      throw std::invalid_argument(
          fmt::format("metric {}: part '{}' does not fit {}", pattern, part, pattern.substr(open, close - open + 1)));
    out += pattern.substr(0, open);
    out += part;
    pattern = rest;
  }
  return out + std::string(pattern);
}

}  // namespace detail

}  // namespace pagesim::run
