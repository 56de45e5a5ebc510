// Reuse: a run that the runner can prove would repeat another exactly takes that run's result.
//
// On a deterministic engine (engine::EngineInfo::deterministic) a run is a function of its
// scenario, its kernel config and its seed. Two variants of one scenario whose configs differ
// only in the knobs that tell the 2022 thread's presets apart (mm::variant_difference) run the
// same seed alike as long as the allocator never acts on those knobs: the run records the ones
// it acted on (RunResult::variant_reads). So once an earlier variant's run of the seed is done
// and acted on none of the knobs in which the two differ, the later variant's run is that run.
// In the shipped anon-w-rand-hugetlb comparison v5.17+eric repeats v5.17 and v5.18 repeats
// v5.17+mel: with THP on, no allocation takes the buddy path, where Eric's change lies.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "pagesim/mm/config.h"
#include "pagesim/result/run_result.h"
#include "pagesim/scenario/scenario.h"

namespace pagesim::run {

struct Twin {
  size_t variant;             // an earlier variant of the scenario
  mm::VariantKnobs differs;   // the knobs in which its config differs
};

// The earlier variants whose runs variant v may take, nearest first; none when the scenario's
// engine is not deterministic.
std::vector<Twin> twin_variants(const scenario::Scenario& sc, size_t v);

// The result of variant `variant`'s run from its twin's run of the same seed, or nullopt when
// that run was stopped part-way or acted on a knob in which the two differ.
std::optional<RunResult> reused_result(const RunResult& twin_run, const Twin& twin, const std::string& variant);

// The runner's side: which of a set's jobs may take which earlier jobs' results, and when those
// have settled (finished, failed or never run). Workers call settle and take concurrently.
class ReusePlan {
 public:
  struct Job {
    size_t scenario, variant;
    unsigned repeat;
  };
  // `enabled` false: no job takes another's result. A twin outside `jobs` (another shard's) is
  // not waited for.
  ReusePlan(const scenario::ScenarioSet& set, const std::vector<Job>& jobs, bool enabled);
  void settle(size_t job);
  // Waits until job's twin jobs have settled, then returns its result from the first whose run it
  // repeats, if any. `done` is written by the workers before they settle a job. A twin is an
  // earlier variant: callers start jobs in variant order, so every twin has started.
  std::optional<RunResult> take(size_t job, const std::vector<std::optional<RunResult>>& done);

 private:
  const scenario::ScenarioSet& set_;
  const std::vector<Job>& jobs_;
  std::vector<std::vector<std::pair<size_t, Twin>>> twins_;  // per job: (twin's job, twin)
  std::mutex mu_;
  std::condition_variable settled_cv_;
  std::vector<bool> settled_;  // guarded by mu_
};

}  // namespace pagesim::run
