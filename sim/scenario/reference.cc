// The `reference:` section: published figures to put beside the model's (sections.h).
//
//   reference:
//     source: kernel test robot, ...       # where the figures come from
//     iterations: 16                       # the reference run's; per_iteration rows divide by it
//     calibrated: [v5.17]                  # model variants calibrated against it
//     variants: {v5.17: v5.17-rc7, v5.17+mel: 8212a964ee}   # model variant: the reference's name
//     rows:
//       - {metric: throughput_kib_s, v5.17: 6352467, v5.17+mel: 8293110}
//       - {metric: time.user_time, per_iteration: true, v5.17: 22275, v5.17+mel: 17443}
//
// A variant is named as the scenario's kernel section names it, or as a preset (so that a
// `--set kernel.presets=[...]` that drops a variant keeps the file valid).
#include <fmt/format.h>

#include <algorithm>

#include "sections.h"

namespace pagesim::scenario::detail {

namespace {

bool known_variant(const std::string& name, const std::vector<Variant>& variants) {
  const auto& presets = mm::preset_names();
  return std::find(presets.begin(), presets.end(), name) != presets.end() ||
         std::any_of(variants.begin(), variants.end(), [&](const Variant& v) { return v.name == name; });
}

std::string variant_key(const Entry& e, const std::string& path, const std::vector<Variant>& variants) {
  if (!known_variant(e.key, variants))
    fail(e.key_pos, path, fmt::format("'{}' is neither a variant of this scenario nor a preset", e.key));
  return e.key;
}

Reference::Row read_row(const Node& n, const std::string& path, const Reference& ref, const std::vector<Variant>& variants) {
  if (n.kind != Node::Kind::map) fail(n.pos, path, fmt::format("expected a map (metric, values per variant), got {}", describe(n)));
  Reference::Row row;
  for (const Entry& e : n.entries) {
    const std::string p = child_path(path, e.key);
    if (e.key == "metric") {
      row.metric = read_string(e.value, p);
    } else if (e.key == "per_iteration") {
      row.per_iteration = read_bool(e.value, p);
    } else if (e.key == "calibration_target") {
      row.calibration_target = read_bool(e.value, p);
    } else if (e.key == "note") {
      row.note = read_string(e.value, p);
    } else {
      const std::string v = variant_key(e, p, variants);
      if (std::none_of(ref.variants.begin(), ref.variants.end(), [&](const auto& rv) { return rv.first == v; }))
        fail(e.key_pos, p, fmt::format("'{}' is not under reference.variants", v));
      row.values[v] = read_number(e.value, p, std::nullopt, std::nullopt);
    }
  }
  if (row.metric.empty()) fail(n.pos, path, "missing required key 'metric'");
  return row;
}

}  // namespace

Reference read_reference(const Node& n, const std::vector<Variant>& variants, nlohmann::ordered_json& resolved) {
  const MapView m(n, "reference", {"source", "iterations", "calibrated", "variants", "rows"});
  Reference ref;
  if (const Node* s = m.get("source")) ref.source = read_string(*s, m.path("source"));
  if (const Node* i = m.get("iterations")) ref.iterations = static_cast<unsigned>(read_integer(*i, m.path("iterations"), 1, 1 << 20));
  const Node& vs = m.require("variants");
  if (vs.kind != Node::Kind::map || vs.entries.empty())
    fail(vs.pos, m.path("variants"), fmt::format("expected a map of model variant: reference name, got {}", describe(vs)));
  for (const Entry& e : vs.entries)
    ref.variants.emplace_back(variant_key(e, child_path(m.path("variants"), e.key), variants),
                              read_string(e.value, child_path(m.path("variants"), e.key)));
  if (const Node* c = m.get("calibrated")) {
    if (c->kind != Node::Kind::sequence) fail(c->pos, m.path("calibrated"), fmt::format("expected a list of variants, got {}", describe(*c)));
    for (size_t i = 0; i < c->items.size(); ++i) {
      const std::string p = fmt::format("{}[{}]", m.path("calibrated"), i);
      const std::string v = read_string(c->items[i], p);
      if (std::none_of(ref.variants.begin(), ref.variants.end(), [&](const auto& rv) { return rv.first == v; }))
        fail(c->items[i].pos, p, fmt::format("'{}' is not under reference.variants", v));
      ref.calibrated.push_back(v);
    }
  }
  const Node& rows = m.require("rows");
  if (rows.kind != Node::Kind::sequence) fail(rows.pos, m.path("rows"), fmt::format("expected a list of rows, got {}", describe(rows)));
  for (size_t i = 0; i < rows.items.size(); ++i) ref.rows.push_back(read_row(rows.items[i], fmt::format("{}[{}]", m.path("rows"), i), ref, variants));

  resolved = {{"source", ref.source}, {"iterations", ref.iterations}, {"calibrated", ref.calibrated}};
  for (const auto& [model, theirs] : ref.variants) resolved["variants"][model] = theirs;
  resolved["rows"] = nlohmann::ordered_json::array();
  for (const Reference::Row& row : ref.rows) {
    nlohmann::ordered_json j{{"metric", row.metric}, {"per_iteration", row.per_iteration}, {"calibration_target", row.calibration_target}};
    if (!row.note.empty()) j["note"] = row.note;
    for (const auto& [v, x] : row.values) j[v] = x;
    resolved["rows"].push_back(std::move(j));
  }
  return ref;
}

}  // namespace pagesim::scenario::detail
