// The engines as registered (engine/registry.h): the loader reads `engine:` into the options
// each engine declares, the runner warns of an option only another engine declares, and the
// machine file is loaded once, with the scenario, for its checks and its runs.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "pagesim/engine/registry.h"
#include "pagesim/run/runner.h"
#include "pagesim/scenario/load.h"
#include "pagesim/vt/machine_model.h"

namespace pagesim::run {
namespace {

namespace fs = std::filesystem;

constexpr const char* kSmall = "machine: {nodes: 1, cpus_per_node: 1, memory_per_node: 64M}\nworkload: {name: thp_alloc}\n";

scenario::ScenarioSet load(const std::string& yaml, const std::string& file = "engines.yaml") {
  scenario::LoadOptions opt;
  opt.engines = engine_names();
  return scenario::load_string(yaml, file, opt);
}

// A value of `o` other than its default, as YAML text.
std::string other_value(const config::ParamSpec& o) {
  switch (o.type) {
    case config::ParamType::boolean: return std::get<bool>(o.default_value) ? "false" : "true";
    case config::ParamType::choice:
      for (const std::string& c : o.choices)
        if (c != std::get<std::string>(o.default_value)) return c;
      break;
    case config::ParamType::integer: return "1";
    case config::ParamType::duration: return "1ms";
    case config::ParamType::string: return "elsewhere";
    default: break;
  }
  ADD_FAILURE() << o.name << ": no other value to try";
  return "";
}

TEST(Engines, DeclarationsAreComplete) {
  for (const engine::EngineInfo& e : engine::registered_engines()) {
    EXPECT_FALSE(e.description.empty()) << e.name;
    EXPECT_EQ(engine_mask_names(e.bit), e.name);  // the bit workloads and metrics name it by
    EXPECT_TRUE(e.run) << e.name;
    for (const config::ParamSpec& o : e.options) EXPECT_FALSE(o.description.empty()) << e.name << "." << o.name;
  }
  EXPECT_EQ(engine_names(), (std::vector<std::string>{"uniprocessor", "native", "virtual"}));  // engines.def's order
}

// The runner runs such an engine's jobs one at a time: its CPUs are host threads, timed by the host.
TEST(Engines, OnlyTheNativeEngineOwnsTheHost) {
  for (const engine::EngineInfo& e : engine::registered_engines()) EXPECT_EQ(e.owns_host, e.name == "native") << e.name;
}

TEST(Engines, OptionsAreReadIntoTheDeclaredTypes) {
  const scenario::ScenarioSet set = load(std::string(kSmall) + "engine: {name: virtual, sched: cfs, balance_window: 2ms, slack_ns: 5}\n");
  const config::Params& o = set.front().engine_options;
  EXPECT_EQ(o.string("sched"), "cfs");
  EXPECT_EQ(o.integer("balance_window"), 2000000);
  EXPECT_EQ(o.integer("slack_ns"), 5);
  EXPECT_EQ(o.string("lock"), "qspinlock");  // another engine's, at its default
  const nlohmann::ordered_json& r = set.front().resolved["engine"];
  EXPECT_EQ(r["balance_window"], "2ms");
  EXPECT_EQ(r["sched"], "cfs");
  EXPECT_FALSE(r.contains("numa_home")) << r.dump();  // the numa policy's only
}

// Every option that only other engines declare, set away from its default, is warned of; the
// chosen engine's own are not.
TEST(Engines, AnOptionOnlyAnotherEngineDeclaresIsWarnedOf) {
  for (const engine::EngineInfo& chosen : engine::registered_engines())
    for (const engine::EngineInfo& other : engine::registered_engines())
      for (const config::ParamSpec& o : other.options) {
        if (&other == &chosen && (o.name == "machine_file" || o.name == "sched_trace")) continue;  // files that must exist
        const std::string yaml = std::string(kSmall) + "engine: {name: " + chosen.name + ", " + o.name + ": " + other_value(o) + "}\n";
        const std::vector<Warning> warnings = preflight(load(yaml));
        const std::string says = "engine." + o.name + " is set, but the " + chosen.name + " engine ignores it";
        bool warned = false;
        for (const Warning& w : warnings) warned |= w.name == "ignored-engine-key" && w.text.find(says) != std::string::npos;
        EXPECT_EQ(warned, &other != &chosen) << yaml;
      }
}

// The scenario carries the machine file's model to preflight and to every run: with the file
// gone after loading, both still work, on the model loaded from it.
TEST(Engines, TheMachineFileIsLoadedOnceWithTheScenario) {
  const fs::path dir = fs::temp_directory_path() / ("pagesim-engines-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  const fs::path machine = dir / "box.yaml";
  fs::copy_file(vt::default_machine_file(), machine, fs::copy_options::overwrite_existing);
  const fs::path file = dir / "s.yaml";
  std::ofstream(file) << kSmall << "engine: {name: virtual, machine_file: box.yaml}\n";
  scenario::LoadOptions opt;
  opt.engines = engine_names();
  const scenario::ScenarioSet set = scenario::load_file(file.string(), opt);
  ASSERT_TRUE(set.front().machine_model);
  EXPECT_EQ(set.front().machine_model->file, machine.string());
  fs::remove(machine);
  EXPECT_TRUE(preflight(set).empty());
  RunOptions ro;
  ro.short_mode = true;
  const RunResult r = run_one(set.front(), 0, 0, ro);
  EXPECT_TRUE(r.violations.empty());
  EXPECT_NE(r.cache.model.find(machine.string()), std::string::npos) << r.cache.model;
  fs::remove_all(dir);
}

// The host engines load no machine model.
TEST(Engines, OnlyTheEngineThatUsesAMachineModelLoadsOne) {
  for (const engine::EngineInfo& e : engine::registered_engines())
    EXPECT_EQ(static_cast<bool>(load(std::string(kSmall) + "engine: " + e.name + "\n").front().machine_model), e.uses_machine_model)
        << e.name;
}

}  // namespace
}  // namespace pagesim::run
