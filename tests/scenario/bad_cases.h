// Malformed scenarios, one per error kind and then some: each must fail with InputError (exit 2
// from the CLI) whose first line starts with `where` and names `key`. Shared by the library
// test and the CLI test. The file is written as "bad.yaml" in a temporary directory.
#pragma once

#include <string>
#include <vector>

namespace pagesim::scenario::testing {

struct BadCase {
  const char* name;               // test name suffix
  const char* yaml;
  std::vector<std::string> sets;  // --set overrides
  const char* where;              // "bad.yaml:LINE:COL" or "<--set>:1:COL"
  const char* key;                // the key path the message names
  const char* says;               // a fragment of the message: what was expected, the hint
};

// A valid scenario to start from; the cases below change one thing each.
#define PAGESIM_OK_MACHINE "machine:\n  nodes: 1\n  memory_per_node: 64M\n"
#define PAGESIM_OK_WORKLOAD "workload:\n  name: random_mixed\n"

inline const std::vector<BadCase>& bad_cases() {
  static const std::vector<BadCase> kCases = {
      // YAML syntax.
      {"SyntaxUnclosedFlow", PAGESIM_OK_MACHINE PAGESIM_OK_WORKLOAD "  params:\n    ops: [1, 2\n", {}, "bad.yaml:8:1", "workload.params.ops", "invalid YAML"},
      {"SyntaxTabIndent", "machine:\n\tnodes: 1\n", {}, "bad.yaml:2:7", "machine", "invalid YAML"},
      {"SyntaxNestedMapping", PAGESIM_OK_MACHINE "workload: name: random_mixed\n", {}, "bad.yaml:4:15", "workload", "invalid YAML"},
      {"SyntaxTwoDocuments", PAGESIM_OK_MACHINE PAGESIM_OK_WORKLOAD "---\nseed: 2\n", {}, "bad.yaml:7:1", "", "one YAML document"},
      // Unknown keys, with the nearest valid one.
      {"UnknownTopKey", PAGESIM_OK_MACHINE PAGESIM_OK_WORKLOAD "repeat: 3\n", {}, "bad.yaml:6:1", "repeat", "did you mean 'repeats'?"},
      {"UnknownMachineKey", "machine:\n  nodes: 1\n  memory_per_nod: 64M\n" PAGESIM_OK_WORKLOAD, {}, "bad.yaml:3:3", "machine.memory_per_nod", "did you mean 'memory_per_node'?"},
      {"UnknownParam", PAGESIM_OK_MACHINE PAGESIM_OK_WORKLOAD "  params:\n    opz: 10\n", {}, "bad.yaml:7:5", "workload.params.opz", "did you mean 'ops'?"},
      {"UnknownKnob", PAGESIM_OK_MACHINE PAGESIM_OK_WORKLOAD "kernel:\n  knobs:\n    buddy_chek: after_unlock\n", {}, "bad.yaml:8:5", "kernel.knobs.buddy_chek", "did you mean 'buddy_check'?"},
      {"UnknownZone", "machine:\n  nodes:\n    - cpus: 1\n      zones: {Normall: 64M}\n" PAGESIM_OK_WORKLOAD, {}, "bad.yaml:4:15", "machine.nodes[0].zones.Normall", "did you mean 'Normal'?"},
      // Duplicate keys (yaml-cpp keeps one silently).
      // The reference section and the virtual engine's scheduler keys.
      {"ReferenceUnknownVariant", PAGESIM_OK_MACHINE PAGESIM_OK_WORKLOAD "reference:\n  variants: {v5.99: x}\n  rows: []\n", {}, "bad.yaml:7:14", "reference.variants.v5.99", "neither a variant of this scenario nor a preset"},
      {"ReferenceValueNotANumber", PAGESIM_OK_MACHINE PAGESIM_OK_WORKLOAD "reference:\n  variants: {v5.17: a}\n  rows:\n    - {metric: x, v5.17: fast}\n", {}, "bad.yaml:9:26", "reference.rows[0].v5.17", "expected number"},
      {"ReferenceAtUnknownPath", PAGESIM_OK_MACHINE PAGESIM_OK_WORKLOAD "reference:\n  variants: {v5.17: a}\n  rows:\n    - {metric: x, at: {workload.params.opz: 1}}\n", {}, "bad.yaml:9:24", "reference.rows[0].at.workload.params.opz", "not a key path of the resolved scenario"},
      {"ReferenceRelativeToNotAMap", PAGESIM_OK_MACHINE PAGESIM_OK_WORKLOAD "reference:\n  variants: {v5.17: a}\n  rows:\n    - {metric: x, relative_to: 2}\n", {}, "bad.yaml:9:32", "reference.rows[0].relative_to", "expected a map of scenario key path: value"},
      {"ReferenceUnknownStat", PAGESIM_OK_MACHINE PAGESIM_OK_WORKLOAD "reference:\n  variants: {v5.17: a}\n  rows:\n    - {metric: x, stat: medain}\n", {}, "bad.yaml:9:25", "reference.rows[0].stat", "did you mean 'median'?"},
      {"ReferenceNotesNotAList", PAGESIM_OK_MACHINE PAGESIM_OK_WORKLOAD "reference:\n  variants: {v5.17: a}\n  rows: []\n  notes: oops\n", {}, "bad.yaml:9:10", "reference.notes", "expected a list of notes"},
      {"ReferenceRowWithoutMetric", PAGESIM_OK_MACHINE PAGESIM_OK_WORKLOAD "reference:\n  variants: {v5.17: a}\n  rows:\n    - {v5.17: 1}\n", {}, "bad.yaml:9:7", "reference.rows[0]", "missing required key 'metric'"},
      {"HostWorkloadOnTheVirtualEngine", PAGESIM_OK_MACHINE "workload:\n  name: mmap_churn\nengine:\n  name: virtual\n", {}, "bad.yaml:7:9",
       "engine.name", "workload mmap_churn runs on the uniprocessor, native engine(s) only, not on virtual"},
      {"HostWorkloadOnTheVirtualEngineBySet", PAGESIM_OK_MACHINE "workload:\n  name: mmap_churn\n", {"engine=virtual"}, "<--set>:1:8",
       "engine.name", "runs on the uniprocessor, native engine(s) only"},
      // A workload's own check against the machine and engine (WorkloadInfo::check).
      {"ClearThreadsOverTheVcpus", PAGESIM_OK_MACHINE "workload:\n  name: clear_huge_page\n  params: {threads: 4}\nengine: {name: virtual}\n", {},
       "bad.yaml:6:21", "workload.params.threads", "4 threads on 1 CPUs (at most one per vCPU)"},
      {"ClearThreadsOnAHostEngine", PAGESIM_OK_MACHINE "workload:\n  name: clear_huge_page\n  params: {threads: 2, size: 64M}\n", {"engine=native"},
       "bad.yaml:6:21", "workload.params.threads", "the host engines clear on every CPU: give 0"},
      {"ClearPageNodesOverTheNodes", PAGESIM_OK_MACHINE "workload:\n  name: clear_huge_page\n  params: {page_nodes: 2}\nengine: {name: virtual}\n", {},
       "bad.yaml:6:24", "workload.params.page_nodes", "2 nodes on a machine of 1 (at most its nodes)"},
      {"ClearSizeBelowAPage", PAGESIM_OK_MACHINE "workload:\n  name: clear_huge_page\n  params: {page_size: 1G, size: 2M}\nengine: {name: virtual}\n", {},
       "bad.yaml:6:33", "workload.params.size", "2 MiB is below one 1024 MiB page"},
      {"ClearLargestOnTheVirtualEngine", PAGESIM_OK_MACHINE "workload:\n  name: clear_huge_page\n  params: {size: 0}\nengine: {name: virtual}\n", {},
       "bad.yaml:6:18", "workload.params.size", "only the host engines clear"},
      {"ClearThreadsBySet", PAGESIM_OK_MACHINE "workload:\n  name: clear_huge_page\n", {"workload.params.threads=2", "engine=virtual"},
       "<--set>:1:25", "workload.params.threads", "2 threads on 1 CPUs"},
      {"EngineBalanceWindowUnit", PAGESIM_OK_MACHINE PAGESIM_OK_WORKLOAD "engine:\n  name: uniprocessor\n  balance_window: 32\n", {}, "bad.yaml:8:19", "engine.balance_window", "duration"},
      {"EngineSlackNsRange", PAGESIM_OK_MACHINE PAGESIM_OK_WORKLOAD "engine:\n  name: virtual\n  slack_ns: -1\n", {}, "bad.yaml:8:13", "engine.slack_ns", "decimal integer in [0, "},
      {"EngineTraceWithoutPlacements", PAGESIM_OK_MACHINE PAGESIM_OK_WORKLOAD "engine:\n  name: virtual\n  sched: trace\n", {}, "bad.yaml:8:10", "engine.sched", "needs engine.sched_trace"},
      {"EngineOptionBySet", PAGESIM_OK_MACHINE PAGESIM_OK_WORKLOAD "engine:\n  name: native\n", {"engine.pin=yes"}, "<--set>:1:12", "engine.pin", "boolean"},
      {"EngineNumaHome", PAGESIM_OK_MACHINE PAGESIM_OK_WORKLOAD "engine:\n  name: uniprocessor\n  numa_home: forknode\n", {}, "bad.yaml:8:14", "engine.numa_home", "fork_node"},
      {"DuplicateTopKey", PAGESIM_OK_MACHINE PAGESIM_OK_WORKLOAD "seed: 1\nseed: 2\n", {}, "bad.yaml:7:1", "seed", "duplicate key (first given at line 6, column 1)"},
      {"DuplicateParam", PAGESIM_OK_MACHINE PAGESIM_OK_WORKLOAD "  params:\n    ops: 10\n    ops: 20\n", {}, "bad.yaml:8:5", "ops", "duplicate key"},
      {"DuplicateZoneFlow", "machine:\n  nodes:\n    - zones: {Normal: 64M, Normal: 128M}\n" PAGESIM_OK_WORKLOAD, {}, "bad.yaml:3:28", "Normal", "duplicate key (first given at line 3, column 15)"},
      // Wrong types.
      {"MachineNotMap", "machine: big\n" PAGESIM_OK_WORKLOAD, {}, "bad.yaml:1:10", "machine", "expected a map of keys"},
      {"RepeatsWord", PAGESIM_OK_MACHINE PAGESIM_OK_WORKLOAD "repeats: three\n", {}, "bad.yaml:6:10", "repeats", "expected decimal integer in [1, 10000], got 'three'"},
      {"RepeatsQuoted", PAGESIM_OK_MACHINE PAGESIM_OK_WORKLOAD "repeats: \"3\"\n", {}, "bad.yaml:6:10", "repeats", "got string \"3\""},
      {"NumberIsMap", PAGESIM_OK_MACHINE PAGESIM_OK_WORKLOAD "  params:\n    free_fraction: {a: 1}\n", {}, "bad.yaml:7:20", "workload.params.free_fraction", "expected number in [0, 1], got a map"},
      {"BooleanYes", "machine:\n  memory_per_node: 64M\n  low_zones: yes\n" PAGESIM_OK_WORKLOAD, {}, "bad.yaml:3:14", "machine.low_zones", "expected boolean (true or false), got 'yes'"},
      {"EmptyValue", PAGESIM_OK_MACHINE PAGESIM_OK_WORKLOAD "seed:\n", {}, "bad.yaml:6:1", "seed", "got an empty value"},
      {"PresetsNotList", PAGESIM_OK_MACHINE PAGESIM_OK_WORKLOAD "kernel:\n  presets: v5.17\n", {}, "bad.yaml:7:12", "kernel.presets", "expected a non-empty list of presets"},
      // Out of range.
      {"RepeatsZero", PAGESIM_OK_MACHINE PAGESIM_OK_WORKLOAD "repeats: 0\n", {}, "bad.yaml:6:10", "repeats", "expected decimal integer in [1, 10000], got '0'"},
      {"FractionAboveOne", PAGESIM_OK_MACHINE PAGESIM_OK_WORKLOAD "  params:\n    free_fraction: 1.5\n", {}, "bad.yaml:7:20", "workload.params.free_fraction", "in [0, 1], got '1.5'"},
      {"SubpageTooBig", PAGESIM_OK_MACHINE PAGESIM_OK_WORKLOAD "  params:\n    fault_subpage: 2000\n", {}, "bad.yaml:7:20", "workload.params.fault_subpage", "in [-1, 1023]"},
      {"TooManyNodes", "machine:\n  nodes: 65\n  memory_per_node: 64M\n" PAGESIM_OK_WORKLOAD, {}, "bad.yaml:2:10", "machine.nodes", "in [1, 64]"},
      {"ZoneNotBlockMultiple", "machine:\n  memory_per_node: 6M\n" PAGESIM_OK_WORKLOAD, {}, "bad.yaml:2:20", "machine.memory_per_node", "multiple of 4M"},
      {"LowZonesTooSmall", "machine:\n  memory_per_node: 16M\n  low_zones: true\n" PAGESIM_OK_WORKLOAD, {}, "bad.yaml:2:20", "machine.memory_per_node", "in [32M, 64T], got '16M'"},
      {"KnobOutOfRange", PAGESIM_OK_MACHINE PAGESIM_OK_WORKLOAD "kernel:\n  knobs:\n    watermark_scale_factor: 5000\n", {}, "bad.yaml:8:29", "kernel.knobs.watermark_scale_factor", "expected 1..3000"},
      // Integers are decimal only.
      {"HexSeed", PAGESIM_OK_MACHINE PAGESIM_OK_WORKLOAD "seed: 0x10\n", {}, "bad.yaml:6:7", "seed", "hexadecimal is not accepted"},
      {"OctalRepeats", PAGESIM_OK_MACHINE PAGESIM_OK_WORKLOAD "repeats: 010\n", {}, "bad.yaml:6:10", "repeats", "leading zeros are not accepted"},
      {"ExponentOps", PAGESIM_OK_MACHINE PAGESIM_OK_WORKLOAD "  params:\n    ops: 1e3\n", {}, "bad.yaml:7:10", "workload.params.ops", "an integer is needed"},
      {"OctalKnob", PAGESIM_OK_MACHINE PAGESIM_OK_WORKLOAD "kernel:\n  knobs:\n    min_free_kbytes: 0128\n", {}, "bad.yaml:8:22", "kernel.knobs.min_free_kbytes", "leading zeros"},
      {"FractionalSize", "machine:\n  memory_per_node: 1.5G\n" PAGESIM_OK_WORKLOAD, {}, "bad.yaml:2:20", "machine.memory_per_node", "expected size (bytes, or with suffix K, M, G or T)"},
      // Missing required keys: positioned at the map that lacks them.
      {"NoMachine", PAGESIM_OK_WORKLOAD, {}, "bad.yaml:1:1", "machine", "missing required key"},
      {"NoWorkloadName", PAGESIM_OK_MACHINE "workload:\n  params: {ops: 10}\n", {}, "bad.yaml:5:3", "workload.name", "missing required key"},
      {"NoMemory", "machine:\n  nodes: 2\n" PAGESIM_OK_WORKLOAD, {}, "bad.yaml:2:3", "machine.memory_per_node", "missing required key"},
      {"VariantWithoutPreset", PAGESIM_OK_MACHINE PAGESIM_OK_WORKLOAD "kernel:\n  variants:\n    - name: x\n", {}, "bad.yaml:8:7", "kernel.variants[0].preset", "missing required key"},
      {"EmptyFile", "", {}, "bad.yaml:1:1", "machine", "missing required key"},
      // Names that must be one of a list.
      {"UnknownPreset", PAGESIM_OK_MACHINE PAGESIM_OK_WORKLOAD "kernel:\n  preset: v5.19\n", {}, "bad.yaml:7:11", "kernel.preset", "did you mean 'v5.1"},
      {"UnknownWorkload", PAGESIM_OK_MACHINE "workload:\n  name: random_mixd\n", {}, "bad.yaml:5:9", "workload.name", "did you mean 'random_mixed'?"},
      {"UnknownEngine", PAGESIM_OK_MACHINE PAGESIM_OK_WORKLOAD "engine: uniprocesor\n", {}, "bad.yaml:6:9", "engine", "did you mean 'uniprocessor'?"},
      {"UnknownEngineOption", PAGESIM_OK_MACHINE PAGESIM_OK_WORKLOAD "engine:\n  name: native\n  lokc: mutex\n", {}, "bad.yaml:8:3", "engine.lokc", "did you mean 'lock'?"},
      {"EngineLockChoice", PAGESIM_OK_MACHINE PAGESIM_OK_WORKLOAD "engine:\n  name: uniprocessor\n  lock: spin\n", {}, "bad.yaml:8:9", "engine.lock", "qspinlock"},
      {"EngineMapWithoutName", PAGESIM_OK_MACHINE PAGESIM_OK_WORKLOAD "engine:\n  pin: true\n", {}, "bad.yaml:7:3", "engine.name", "missing"},
      {"UnknownChoice", PAGESIM_OK_MACHINE PAGESIM_OK_WORKLOAD "  params:\n    fault_field: refcnt\n", {}, "bad.yaml:7:18", "workload.params.fault_field", "did you mean 'refcount'?"},
      // A knob the variant's kernel profile fixes, set to another value: refused where it is
      // set, also when the profile knob comes after it.
      {"KnobTheProfileFixes", PAGESIM_OK_MACHINE PAGESIM_OK_WORKLOAD "kernel:\n  presets: [v5.17, v6.18]\n  knobs:\n    free_pcppages_bulk: v5.17\n", {}, "bad.yaml:9:25", "kernel.knobs.free_pcppages_bulk", "got 'v5.17' for variant 'v6.18', but its kernel profile v6.18 fixes free_pcppages_bulk to v5.18"},
      {"KnobTheProfileFixesBeforeTheProfile", PAGESIM_OK_MACHINE PAGESIM_OK_WORKLOAD "kernel:\n  variants:\n    - {preset: v5.17, knobs: {free_pcppages_bulk: v5.17, profile: v6.18}}\n", {}, "bad.yaml:8:51", "kernel.variants[0].knobs.free_pcppages_bulk", "its kernel profile v6.18 fixes free_pcppages_bulk to v5.18"},
      {"BadKnobValue", PAGESIM_OK_MACHINE PAGESIM_OK_WORKLOAD "kernel:\n  knobs:\n    buddy_check: sometimes\n", {}, "bad.yaml:8:18", "kernel.knobs.buddy_check", "expected under_lock|after_unlock"},
      // Structure.
      {"PresetAndPresets", PAGESIM_OK_MACHINE PAGESIM_OK_WORKLOAD "kernel:\n  preset: v5.17\n  presets: [v5.18]\n", {}, "bad.yaml:8:3", "kernel.presets", "not allowed together with kernel.preset"},
      {"ExplicitNodesWithUniformKey", "machine:\n  cpus_per_node: 2\n  nodes:\n    - zones: {Normal: 64M}\n" PAGESIM_OK_WORKLOAD, {}, "bad.yaml:2:3", "machine.cpus_per_node", "not allowed with an explicit list of nodes"},
      {"DuplicateVariantNames", PAGESIM_OK_MACHINE PAGESIM_OK_WORKLOAD "kernel:\n  presets: [v5.17, v5.17]\n", {}, "bad.yaml:7:20", "kernel", "'v5.17' twice"},
      // Sweeps.
      {"TwoSweeps", "machine:\n  nodes: [1, 2]\n  cpus_per_node: [1, 2]\n  memory_per_node: 64M\n" PAGESIM_OK_WORKLOAD, {}, "bad.yaml:3:18", "machine.cpus_per_node", "only one key may be swept"},
      {"SweepRepeatedValue", "machine:\n  nodes: [1, 2, 1]\n  memory_per_node: 64M\n" PAGESIM_OK_WORKLOAD, {}, "bad.yaml:2:17", "machine.nodes", "got '1' twice"},
      {"SweepPointOutOfRange", "machine:\n  cpus_per_node: [1, 0]\n  memory_per_node: 64M\n" PAGESIM_OK_WORKLOAD, {}, "bad.yaml:2:22", "machine.cpus_per_node", "got '0'"},
      {"ListWhereNotSweepable", PAGESIM_OK_MACHINE PAGESIM_OK_WORKLOAD "repeats: [1, 2]\n", {}, "bad.yaml:6:10", "repeats", "got a sequence"},
      // --set overrides.
      {"SetUnknownPath", PAGESIM_OK_MACHINE PAGESIM_OK_WORKLOAD, {"workload.params.opz=5"}, "<--set>:1:17", "workload.params.opz", "did you mean 'ops'?"},
      {"SetBadValue", PAGESIM_OK_MACHINE PAGESIM_OK_WORKLOAD, {"repeats=lots"}, "<--set>:1:9", "repeats", "expected decimal integer"},
      {"SetNoEquals", PAGESIM_OK_MACHINE PAGESIM_OK_WORKLOAD, {"repeats"}, "<--set>:1:1", "", "expected key.path=value"},
      {"SetInsideScalar", PAGESIM_OK_MACHINE PAGESIM_OK_WORKLOAD, {"machine.nodes.cpus=2"}, "<--set>:1:15", "machine.nodes", "cannot set 'cpus' inside '1'"},
      {"SetIndexOutOfRange", "machine:\n  nodes:\n    - zones: {Normal: 64M}\n" PAGESIM_OK_WORKLOAD, {"machine.nodes[3].cpus=2"}, "<--set>:1:14", "machine.nodes", "element [3]"},
      {"SetSyntax", PAGESIM_OK_MACHINE PAGESIM_OK_WORKLOAD, {"seed=[1, 2"}, "<--set>:1:6", "seed", "invalid YAML"},
  };
  return kCases;
}

}  // namespace pagesim::scenario::testing
