// Valid scenarios: what they load into, defaults, sweeps, overrides and the resolved form.
#include <gtest/gtest.h>

#include "pagesim/error.h"
#include "pagesim/mm/types.h"
#include "pagesim/scenario/load.h"
#include "scenario_test_util.h"

namespace pagesim::scenario::testing {
namespace {

using config::ParamSpec;
using config::ParamType;

constexpr const char* kSmall = R"(machine:
  nodes: 2
  cpus_per_node: 2
  memory_per_node: 64M
workload:
  name: random_mixed
)";

ScenarioSet load(const std::string& yaml, std::vector<std::string> sets = {}) {
  LoadOptions opt;
  opt.overrides = std::move(sets);
  return load_string(yaml, "t.yaml", opt);
}

// A workload with one parameter of every type, so that typing is tested independently of the
// registered workloads.
const std::vector<workload::WorkloadInfo>& typed_catalog() {
  static const std::vector<workload::WorkloadInfo> kCatalog = {{
      "typed",
      "one parameter of each type",
      {
          {"count", ParamType::integer, int64_t{3}, 1, 100, {}, "an integer"},
          {"size", ParamType::size, int64_t{2} << 20, 0, 1e12, {}, "a size"},
          {"runtime", ParamType::duration, int64_t{300} * 1000000000, 0, {}, {}, "a duration"},
          {"ratio", ParamType::number, 0.25, 0, 1, {}, "a number"},
          {"flag", ParamType::boolean, false, {}, {}, {}, "a boolean"},
          {"label", ParamType::string, std::string("x"), {}, {}, {}, "a string"},
          {"mode", ParamType::choice, std::string("fast"), {}, {}, {"fast", "slow"}, "a choice"},
      },
  }};
  return kCatalog;
}

ScenarioSet load_typed(const std::string& params, std::vector<std::string> sets = {}) {
  LoadOptions opt;
  opt.workloads = &typed_catalog();
  opt.overrides = std::move(sets);
  return load_string(std::string("machine: {memory_per_node: 64M}\nworkload:\n  name: typed\n") + params, "t.yaml", opt);
}

TEST(Load, DefaultsFillEverythingButMachineAndWorkload) {
  const ScenarioSet set = load(kSmall);
  ASSERT_EQ(set.size(), 1u);
  const Scenario& sc = set[0];
  EXPECT_EQ(sc.file, "t.yaml");
  EXPECT_EQ(sc.machine.nodes.size(), 2u);
  EXPECT_EQ(sc.machine.nr_cpus(), 4u);
  EXPECT_EQ(sc.machine.total_pages(), 2 * (64u << 20) / mm::PAGE_SIZE);
  ASSERT_EQ(sc.variants.size(), 1u);
  EXPECT_EQ(sc.variants[0].name, "v5.17");
  EXPECT_EQ(sc.engine, "uniprocessor");
  EXPECT_EQ(sc.repeats, 1u);
  EXPECT_EQ(sc.seed, 1u);
  EXPECT_EQ(sc.warmup_ops, 0u);
  EXPECT_EQ(sc.params.integer("ops"), 200000);  // the registry's default
  EXPECT_EQ(sc.sweep.key, "");
}

TEST(Load, TypedParamsParseUnitsAndKeepDefaults) {
  const Scenario sc = load_typed("  params:\n    size: 4G\n    runtime: 10ms\n    flag: true\n    label: '007'\n    mode: slow\n")[0];
  EXPECT_EQ(sc.params.integer("count"), 3);
  EXPECT_EQ(sc.params.integer("size"), int64_t{4} << 30);
  EXPECT_EQ(sc.params.integer("runtime"), 10000000);
  EXPECT_DOUBLE_EQ(sc.params.number("ratio"), 0.25);
  EXPECT_TRUE(sc.params.boolean("flag"));
  EXPECT_EQ(sc.params.string("label"), "007");  // a string keeps its text
  EXPECT_EQ(sc.params.string("mode"), "slow");
  const auto& p = sc.resolved["workload"]["params"];
  EXPECT_EQ(p["size"], "4G");
  EXPECT_EQ(p["runtime"], "10ms");
  EXPECT_EQ(p["count"], 3);
}

TEST(Load, TypedParamErrorsNameTheType) {
  EXPECT_THROW(load_typed("  params: {runtime: 300}\n"), InputError);  // a duration needs a unit
  EXPECT_THROW(load_typed("  params: {size: 2X}\n"), InputError);
  EXPECT_THROW(load_typed("  params: {size: 2T}\n"), InputError);  // above 1e12
  EXPECT_THROW(load_typed("  params: {flag: 1}\n"), InputError);
  EXPECT_THROW(load_typed("  params: {label: {a: 1}}\n"), InputError);
  try {
    load_typed("  params: {mode: slwo}\n");
    FAIL();
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("workload.params.mode: expected one of fast, slow, got 'slwo' (did you mean 'slow'?)"),
              std::string::npos)
        << e.what();
  }
}

