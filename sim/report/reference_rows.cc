#include "reference_rows.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "compare_rows.h"
#include "stats.h"

namespace pagesim::report {

namespace {

using Point = std::vector<std::pair<std::string, std::string>>;

// The variant's value of `metric` in each run taken at `at` (per iteration: over the run's own
// iterations); none when no point matches.
std::vector<double> model_values(const std::vector<SweepGroup>& groups, const nlohmann::ordered_json& resolved,
                                 const std::string& variant, const scenario::Reference::Row& row, const Point& at) {
  std::vector<double> values;
  for (const SweepGroup& g : groups) {
    if (!scenario::reference_applies(at, resolved, scenario::SweepPoint{g.key, g.value})) continue;
    for (const VariantRuns& v : g.variants)
      if (v.variant == variant)
        for (const run::RunResult* r : v.runs) {
          const auto it = r->metrics.find(row.metric);
          if (it == r->metrics.end()) continue;
          const auto iters = r->metrics.find("iterations");
          values.push_back(it->second / (row.per_iteration && iters != r->metrics.end() && iters->second > 0 ? iters->second : 1));
        }
  }
  return values;
}

bool matches_some_point(const std::vector<SweepGroup>& groups, const nlohmann::ordered_json& resolved, const Point& at) {
  return std::any_of(groups.begin(), groups.end(), [&](const SweepGroup& g) {
    return scenario::reference_applies(at, resolved, scenario::SweepPoint{g.key, g.value});
  });
}

std::string point_text(const Point& p) {
  std::vector<std::string> values;
  for (const auto& kv : p) values.push_back(kv.second);
  return fmt::format("{}", fmt::join(values, ", "));
}

std::string line_where(const scenario::Reference::Row& row) {
  std::string where = row.label;
  if (!row.at.empty()) where += (where.empty() ? "@ " : " @ ") + point_text(row.at);
  if (!row.relative_to.empty()) where += " / @ " + point_text(row.relative_to);
  return where;
}

std::string line_name(const scenario::Reference::Row& row, const std::string& where) {
  std::string name = where.empty() ? "" : where + ": ";
  name += stat_name(row.metric) + (row.per_iteration ? " /it" : "");
  return row.stat == "mean" ? name : name + " " + row.stat;
}

}  // namespace

ReferenceLines reference_lines(const scenario::Reference& ref, const nlohmann::ordered_json& resolved,
                               const std::vector<run::RunResult>& runs) {
  ReferenceLines out;
  for (const auto& v : ref.variants)
    if (std::any_of(runs.begin(), runs.end(), [&](const run::RunResult& r) { return r.variant == v.first; })) out.variants.push_back(v);
  const std::vector<SweepGroup> groups = group_runs(runs);
  for (const scenario::Reference::Row& row : ref.rows) {
    ReferenceLine line{&row, line_where(row)};
    line.name = line_name(row, line.where);
    line.run = matches_some_point(groups, resolved, row.at) &&
               (row.relative_to.empty() || matches_some_point(groups, resolved, row.relative_to));
    for (const auto& [model, name] : out.variants) {
      const auto it = row.values.find(model);
      line.theirs.push_back(it == row.values.end() ? std::nan("") : it->second / (row.per_iteration ? ref.iterations : 1));
      double ours = repeat_stat(model_values(groups, resolved, model, row, row.at), row.stat);
      if (!row.relative_to.empty()) ours /= repeat_stat(model_values(groups, resolved, model, row, row.relative_to), row.stat);
      line.ours.push_back(ours);
    }
    out.lines.push_back(std::move(line));
  }
  return out;
}

}  // namespace pagesim::report
