#include "summaries.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>

#include "pagesim/engine/engine_metrics.h"
#include "pagesim/mm/types.h"

namespace pagesim::engine {

namespace {
constexpr run::MetricPattern<1> kIrqOffCount{"irq_off_{site}_count", "", run::kThreadedEngines, "IRQ-off regions entered at a call site"};
constexpr run::MetricPattern<1> kIrqOffAvgNs{"irq_off_{site}_avg_ns", "ns", run::kThreadedEngines, "their mean length", true};
constexpr run::MetricPattern<1> kIrqOffMaxNs{"irq_off_{site}_max_ns", "ns", run::kThreadedEngines, "their longest", true};
}  // namespace

std::vector<run::MetricInfo> irq_off_metrics() { return run::metric_infos(kIrqOffCount, kIrqOffAvgNs, kIrqOffMaxNs); }

namespace {
// The counter-name suffix of a lock context: struct_page_<suffix>, model_struct_page_misses_<suffix>.
const char* context_suffix(LockContext ctx) {
  switch (ctx) {
    case LockContext::zone_lock: return "in_zone_lock";
    case LockContext::hugetlb_lock: return "in_hugetlb_lock";
    case LockContext::irq_off: return "irq_off";
    case LockContext::none:
    case LockContext::kCount: break;
  }
  return "outside_locks";
}
}  // namespace

void summarize_accesses(const AccessCounters& a, run::CacheSummary& c) {
  c.counters["line_accesses"] = a.total;
  for (unsigned k = 0; k < kNumLineKinds; ++k)
    c.counters[fmt::format("lines_{}", line_kind_name(static_cast<LineKind>(k)))] = a.by_line_kind[k];
  for (unsigned i = 0; i < kNumLockContexts; ++i)
    c.counters[fmt::format("struct_page_{}", context_suffix(static_cast<LockContext>(i)))] = a.struct_page_by_context[i];
  for (unsigned s = 0; s < kNumSites; ++s)
    if (a.struct_page_by_site[s]) c.counters[fmt::format("struct_page_at_{}", site_name(static_cast<Site>(s)))] = a.struct_page_by_site[s];
  if (a.hold_lines) c.counters["artificial_hold_lines"] = a.hold_lines;
}

void summarize_cache_model(const cache::CacheStats& st, run::CacheSummary& c) {
  for (unsigned o = 0; o <= static_cast<unsigned>(cache::Outcome::prefetch); ++o) {
    const auto oc = static_cast<cache::Outcome>(o);
    c.counters[fmt::format("model_{}", cache::outcome_name(oc))] = st.sum(cache::Slice{oc, {}, {}, {}, {}});
  }
  const cache::CoherenceEvents& e = st.events;
  const std::pair<const char*, uint64_t> events[] = {
      {"invalidations", e.invalidations},   {"llc_invalidations", e.llc_invalidations},
      {"upgrades", e.upgrades},             {"downgrades", e.downgrades},
      {"l1_evictions", e.l1_evictions},     {"l2_evictions", e.l2_evictions},
      {"llc_evictions", e.llc_evictions},   {"llc_writebacks", e.llc_writebacks},
      {"sf_evictions", e.sf_evictions},     {"back_invalidations", e.back_invalidations},
  };
  for (const auto& [name, n] : events) c.counters[fmt::format("model_event_{}", name)] = n;
  // Struct-page lines that missed the private caches (served by an LLC, a HITM or DRAM), by
  // the lock held at the time: what lengthens a zone->lock or hugetlb_lock hold.
  for (unsigned i = 0; i < kNumLockContexts; ++i) {
    const auto ctx = static_cast<LockContext>(i);
    uint64_t misses = 0;
    for (unsigned o = static_cast<unsigned>(cache::Outcome::llc_local); o < cache::kNumDemandOutcomes; ++o)
      misses += st.sum(cache::Slice{static_cast<cache::Outcome>(o), LineKind::struct_page, {}, ctx, {}});
    c.counters[fmt::format("model_struct_page_misses_{}", context_suffix(ctx))] = misses;
  }
}

namespace {
std::vector<uint64_t> trimmed(const uint64_t (&h)[kLockHistBuckets]) {
  size_t n = kLockHistBuckets;
  while (n && !h[n - 1]) --n;
  return std::vector<uint64_t>(h, h + n);
}

std::string lock_instance(uint32_t id) {
  if (id == kHugetlbLockId) return "hugetlb";
  return fmt::format("node{}/{}", id / mm::MAX_NR_ZONES, mm::zone_name(id % mm::MAX_NR_ZONES));
}
}  // namespace

std::vector<run::LockStat> summarize_locks(const std::vector<const LockStatTable*>& per_cpu) {
  std::map<uint32_t, LockStatCpu> sums;  // by lock id
  for (const LockStatTable* cpu : per_cpu)
    for (const LockStatTable::Record& r : *cpu) sums[r.id].merge(r.stat);
  std::vector<run::LockStat> out;
  for (const auto& [id, sum] : sums) {
    if (!sum.acquisitions) continue;
    run::LockStat ls;
    ls.name = std::string(lock_class_name(id == kHugetlbLockId ? LockClass::hugetlb_lock : LockClass::zone_lock));
    ls.instance = lock_instance(id);
    ls.acquisitions = sum.acquisitions;
    ls.contentions = sum.contentions;
    ls.wait_ns_total = sum.wait.total;
    ls.wait_ns_min = sum.wait.count ? sum.wait.min : 0;
    ls.wait_ns_max = sum.wait.max;
    ls.hold_ns_total = sum.hold.total;
    ls.hold_ns_min = sum.hold.count ? sum.hold.min : 0;
    ls.hold_ns_max = sum.hold.max;
    ls.bounces = sum.bounces;
    ls.bounces_remote = sum.bounces_remote;
    ls.wait_hist = trimmed(sum.wait.hist);
    ls.hold_hist = trimmed(sum.hold.hist);
    for (unsigned s = 0; s < kNumSites; ++s) {
      if (sum.contention_points[s]) ls.contention_points[std::string(site_name(static_cast<Site>(s)))] = sum.contention_points[s];
      if (sum.acquisition_points[s]) ls.acquisition_points[std::string(site_name(static_cast<Site>(s)))] = sum.acquisition_points[s];
    }
    out.push_back(std::move(ls));
  }
  return out;
}

void summarize_irq_off(const IrqOffStat& s, std::map<std::string, double>& metrics) {
  for (unsigned i = 0; i < kNumSites; ++i) {
    const TimeStat& t = s.by_site[i];
    if (!t.count) continue;
    const std::string site(site_name(static_cast<Site>(i)));
    kIrqOffCount.at(site).set(metrics, static_cast<double>(t.count));
    kIrqOffAvgNs.at(site).set(metrics, static_cast<double>(t.total) / static_cast<double>(t.count));
    kIrqOffMaxNs.at(site).set(metrics, static_cast<double>(t.max));
  }
}

}  // namespace pagesim::engine
