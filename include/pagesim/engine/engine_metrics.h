// The metrics the engines report themselves. elapsed_s and sys_s, which more than one engine
// counts, are declared here; every other one at the top of the file that counts it, and listed
// by its library: irq_off_metrics() (summaries.cc), native_metrics() (native/native.h),
// virtual_metrics() (virtual/metrics.h). engine_metrics() (engine.h) assembles them in the engine
// registry's library, the one that links every engine.
#pragma once

#include <vector>

#include "pagesim/result/metrics.h"

namespace pagesim::engine {

inline constexpr run::Metric kElapsedS{"elapsed_s", "s", run::kAllEngines,
                                       "the measured phase (virtual time on the virtual engine)", true};
inline constexpr run::Metric kSysS{"sys_s", "s", run::kThreadedEngines,
                                   "time inside the allocator's syscalls, summed over CPUs (lock spinning included)", true};

// irq_off_{site}_{count,avg_ns,max_ns}: summarize_irq_off's.
std::vector<run::MetricInfo> irq_off_metrics();

}  // namespace pagesim::engine
