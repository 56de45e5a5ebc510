// Conversions from engine statistics to RunResult parts, shared by the engines.
#pragma once

#include <vector>

#include "pagesim/cache/cache_stats.h"
#include "pagesim/exec/access_counters.h"
#include "pagesim/exec/lock_stat_table.h"
#include "pagesim/result/run_result.h"

namespace pagesim::engine {

// Line-access counts by kind, lock context and site into cache.counters.
void summarize_accesses(const AccessCounters& a, run::CacheSummary& c);

// The cache model's counts into cache.counters: model_<outcome> per level that served an
// access, model_event_<name> per coherence and replacement event (CoherenceEvents), and
// model_struct_page_misses_<context>: struct-page lines that missed the private caches, by the
// lock held (in_zone_lock, in_hugetlb_lock, irq_off, outside_locks).
void summarize_cache_model(const cache::CacheStats& st, run::CacheSummary& c);

// One LockStat per lock id that was used; `per_cpu[c][id]` are the CPUs' tables.
std::vector<run::LockStat> summarize_locks(const std::vector<const LockStatTable*>& per_cpu);

// IRQ-off time per site as metrics irq_off_<site>_{count,avg_ns,max_ns}.
void summarize_irq_off(const IrqOffStat& s, std::map<std::string, double>& metrics);

}  // namespace pagesim::engine
