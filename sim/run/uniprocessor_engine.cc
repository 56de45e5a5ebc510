// The uniprocessor engine: the whole workload on the calling thread, deterministic; accesses are
// counted (no cache model, no time model: timings are host wall time).
#include <fmt/format.h>

#include <chrono>
#include <memory>

#include "engine.h"
#include "summaries.h"
#include "workload_params.h"
#include "pagesim/workload/churn.h"
#include "usemem_native.h"
#include "pagesim/error.h"
#include "pagesim/exec/uniprocessor.h"
#include "pagesim/mm/invariants.h"
#include "pagesim/workload/random_mixed.h"

namespace pagesim::run {

namespace {

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
    const auto p = random_mixed_params(ctx.sc, ctx.seed, ctx.opt.short_mode);
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
  } else if (ctx.sc.workload == "pcp_churn" || ctx.sc.workload == "thp_alloc") {
    // Every CPU in turn runs one iteration; timings here are not meaningful.
    const workload::ChurnParams p = churn_params(ctx.sc, ctx.opt.short_mode);
    mm::Mm<UniprocessorExec<true>> mm(ctx.machine, ex);
    std::vector<mm::Page*> scratch;
    workload::ChurnCounts c;
    for (uint64_t i = 0; i < p.iterations; ++i)
      for (unsigned cpu = 0; cpu < ctx.machine.nr_cpus(); ++cpu) {
        ex.set_cpu(cpu);
        workload::churn_iteration(mm, ex, p, scratch, c);
      }
    for (unsigned cpu = 0; cpu < ctx.machine.nr_cpus(); ++cpu) {
      ex.set_cpu(cpu);
      mm.drain_local_pages();
    }
    auto& m = ctx.result.metrics;
    m["allocs"] = static_cast<double>(c.allocs);
    m["alloc_failures"] = static_cast<double>(c.failures);
    m["elapsed_s"] = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  } else if (ctx.sc.workload == "usemem") {
    // The tasks' phases interleave as on a big box: every task mmaps (reserves), then every
    // task faults, stores and unmaps, one CPU after the other.
    const unsigned n = ctx.machine.nr_cpus();
    const UsememSetup s = usemem_setup(ctx.machine, ctx.sc.params, n, ctx.seed, ctx.opt.short_mode);
    mm::Mm<UniprocessorExec<true>> mm(ctx.machine, ex);
    mm::Hugetlb<UniprocessorExec<true>> h(mm);
    h.set_overcommit(s.overcommit);
    if (s.task.surplus_policy) h.set_surplus_policy(&s.task.policy);
    std::vector<std::unique_ptr<workload::DataRegion>> data;
    for (unsigned t = 0; t < n; ++t) data.push_back(std::make_unique<workload::DataRegion>(s.data_bytes));
    std::vector<std::vector<workload::UsememTaskResult>> results;
    for (uint64_t it = 0; it < s.iterations; ++it) {
      std::vector<workload::UsememParams> params(n, s.task);
      std::vector<std::unique_ptr<workload::UsememTask<UniprocessorExec<true>>>> tasks;
      const uint64_t t_start = workload::now_ns();
      for (unsigned t = 0; t < n; ++t) {
        params[t].seed = s.task.seed + it * 1000003 + t;
        tasks.push_back(std::make_unique<workload::UsememTask<UniprocessorExec<true>>>(h, ex, params[t], *data[t]));
      }
      auto each = [&](auto&& fn) {
        for (unsigned t = 0; t < n; ++t) {
          ex.set_cpu(t);
          ex.set_task(t);
          fn(*tasks[t]);
        }
      };
      each([](auto& task) { task.mmap(); });
      each([](auto& task) { task.fault_all(); });
      each([&](auto& task) {
        task.store_loop();
        usemem_finish(task.result(), workload::now_ns() - t_start);
      });
      each([](auto& task) {
        const uint64_t f0 = workload::now_ns();
        task.munmap();
        task.result().free_usecs = (workload::now_ns() - f0) / 1000;
      });
      results.emplace_back();
      for (auto& task : tasks) results.back().push_back(task->result());
      check_invariants_into(ctx.machine, ctx.result.invariant_checks, ctx.result.violations);
    }
    for (unsigned cpu = 0; cpu < n; ++cpu) {
      ex.set_cpu(cpu);
      mm.drain_local_pages();
    }
    usemem_metrics(results, ctx.machine.nr_nodes(), ctx.result);
    ctx.result.metrics["data_scale"] = static_cast<double>(s.task.data_scale);
    ctx.result.metrics["size_bytes"] = static_cast<double>(s.task.size);
    ctx.result.metrics["elapsed_s"] = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  } else {
    throw InputError(fmt::format("{}: workload '{}' does not run on the uniprocessor engine", ctx.sc.file, ctx.sc.workload));
  }
  ctx.result.cache.model = "line-access counts (uniprocessor engine: no cache model)";
  ctx.result.cache.hw_reason = "not read by the uniprocessor engine";
  summarize_accesses(ex.accesses(), ctx.result.cache);
  fill_locks(ex, ctx.result);
}

}  // namespace pagesim::run
