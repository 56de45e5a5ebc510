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

#include <cstddef>
#include <optional>
#include <string>
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

}  // namespace pagesim::run
