// The metrics the virtual engine reports for every workload: its run's (run.cc: tasks, cache-model
// calls, causality, NUMA balancing) and its measured phase's (phase_profile.cc: time.*, sched.*,
// idle_pct, perf-profile.*).
#pragma once

#include <vector>

#include "pagesim/result/metrics.h"

namespace pagesim::engine {

// phase_profile.cc's, and usemem's for its __mmap.
inline constexpr run::MetricPattern<1> kPerfChildren{
    "perf-profile.children.{function}", "%", run::kVirtual,
    "share of all vCPU time in a function and its callees: rmqueue_bulk, native_queued_spin_lock_slowpath, "
    "prep_compound_page, clear_huge_page, free_pcppages_bulk, do_rw_once; usemem: __mmap"};

// run.cc's; the runner's validity flags read it too (causality_slack).
inline constexpr run::Metric kCausalitySlackAccesses{"causality_slack_accesses", "", run::kVirtual,
                                                     "accesses run ahead of the next clock under engine.slack_ns", false,
                                                     false, true};

std::vector<run::MetricInfo> phase_profile_metrics();
std::vector<run::MetricInfo> virtual_metrics();  // the run's, then phase_profile_metrics()

}  // namespace pagesim::engine
