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
//       - {metric: clear_gbs, label: Milan, at: {workload.params.mode: multi_page}, v5.17: 17.54}
//       - {metric: loop_s, stat: median, v5.17: 51.43}    # over repeats, as the seed gives it
//     notes: [saves 10.66 s per TiB]                       # figures with no model counterpart
//
// A variant is named as the scenario's kernel section names it, or as a preset (so that a
// `--set kernel.presets=[...]` that drops a variant keeps the file valid). A row's `at` and
// `relative_to` name paths of the resolved scenario, so that a typo fails here rather than
// leave the row unmatched ("not run") in every report.
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

const std::vector<std::string> kStats = {"mean", "median", "sample_stddev"};

// `at:` / `relative_to:`: a map of resolved-scenario path -> value as the resolved form writes it.
std::vector<std::pair<std::string, std::string>> read_point(const Node& n, const std::string& path,
                                                            const nlohmann::ordered_json& scenario) {
  if (n.kind != Node::Kind::map || n.entries.empty())
    fail(n.pos, path, fmt::format("expected a map of scenario key path: value, got {}", describe(n)));
  std::vector<std::pair<std::string, std::string>> point;
  for (const Entry& e : n.entries) {
    const std::string p = child_path(path, e.key);
    if (!resolved_value(scenario, e.key)) fail(e.key_pos, p, fmt::format("'{}' is not a key path of the resolved scenario", e.key));
    point.emplace_back(e.key, read_string(e.value, p));
  }
  return point;
}

nlohmann::ordered_json point_json(const std::vector<std::pair<std::string, std::string>>& point) {
  nlohmann::ordered_json j = nlohmann::ordered_json::object();
  for (const auto& [k, v] : point) j[k] = v;
  return j;
}

Reference::Row read_row(const Node& n, const std::string& path, const Reference& ref, const std::vector<Variant>& variants,
                        const nlohmann::ordered_json& scenario) {
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
    } else if (e.key == "label") {
      row.label = read_string(e.value, p);
    } else if (e.key == "stat") {
      row.stat = read_choice(e.value, p, kStats);
    } else if (e.key == "at") {
      row.at = read_point(e.value, p, scenario);
    } else if (e.key == "relative_to") {
      row.relative_to = read_point(e.value, p, scenario);
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

Reference read_reference(const Node& n, const std::vector<Variant>& variants, const nlohmann::ordered_json& scenario,
                         nlohmann::ordered_json& resolved) {
  const MapView m(n, "reference", {"source", "iterations", "calibrated", "variants", "rows", "notes"});
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
  for (size_t i = 0; i < rows.items.size(); ++i)
    ref.rows.push_back(read_row(rows.items[i], fmt::format("{}[{}]", m.path("rows"), i), ref, variants, scenario));
  if (const Node* ns = m.get("notes")) {
    if (ns->kind != Node::Kind::sequence) fail(ns->pos, m.path("notes"), fmt::format("expected a list of notes, got {}", describe(*ns)));
    for (size_t i = 0; i < ns->items.size(); ++i) ref.notes.push_back(read_string(ns->items[i], fmt::format("{}[{}]", m.path("notes"), i)));
  }

  resolved = {{"source", ref.source}, {"iterations", ref.iterations}, {"calibrated", ref.calibrated}};
  for (const auto& [model, theirs] : ref.variants) resolved["variants"][model] = theirs;
  resolved["rows"] = nlohmann::ordered_json::array();
  for (const Reference::Row& row : ref.rows) {
    nlohmann::ordered_json j{{"metric", row.metric}, {"per_iteration", row.per_iteration}, {"calibration_target", row.calibration_target}};
    if (!row.note.empty()) j["note"] = row.note;
    if (!row.label.empty()) j["label"] = row.label;
    if (!row.at.empty()) j["at"] = point_json(row.at);
    if (!row.relative_to.empty()) j["relative_to"] = point_json(row.relative_to);
    j["stat"] = row.stat;
    for (const auto& [v, x] : row.values) j[v] = x;
    resolved["rows"].push_back(std::move(j));
  }
  if (!ref.notes.empty()) resolved["notes"] = ref.notes;
  return ref;
}

}  // namespace pagesim::scenario::detail

namespace pagesim::scenario {

std::optional<std::string> resolved_value(const nlohmann::ordered_json& resolved, const std::string& path) {
  const nlohmann::ordered_json* j = &resolved;
  size_t from = 0;
  while (from <= path.size()) {
    const size_t dot = std::min(path.find('.', from), path.size());
    std::string seg = path.substr(from, dot - from);
    std::optional<size_t> index;  // "nodes[1]"
    if (const size_t br = seg.find('['); br != std::string::npos && seg.back() == ']') {
      const std::string digits = seg.substr(br + 1, seg.size() - br - 2);
      if (digits.empty() || digits.find_first_not_of("0123456789") != std::string::npos) return std::nullopt;
      index = std::stoul(digits);
      seg.resize(br);
    }
    if (!j->is_object() || !j->contains(seg)) return std::nullopt;
    j = &(*j)[seg];
    if (index) {
      if (!j->is_array() || *index >= j->size()) return std::nullopt;
      j = &(*j)[*index];
    }
    from = dot + 1;
  }
  if (j->is_object() || j->is_array()) return std::nullopt;  // a key path names one value
  return j->is_string() ? j->get<std::string>() : j->dump();
}

bool reference_applies(const std::vector<std::pair<std::string, std::string>>& at, const nlohmann::ordered_json& resolved,
                       const SweepPoint& point) {
  return std::all_of(at.begin(), at.end(), [&](const auto& kv) {
    if (!point.key.empty() && kv.first == point.key) return kv.second == point.value;
    return resolved_value(resolved, kv.first) == kv.second;
  });
}

Reference reference_from_resolved(const nlohmann::ordered_json& j) {
  auto point = [](const nlohmann::ordered_json& p) {
    std::vector<std::pair<std::string, std::string>> out;
    for (const auto& [k, v] : p.items()) out.emplace_back(k, v.get<std::string>());
    return out;
  };
  Reference ref;
  ref.source = j.value("source", "");
  ref.iterations = j.value("iterations", 1u);
  ref.calibrated = j.value("calibrated", std::vector<std::string>{});
  for (const auto& [model, theirs] : j.at("variants").items()) ref.variants.emplace_back(model, theirs.get<std::string>());
  for (const nlohmann::ordered_json& r : j.at("rows")) {
    Reference::Row row;
    for (const auto& [k, v] : r.items()) {
      if (k == "metric") row.metric = v.get<std::string>();
      else if (k == "per_iteration") row.per_iteration = v.get<bool>();
      else if (k == "calibration_target") row.calibration_target = v.get<bool>();
      else if (k == "note") row.note = v.get<std::string>();
      else if (k == "label") row.label = v.get<std::string>();
      else if (k == "stat") row.stat = v.get<std::string>();
      else if (k == "at") row.at = point(v);
      else if (k == "relative_to") row.relative_to = point(v);
      else row.values[k] = v.get<double>();
    }
    ref.rows.push_back(std::move(row));
  }
  ref.notes = j.value("notes", std::vector<std::string>{});
  return ref;
}

}  // namespace pagesim::scenario
