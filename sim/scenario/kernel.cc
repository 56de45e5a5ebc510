// The `kernel` section: presets to compare, knob overrides, and named variants for ablations.
#include <fmt/format.h>

#include "pagesim/config/diagnostics.h"
#include "pagesim/config/units.h"
#include "sections.h"

namespace pagesim::scenario {

std::vector<std::string> preset_choices() {
  std::vector<std::string> names = mm::preset_names();
  names.emplace_back("v5.17+eric+mel");
  return names;
}

}  // namespace pagesim::scenario

namespace pagesim::scenario::detail {

namespace {

std::vector<std::string> knob_names() {
  std::vector<std::string> names;
  for (const mm::KnobInfo& k : mm::knob_infos()) names.emplace_back(k.name);
  return names;
}

// Knob text as JSON: booleans and integers typed, everything else (enums, "auto") a string.
nlohmann::ordered_json knob_json(const std::string& text) {
  if (text == "true" || text == "false") return text == "true";
  if (const std::optional<int64_t> v = parse_decimal(text)) return *v;
  return text;
}

// A knob the scenario sets that the variant's kernel profile fixes to another value: refused
// where the scenario sets it, whichever order the profile and the knob come in.
void check_fixed_knobs(const Variant& v, const Node& knobs, const std::string& path) {
  for (const Entry& e : knobs.entries)
    if (const std::string err = mm::check_fixed_knob(v.config, e.key, e.value.text); !err.empty())
      fail(e.value.pos, child_path(path, e.key), fmt::format("got {} for variant '{}', but {}", describe(e.value), v.name, err));
}

struct VariantSpec {
  std::string name;      // "" = derive from preset and knobs
  std::string preset;
  const Node* knobs = nullptr;
  std::string knobs_path;
  Pos pos;
};

}  // namespace

std::string apply_knob(mm::KernelConfig& cfg, const std::string& name, const Node& n, const std::string& path) {
  std::string_view values = "a value";
  for (const mm::KnobInfo& k : mm::knob_infos())
    if (k.name == name) values = k.values;
  if (n.kind != Node::Kind::scalar) fail(n.pos, path, fmt::format("expected {}, got {}", values, describe(n)));
  // set_knob would read "010" as 10; a scenario's integers are decimal without leading zeros.
  if (const std::string hint = integer_hint(n.text); !hint.empty())
    fail(n.pos, path, fmt::format("expected {}, got {}{}", values, describe(n), hint));
  if (const std::string err = mm::set_knob(cfg, name, n.text); !err.empty())
    fail(n.pos, path, fmt::format("expected {}, got {} ({})", values, describe(n), err));
  return n.text;
}

KernelSection read_kernel(const Node* n, const Pos& where, const std::string& min_free_kbytes) {
  const Node absent{Node::Kind::null, {}, false, where, {}, {}};
  const MapView m(n ? *n : absent, "kernel", {"preset", "presets", "knobs", "variants"});
  const std::vector<std::string> presets = preset_choices();
  std::vector<VariantSpec> specs;
  if (m.has("preset") && m.has("presets"))
    fail(m.key_pos("presets"), "kernel.presets", "not allowed together with kernel.preset; give one or the other");
  if (const Node* p = m.get("preset")) specs.push_back({"", read_choice(*p, m.path("preset"), presets), nullptr, "", p->pos});
  if (const Node* list = m.get("presets")) {
    if (list->kind != Node::Kind::sequence || list->items.empty())
      fail(list->pos, m.path("presets"), fmt::format("expected a non-empty list of presets, got {} (use kernel.preset for one)", describe(*list)));
    for (size_t i = 0; i < list->items.size(); ++i) {
      const Node& item = list->items[i];
      specs.push_back({"", read_choice(item, fmt::format("kernel.presets[{}]", i), presets), nullptr, "", item.pos});
    }
  }
  if (const Node* list = m.get("variants")) {
    if (list->kind != Node::Kind::sequence || list->items.empty())
      fail(list->pos, m.path("variants"), fmt::format("expected a non-empty list of {{name, preset, knobs}}, got {}", describe(*list)));
    for (size_t i = 0; i < list->items.size(); ++i) {
      const std::string path = fmt::format("kernel.variants[{}]", i);
      const MapView v(list->items[i], path, {"name", "preset", "knobs"});
      VariantSpec s{"", read_choice(v.require("preset"), v.path("preset"), presets), v.get("knobs"), v.path("knobs"), list->items[i].pos};
      if (const Node* name = v.get("name")) {
        s.name = read_string(*name, v.path("name"));
        if (s.name.empty()) fail(name->pos, v.path("name"), "expected a non-empty name, got an empty value");
      }
      specs.push_back(std::move(s));
    }
  }
  if (specs.empty()) specs.push_back({"", mm::preset_names().front(), nullptr, "", where});

  const std::vector<std::string> knobs = knob_names();
  const Node* global = m.get("knobs");
  if (global) MapView(*global, m.path("knobs"), knobs);  // unknown knob names fail here
  KernelSection out;
  nlohmann::ordered_json& rv = out.resolved["variants"] = nlohmann::ordered_json::array();
  for (const VariantSpec& s : specs) {
    mm::KernelConfig cfg = *mm::preset_config(s.preset);
    if (min_free_kbytes != "auto") mm::set_knob(cfg, "min_free_kbytes", min_free_kbytes);  // validated by read_machine
    if (global)
      for (const Entry& e : global->entries) apply_knob(cfg, e.key, e.value, child_path(m.path("knobs"), e.key));
    std::vector<std::string> written;
    if (s.knobs) {
      const MapView own(*s.knobs, s.knobs_path, knobs);
      for (const Entry& e : s.knobs->entries)
        written.push_back(e.key + "=" + apply_knob(cfg, e.key, e.value, child_path(s.knobs_path, e.key)));
    }
    Variant v{s.name, cfg};
    if (v.name.empty()) v.name = written.empty() ? s.preset : s.preset + " " + join(written, ",");
    if (global) check_fixed_knobs(v, *global, m.path("knobs"));
    if (s.knobs) check_fixed_knobs(v, *s.knobs, s.knobs_path);
    for (const Variant& other : out.variants)
      if (other.name == v.name)
        fail(s.pos, "kernel", fmt::format("expected distinct variant names, got '{}' twice (name a variant with `name:`)", v.name));
    nlohmann::ordered_json j;
    j["name"] = v.name;
    j["preset"] = cfg.preset;
    nlohmann::ordered_json& kj = j["knobs"] = nlohmann::ordered_json::object();
    for (const std::string& k : knobs) kj[k] = knob_json(mm::get_knob(cfg, k));
    rv.push_back(std::move(j));
    out.variants.push_back(std::move(v));
  }
  return out;
}

}  // namespace pagesim::scenario::detail
