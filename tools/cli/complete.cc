#include "complete.h"

#include <algorithm>
#include <filesystem>

#include "pagesim/config/shipped.h"
#include "pagesim/engine/registry.h"
#include "pagesim/mm/config.h"
#include "pagesim/run/runner.h"
#include "pagesim/scenario/load.h"
#include "pagesim/workload/registry.h"

namespace pagesim::cli {

namespace {

constexpr const char* kFiles = "@files";

bool visible(const CLI::App* c) { return !c->get_group().empty(); }

std::vector<std::string> shipped_scenarios() {
  std::vector<std::string> out;
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator(config::shipped_dir("scenarios"), ec))
    if (e.path().extension() == ".yaml") out.push_back(e.path().stem().string());
  return out;
}

// "a|b|c" of a knob's accepted values; none for a description such as "0..N".
std::vector<std::string> alternatives(std::string_view values) {
  std::vector<std::string> out;
  if (values.find('|') == std::string_view::npos || values.find(' ') != std::string_view::npos) return out;
  for (size_t at = 0; at <= values.size();) {
    const size_t bar = std::min(values.find('|', at), values.size());
    out.emplace_back(values.substr(at, bar - at));
    at = bar + 1;
  }
  return out;
}

// `--set KEY=VALUE`: the keys a scenario names from the registries, then, after "KEY=", its values.
std::vector<std::string> set_candidates(const std::string& word) {
  std::vector<std::pair<std::string, std::vector<std::string>>> keys = {
      {"kernel.preset", scenario::preset_choices()}, {"kernel.presets", {}}, {"engine.name", run::engine_names()}, {"repeats", {}}, {"seed", {}}};
  std::vector<std::string> workloads;
  for (const workload::WorkloadInfo& w : workload::registered_workloads()) {
    workloads.push_back(w.name);
    for (const config::ParamSpec& p : w.params) keys.push_back({"workload.params." + p.name, p.choices});
  }
  keys.push_back({"workload.name", workloads});
  for (const engine::EngineInfo& e : engine::registered_engines())
    for (const config::ParamSpec& o : e.options) keys.push_back({"engine." + o.name, o.choices});
  for (const mm::KnobInfo& k : mm::knob_infos()) keys.push_back({"kernel.knobs." + std::string(k.name), alternatives(k.values)});
  std::vector<std::string> out;
  const size_t eq = word.find('=');
  for (const auto& [key, values] : keys) {
    if (eq == std::string::npos)
      out.push_back(key + "=");
    else if (word.compare(0, eq, key) == 0 && eq == key.size())
      for (const std::string& v : values) out.push_back(key + "=" + v);
  }
  return out;
}

const CLI::Option* find_option(const CLI::App& cmd, const std::string& word) {
  for (const CLI::Option* o : cmd.get_options())
    if (!o->get_positional() && o->check_name(word)) return o;
  return nullptr;
}

std::vector<std::string> option_values(const CLI::Option& o, const std::string& word) {
  if (o.check_name("--set")) return set_candidates(word);
  if (o.check_name("--profile")) return scenario::preset_choices();
  return {o.get_type_name().rfind("TEXT", 0) == 0 ? kFiles : ""};
}

}  // namespace

std::vector<std::string> complete(const CLI::App& app, const std::vector<std::string>& words) {
  const std::string word = words.empty() ? "" : words.back();
  const CLI::App* cmd = &app;
  const CLI::Option* pending = nullptr;  // an option still waiting for its value
  size_t positionals = 0;
  for (size_t i = 0; i + 1 < words.size(); ++i) {
    const std::string& w = words[i];
    if (pending) {
      pending = nullptr;
      continue;
    }
    if (!w.empty() && w[0] == '-') {
      const CLI::Option* o = find_option(*cmd, w.substr(0, w.find('=')));
      if (o && o->get_type_size() > 0 && w.find('=') == std::string::npos) pending = o;
      continue;
    }
    if (cmd == &app) {
      for (const CLI::App* c : app.get_subcommands(visible))
        if (c->get_name() == w) cmd = c;
      continue;
    }
    ++positionals;
  }

  std::vector<std::string> out;
  if (pending) {
    out = option_values(*pending, word);
  } else if (!word.empty() && word[0] == '-') {
    for (const CLI::Option* o : cmd->get_options()) {
      if (o->get_positional() || o->get_group().empty()) continue;
      for (const std::string& l : o->get_lnames()) out.push_back("--" + l);
      for (const std::string& s : o->get_snames()) out.push_back("-" + s);
    }
  } else if (cmd == &app) {
    for (const CLI::App* c : app.get_subcommands(visible)) out.push_back(c->get_name());
  } else {
    const auto args = cmd->get_options([](const CLI::Option* o) { return o->get_positional(); });
    if (!args.empty()) {
      const CLI::Option* arg = args[std::min(positionals, args.size() - 1)];
      if (arg->get_name() == "scenario") out = shipped_scenarios();
      out.push_back(kFiles);
    }
  }
  std::vector<std::string> matching;
  for (const std::string& c : out)
    if (!c.empty() && (c == kFiles || c.rfind(word, 0) == 0)) matching.push_back(c);
  std::sort(matching.begin(), matching.end());
  matching.erase(std::unique(matching.begin(), matching.end()), matching.end());
  return matching;
}

}  // namespace pagesim::cli