TEST(Load, PresetsBecomeVariantsInOrder) {
  const Scenario sc = load(std::string(kSmall) + "kernel:\n  presets: [v5.18, v5.17, v5.17+eric+mel]\n")[0];
  ASSERT_EQ(sc.variants.size(), 3u);
  EXPECT_EQ(sc.variants[0].name, "v5.18");
  EXPECT_EQ(sc.variants[1].name, "v5.17");
  EXPECT_EQ(sc.variants[2].name, "v5.17+eric+mel");
  EXPECT_EQ(sc.variants[2].config.preset, "v5.18");  // the alias resolves to its preset
  EXPECT_EQ(sc.variants[0].config.buddy_check, mm::BuddyCheck::after_unlock);
  EXPECT_EQ(sc.variants[1].config.buddy_check, mm::BuddyCheck::under_lock);
}

TEST(Load, KnobsApplyInOrderMachineThenGlobalThenVariant) {
  const Scenario sc = load(std::string(kSmall) +
                           "kernel:\n"
                           "  preset: v5.17\n"
                           "  knobs: {debug_vm: true, watermark_scale_factor: 20}\n"
                           "  variants:\n"
                           "    - {preset: v5.17+mel, knobs: {mel_walk: zero_cost, watermark_scale_factor: 30}}\n"
                           "    - {name: held, preset: v5.17, knobs: {artificial_hold: true}}\n",
                           {"machine.min_free_kbytes=1024"})[0];
  ASSERT_EQ(sc.variants.size(), 3u);
  EXPECT_EQ(sc.variants[0].name, "v5.17");
  EXPECT_EQ(sc.variants[1].name, "v5.17+mel mel_walk=zero_cost,watermark_scale_factor=30");
  EXPECT_EQ(sc.variants[2].name, "held");
  for (const Variant& v : sc.variants) {
    EXPECT_TRUE(v.config.debug_vm) << v.name;
    EXPECT_EQ(v.config.min_free_kbytes, std::optional<uint64_t>(1024)) << v.name;
  }
  EXPECT_EQ(sc.variants[0].config.watermark_scale_factor, 20u);
  EXPECT_EQ(sc.variants[1].config.watermark_scale_factor, 30u);
  EXPECT_EQ(sc.variants[1].config.mel_walk, mm::MelWalk::zero_cost);
  EXPECT_TRUE(sc.variants[2].config.artificial_hold);
}

TEST(Load, ExplicitNodesSortZonesAndLowZonesMatchUniform) {
  const Scenario sc = load("machine:\n  nodes:\n    - cpus: 4\n      zones: {Normal: 1G, DMA: 16M, DMA32: 256M}\n"
                           "    - zones: {Normal: 2G}\nworkload: {name: random_mixed}\n")[0];
  ASSERT_EQ(sc.machine.nodes.size(), 2u);
  ASSERT_EQ(sc.machine.nodes[0].zones.size(), 3u);
  EXPECT_EQ(sc.machine.nodes[0].zones[0].type, mm::ZONE_DMA);
  EXPECT_EQ(sc.machine.nodes[0].zones[2].pages, (1u << 30) / mm::PAGE_SIZE);
  EXPECT_EQ(sc.machine.nodes[0].cpus, 4u);
  EXPECT_EQ(sc.machine.nodes[1].cpus, 1u);
  EXPECT_EQ(sc.resolved["machine"]["nodes"][0]["zones"].begin().key(), "DMA");

  const Scenario low = load("machine: {nodes: 2, memory_per_node: 1G, low_zones: true}\nworkload: {name: random_mixed}\n")[0];
  const mm::MachineSpec want = mm::MachineSpec::uniform(2, 1, 1u << 30, true);
  ASSERT_EQ(low.machine.nodes.size(), 2u);
  EXPECT_EQ(low.machine.nodes[0].zones.size(), want.nodes[0].zones.size());
  EXPECT_EQ(low.machine.total_pages(), want.total_pages());
}

TEST(Load, SizesAcceptLkpSpellings) {
  for (const char* s : {"1G", "1g", "1GB", "1GiB", "1024M", "1048576K", "1073741824"}) {
    const Scenario sc = load(std::string("machine: {memory_per_node: ") + s + "}\nworkload: {name: random_mixed}\n")[0];
    EXPECT_EQ(sc.machine.total_pages(), (1u << 30) / mm::PAGE_SIZE) << s;
    EXPECT_EQ(sc.resolved["machine"]["memory_per_node"], "1G") << s;
  }
}

TEST(Sweep, ListUnderMachineMakesOneScenarioPerValue) {
  const ScenarioSet set = load("machine:\n  cpus_per_node: [1, 2, 4]\n  memory_per_node: 64M\nworkload: {name: random_mixed}\n");
  ASSERT_EQ(set.size(), 3u);
  for (size_t i = 0; i < 3; ++i) {
    EXPECT_EQ(set[i].sweep.key, "machine.cpus_per_node");
    EXPECT_EQ(set[i].machine.nr_cpus(), 1u << i);
    EXPECT_EQ(set[i].resolved["machine"]["cpus_per_node"], 1 << i);
  }
  EXPECT_EQ(set[2].sweep.value, "4");
}

