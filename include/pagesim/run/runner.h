// The runner: builds a Machine per run, runs the scenario's workload on its engine, and
// collects a RunResult. Engines and workloads are looked up by name.
#pragma once

#include <atomic>
#include <functional>
#include <vector>

#include "pagesim/mm/machine.h"
#include "pagesim/result/metrics.h"
#include "pagesim/result/run_result.h"
#include "pagesim/scenario/scenario.h"

namespace pagesim::run {

struct Progress {
  std::string variant;
  unsigned repeat = 0, repeats = 0;
  std::string phase;
  double fraction = 0;  // of this run
  // Inside a run, as its workload counts it: `done` of `total` `what`, and the virtual clock
  // (< 0 on the host-timed engines). Empty `what` at a phase change.
  std::string what;
  uint64_t done = 0, total = 0;
  double virtual_s = -1;
};

// The K-th of N disjoint slices of a set's runs (`pagesim run --shard K/N`): the runs whose
// index in run order (sweep point, then repeat, then variant) is K modulo N. The N slices
// together are the whole set, and `pagesim merge` interleaves them back into run order.
struct Shard {
  unsigned index = 0, count = 1;
  bool whole() const { return count == 1; }
  bool holds(size_t run_index) const { return run_index % count == index; }
};

struct RunOptions {
  bool short_mode = false;                         // tests: scale operation counts down
  // Set by SIGINT or SIGTERM: runs in flight stop at their next safe point (exec/stop.h) and
  // are kept as partial runs (RunResult::interrupted); no run starts after it.
  const std::atomic<bool>* interrupt = nullptr;
  std::function<void(const Progress&)> progress;   // called at phase changes and periodically
  // Called at the end of each run while its Machine still exists (e.g. to capture procfs text).
  std::function<void(const mm::Machine&, RunResult&)> capture;
  // Runs at once (host threads). Runs are independent, so results are the same for any value;
  // the native engine always runs one at a time (its threads own the host's cores).
  // 0: auto_jobs().
  unsigned jobs = 1;
  Shard shard;  // which runs of the set to run (default: all of them)
  // On a deterministic engine, a run that would repeat the same seed's run of an earlier variant
  // exactly takes its result (run_all, "Reuse"); false runs every run (`pagesim run --no-reuse`).
  bool reuse = true;
};

// The seed of repeat r: distinct per repeat (or LKP's stddev would always read 0%).
uint64_t repeat_seed(uint64_t seed, unsigned repeat);

// A warning before any run, named so that it can be told apart (and made an error: --strict).
//   ignored-engine-key       an `engine:` option set away from its default that the chosen
//                            engine does not declare (engine::EngineInfo::options)
//   ignored-knob             a knob a variant sets that its kernel profile never reads
//                            (mm::KnobInfo::ignored_by)
//   topology-oversubscribed  a node with more CPUs than a socket of the machine file has threads
struct Warning {
  std::string name, text;
};

// Checks, before any run, what a run would refuse at its start: a memmap larger than the host's
// available memory, the native engine's CPUs against the host's cores, the virtual engine's
// machine file and the machine's fit to it. Throws InputError; returns the warnings, each once.
// `pagesim run` and `pagesim validate` call it.
std::vector<Warning> preflight(const scenario::ScenarioSet& set);

// Runs one variant/repeat of a scenario. Throws InputError for an unknown engine or workload.
RunResult run_one(const scenario::Scenario& sc, size_t variant_index, unsigned repeat, const RunOptions& opt);

// How many of the set's runs host memory holds at once (each run's memmap, 64 bytes per
// simulated page, plus a margin for the cache model); at least 1. run_all holds an explicit
// RunOptions::jobs to it as well.
unsigned memory_jobs(const scenario::ScenarioSet& set);

// The set's runs: variants x repeats x sweep points.
size_t total_runs(const scenario::ScenarioSet& set);

// How many of the set's runs fit at once on this host: one per host CPU, as many as host memory
// holds (each run's memmap, 64 bytes per simulated page, plus a margin for the cache model),
// at least 1 and at most the number of runs. (run_all runs the native engine one at a time
// whatever this says.)
unsigned auto_jobs(const scenario::ScenarioSet& set);

// Runs every variant x repeat of every sweep point (those of opt.shard) and returns them in
// that order, opt.jobs at a time. The callbacks are never called concurrently. Stops early when *opt.interrupt becomes
// true, returning in order the runs that finished or were stopped part-way (interrupted), up to
// the first that did not start.
std::vector<RunResult> run_all(const scenario::ScenarioSet& set, const RunOptions& opt);

// Every declared metric of runs[].metrics: the runner's, the engines' and each workload's (a
// workload's metric may be declared by several workloads, once each). find_metric matches a
// concrete name ("irq_off_rmqueue_bulk_count") against the patterns.
const std::vector<MetricInfo>& metric_table();
const MetricInfo* find_metric(std::string_view name);

// The registered engines' names (engine/registry.h), as `engine.name` accepts them.
std::vector<std::string> engine_names();

}  // namespace pagesim::run
