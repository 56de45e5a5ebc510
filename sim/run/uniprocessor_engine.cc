// The uniprocessor engine: the whole workload on the calling thread, deterministic; accesses are
// counted (no cache model, no time model: timings are host wall time).
#include <fmt/format.h>

#include <chrono>

#include "engine.h"
#include "pagesim/error.h"
#include "pagesim/exec/uniprocessor.h"
#include "pagesim/workload/random_mixed.h"

namespace pagesim::run {

namespace {

workload::RandomMixedParams random_mixed_params(const workload::Params& p, uint64_t seed, bool short_mode) {
  workload::RandomMixedParams r;
  r.ops = static_cast<uint64_t>(p.integer("ops"));
  if (short_mode) r.ops = std::min<uint64_t>(r.ops, 5000);
  r.seed = seed;
  r.free_fraction = p.number("free_fraction");
  r.max_live_pages = static_cast<uint64_t>(p.integer("max_live")) / mm::PAGE_SIZE;
  r.fault_rate = p.number("fault_rate");
  r.fault.field = *mm::parse_fault_field(p.string("fault_field"));
  r.fault.subpage = static_cast<int>(p.integer("fault_subpage"));
  r.fault_on_pcp = p.number("fault_on_pcp");
  r.check_every = static_cast<uint64_t>(p.integer("check_every"));
  return r;
}

void fill_access_counters(const AccessCounters& a, CacheSummary& c) {
  c.model = "line-access counts (uniprocessor engine: no cache model)";
  c.counters["line_accesses"] = a.total;
  for (unsigned k = 0; k < kNumLineKinds; ++k)
    c.counters[fmt::format("lines_{}", line_kind_name(static_cast<LineKind>(k)))] = a.by_line_kind[k];
  c.counters["struct_page_in_zone_lock"] = a.struct_page_by_context[static_cast<unsigned>(LockContext::zone_lock)];
  c.counters["struct_page_irq_off"] = a.struct_page_by_context[static_cast<unsigned>(LockContext::irq_off)];
  c.counters["struct_page_outside_locks"] = a.struct_page_by_context[static_cast<unsigned>(LockContext::none)];
  for (unsigned s = 0; s < kNumSites; ++s)
    if (a.struct_page_by_site[s]) c.counters[fmt::format("struct_page_at_{}", site_name(static_cast<Site>(s)))] = a.struct_page_by_site[s];
  c.hw_available = false;
  c.hw_reason = "not read by the uniprocessor engine";
}

void fill_locks(const UniprocessorExec<true>& ex, RunResult& r) {
  for (LockClass cls : {LockClass::zone_lock, LockClass::hugetlb_lock}) {
    const LockCounters& lc = ex.lock_counters(cls);
    if (!lc.acquisitions) continue;
    LockStat ls;
    ls.name = std::string(lock_class_name(cls));
    ls.instance = "all";
    ls.acquisitions = lc.acquisitions;
    for (unsigned s = 0; s < kNumSites; ++s)
      if (lc.by_site[s]) ls.acquisition_points[std::string(site_name(static_cast<Site>(s)))] = lc.by_site[s];
    r.locks.push_back(std::move(ls));
  }
}

}  // namespace

void run_uniprocessor(RunContext& ctx) {
  UniprocessorExec<true> ex(ctx.machine);
  const auto t0 = std::chrono::steady_clock::now();
  if (ctx.sc.workload == "random_mixed") {
    const auto p = random_mixed_params(ctx.sc.params, ctx.seed, ctx.opt.short_mode);
    const workload::RandomMixedResult w = workload::run_random_mixed(ctx.machine, ex, p);
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    auto& m = ctx.result.metrics;
    m["ops"] = static_cast<double>(p.ops);
    m["allocs"] = static_cast<double>(w.allocs);
    m["frees"] = static_cast<double>(w.frees);
    m["alloc_failures"] = static_cast<double>(w.alloc_failures);
    m["faults_injected"] = static_cast<double>(w.faults_injected);
    m["elapsed_s"] = s;
    m["ops_per_s"] = s > 0 ? static_cast<double>(p.ops) / s : 0;
    ctx.result.invariant_checks += w.invariant_checks;
    ctx.result.violations.insert(ctx.result.violations.end(), w.violations.begin(), w.violations.end());
  } else {
    throw InputError(fmt::format("{}: workload '{}' does not run on the uniprocessor engine", ctx.sc.file, ctx.sc.workload));
  }
  fill_access_counters(ex.accesses(), ctx.result.cache);
  fill_locks(ex, ctx.result);
}

}  // namespace pagesim::run