TEST(Sweep, ParamsKnobsSeedAndNestedMachineKeysSweep) {
  EXPECT_EQ(load(std::string(kSmall) + "  params: {free_fraction: [0.25, 0.75]}\n")[1].params.number("free_fraction"), 0.75);
  const ScenarioSet knobs = load(std::string(kSmall) + "kernel:\n  knobs: {percpu_pagelist_high_fraction: [0, 8, 16]}\n");
  ASSERT_EQ(knobs.size(), 3u);
  EXPECT_EQ(knobs[2].variants[0].config.percpu_pagelist_high_fraction, 16u);
  EXPECT_EQ(knobs[2].sweep.key, "kernel.knobs.percpu_pagelist_high_fraction");
  EXPECT_EQ(load(std::string(kSmall) + "seed: [1, 2]\n")[1].seed, 2u);
  const ScenarioSet nested = load("machine:\n  nodes:\n    - zones: {Normal: [64M, 128M]}\nworkload: {name: random_mixed}\n");
  ASSERT_EQ(nested.size(), 2u);
  EXPECT_EQ(nested[1].sweep.key, "machine.nodes[0].zones.Normal");
  EXPECT_EQ(nested[1].sweep.value, "128M");
}

TEST(Sweep, ResolvedSetIsAnArrayOfPoints) {
  const ScenarioSet set = load(std::string(kSmall) + "seed: [5, 6]\n");
  const nlohmann::ordered_json j = resolved_json(set);
  ASSERT_TRUE(j.is_array());
  EXPECT_EQ(j[1]["seed"], 6);
  EXPECT_TRUE(resolved_json(load(kSmall)).is_object());
}

TEST(Override, SetsCreatesAndIndexes) {
  const Scenario sc = load(kSmall, {"seed=7", "workload.params.ops=1000", "kernel.presets=[v5.17, v5.18]", "description=hello world"})[0];
  EXPECT_EQ(sc.seed, 7u);
  EXPECT_EQ(sc.params.integer("ops"), 1000);
  EXPECT_EQ(sc.variants.size(), 2u);
  EXPECT_EQ(sc.description, "hello world");
  const Scenario explicit_nodes =
      load("machine:\n  nodes:\n    - zones: {Normal: 64M}\n    - zones: {Normal: 64M}\nworkload: {name: random_mixed}\n",
           {"machine.nodes[1].cpus=4"})[0];
  EXPECT_EQ(explicit_nodes.machine.nodes[1].cpus, 4u);
  EXPECT_EQ(explicit_nodes.machine.nodes[0].cpus, 1u);
}

TEST(Override, ListValueMakesASweepAndLaterSetsWin) {
  EXPECT_EQ(load(kSmall, {"workload.params.ops=[10, 20]"}).size(), 2u);
  EXPECT_EQ(load(kSmall, {"seed=3", "seed=4"})[0].seed, 4u);
}

TEST(Override, OutputsUpdateTheResolvedScenario) {
  ScenarioSet set = load(std::string(kSmall) + "outputs: {json: a.json, csv: a.csv}\n");
  override_outputs(set, Outputs{"b.json", "", "proc"});
  EXPECT_EQ(set[0].outputs.json, "b.json");
  EXPECT_EQ(set[0].outputs.csv, "a.csv");
  EXPECT_EQ(set[0].resolved["outputs"]["proc_dir"], "proc");
}

TEST(Engine, OnlyTheGivenEnginesAreValid) {
  LoadOptions opt;
  opt.engines = {"uniprocessor", "virtual"};
  EXPECT_EQ(load_string(std::string(kSmall) + "engine: virtual\n", "t.yaml", opt)[0].engine, "virtual");
  EXPECT_THROW(load(std::string(kSmall) + "engine: virtual\n"), InputError);  // default list
}

// The resolved scenario is itself a valid scenario that resolves to the same thing.
TEST(Resolved, RoundTripsThroughTheLoader) {
  for (const std::string& yaml :
       {std::string(kSmall) + "kernel:\n  presets: [v5.17, v5.17+eric+mel]\n  knobs: {debug_vm: true}\n",
        std::string("machine:\n  nodes:\n    - {cpus: 2, zones: {DMA: 16M, Normal: 128M}}\n  min_free_kbytes: 256\n"
                    "workload: {name: random_mixed, params: {max_live: 3M}}\noutputs: {json: r.json}\n")}) {
    const Scenario a = load(yaml)[0];
    const Scenario b = load(a.resolved.dump())[0];
    EXPECT_EQ(a.resolved, b.resolved) << a.resolved.dump(2);
    ASSERT_EQ(a.variants.size(), b.variants.size());
    for (size_t i = 0; i < a.variants.size(); ++i) EXPECT_EQ(a.variants[i].name, b.variants[i].name);
  }
}

TEST(Describe, ParamLineHasTypeRangeDefaultAndDescription) {
  EXPECT_EQ(describe_param(typed_catalog()[0].params[1]), "size  size in [0, 1e+12], default \"2M\": a size");
  EXPECT_EQ(describe_param(typed_catalog()[0].params[6]), "mode  choice of fast|slow, default \"fast\": a choice");
}

}  // namespace
}  // namespace pagesim::scenario::testing
