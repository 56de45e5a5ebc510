// The native engine's runs: one thread per simulated CPU running the workload's per-CPU loop,
// with barriers at phase boundaries and at the quiescent points where invariants are checked.
#include <fmt/format.h>

#include <chrono>
#include <memory>

#include "engine.h"
#include "pagesim/error.h"
#include "pagesim/exec/native.h"
#include "pagesim/exec/perf_counters.h"
#include "pagesim/workload/churn.h"
#include "pagesim/workload/random_mixed.h"
#include "cache_replay.h"
#include "churn_loop.h"
#include "random_mixed_loop.h"
#include "summaries.h"
#include "workload_params.h"
#include "usemem_native.h"

namespace pagesim::run {

namespace {

using Clock = std::chrono::steady_clock;

struct CpuOut {
  workload::RandomMixedResult mixed;
  std::vector<workload::UsememTaskResult> usemem;  // one per iteration
  workload::ChurnCounts churn;
  std::vector<double> iter_ns;
  std::map<std::string, uint64_t> hw;
  bool hw_available = false;
  std::string hw_reason;
  void take(const HwCounters& c) {
    hw = c.read();
    hw_available = c.available();
    hw_reason = c.reason();
  }
};

struct Phase {  // the measured phase's wall time, taken by CPU 0 between barriers
  Clock::time_point t0, t1;
};

template <class E>
void random_mixed_cpu(RunContext& ctx, NativeEngine& eng, E& ex, mm::Mm<E>& mm, CpuOut& out, Phase& ph) {
  const workload::RandomMixedParams p = random_mixed_params(ctx.sc, ctx.seed, ctx.opt.short_mode);
  HwCounters hw;
  hw.start();
  random_mixed_loop(
      ctx.machine, p, ex, mm, ex.cpu(), eng.nr_cpus(), out.mixed, [&] { eng.barrier(); }, [&] { ph.t0 = Clock::now(); },
      [&] { ph.t1 = Clock::now(); });
  hw.stop();
  out.take(hw);
}

template <class E>
void churn_cpu(RunContext& ctx, NativeEngine& eng, E& ex, mm::Mm<E>& mm, CpuOut& out, Phase& ph) {
  HwCounters hw;
  churn_loop(
      ctx.sc, ctx.opt.short_mode, ex, mm, [&] { eng.barrier(); },
      [&] {
        eng.barrier();
        if (ex.cpu() == 0) ph.t0 = Clock::now();
        hw.start();
      },
      [] { return static_cast<double>(tsc_to_ns(rdtsc())); }, out.churn, out.iter_ns);
  hw.stop();
  eng.barrier();
  if (ex.cpu() == 0) ph.t1 = Clock::now();
  mm.drain_local_pages();
  out.take(hw);
}

template <class E>
void usemem_cpu(RunContext& ctx, NativeEngine& eng, E& ex, mm::Mm<E>& mm, CpuOut& out, Phase& ph, const UsememSetup& s) {
  mm::Hugetlb<E> h(mm);
  if (s.task.surplus_policy) h.set_surplus_policy(&s.task.policy);
  if (ex.cpu() == 0) h.set_overcommit(s.overcommit);
  workload::DataRegion data(s.data_bytes);
  HwCounters hw;
  for (uint64_t it = 0; it < s.iterations; ++it) {
    workload::UsememParams p = s.task;
    p.seed = s.task.seed + it * 1000003 + ex.cpu();
    eng.barrier();  // usemem's start barrier: every task mmaps at once
    const uint64_t t_start = workload::now_ns();
    if (ex.cpu() == 0 && it == 0) ph.t0 = Clock::now();
    hw.start();
    out.usemem.push_back(usemem_iteration(h, ex, p, data, t_start));
    hw.stop();
    eng.barrier();
    if (ex.cpu() == 0) {  // quiescent: every task has unmapped
      check_invariants_into(ctx.machine, out.mixed.invariant_checks, out.mixed.violations);
    }
    eng.barrier();
  }
  if (ex.cpu() == 0) ph.t1 = Clock::now();
  mm.drain_local_pages();
  out.take(hw);
}

template <bool Track>
void run_native_t(RunContext& ctx) {
  using E = NativeCpu<Track>;
  NativeOptions o;
  if (!parse_lock_impl(ctx.sc.engine_options.lock, &o.lock_impl))
    throw InputError(fmt::format("{}: engine.lock: '{}' is not one of qspinlock|ticket|mutex", ctx.sc.file, ctx.sc.engine_options.lock));
  o.pin = ctx.sc.engine_options.pin;
  o.oversubscribe = ctx.sc.engine_options.oversubscribe;
  o.lock_stat = ctx.sc.engine_options.lock_stat;
  NativeEngine eng(ctx.machine, o);
  const unsigned n = eng.nr_cpus();
  std::vector<std::unique_ptr<E>> cpus;
  for (unsigned c = 0; c < n; ++c) cpus.push_back(std::make_unique<E>(eng, c));
  std::vector<CpuOut> outs(n);
  Phase ph;
  const std::string& w = ctx.sc.workload;
  UsememSetup um;
  if (w == "usemem") um = usemem_setup(ctx.machine, ctx.sc.params, n, ctx.seed, ctx.opt.short_mode);
  if (w != "random_mixed" && w != "pcp_churn" && w != "thp_alloc" && w != "usemem")
    throw InputError(fmt::format("{}: workload '{}' does not run on the native engine", ctx.sc.file, w));
  eng.run([&](unsigned cpu) {
    E& ex = *cpus[cpu];
    mm::Mm<E> mm(ctx.machine, ex);
    if (w == "random_mixed")
      random_mixed_cpu(ctx, eng, ex, mm, outs[cpu], ph);
    else if (w == "usemem")
      usemem_cpu(ctx, eng, ex, mm, outs[cpu], ph, um);
    else
      churn_cpu(ctx, eng, ex, mm, outs[cpu], ph);
  });

  RunResult& r = ctx.result;
  auto& m = r.metrics;
  const double elapsed = std::chrono::duration<double>(ph.t1 - ph.t0).count();
  m["elapsed_s"] = elapsed;
  m["threads"] = n;
  m["host_cpus"] = NativeEngine::host_cpus();
  std::vector<const std::vector<LockStatCpu>*> lock_tables;
  IrqOffStat irq;
  AccessCounters acc;
  double sys_ns = 0;
  std::vector<double> iter_ns;
  workload::RandomMixedResult mixed;
  workload::ChurnCounts churn;
  for (unsigned c = 0; c < n; ++c) {
    lock_tables.push_back(&cpus[c]->lock_stats());
    irq.merge(cpus[c]->irq_off());
    acc += cpus[c]->accesses();
    sys_ns += static_cast<double>(cpus[c]->sys_ns());
    iter_ns.insert(iter_ns.end(), outs[c].iter_ns.begin(), outs[c].iter_ns.end());
    mixed += outs[c].mixed;
    churn.allocs += outs[c].churn.allocs;
    churn.failures += outs[c].churn.failures;
    for (const auto& [k, v] : outs[c].hw) r.cache.hw[k] += v;
  }
  m["sys_s"] = sys_ns / 1e9;
  if (w == "usemem") {
    usemem_metrics(by_iteration(outs, um.iterations), ctx.machine.nr_nodes(), r);
    m["data_scale"] = static_cast<double>(um.task.data_scale);
    m["size_bytes"] = static_cast<double>(um.task.size);
    r.invariant_checks += mixed.invariant_checks;
    r.violations.insert(r.violations.end(), mixed.violations.begin(), mixed.violations.end());
    if (um.task.data_scale > 1)
      r.notes.push_back(fmt::format("usemem data region scaled down {}x: {} MiB per task on this host", um.task.data_scale,
                                    um.data_bytes >> 20));
  } else if (w == "random_mixed") {
    random_mixed_metrics(mixed, elapsed, m);
    r.invariant_checks += mixed.invariant_checks;
    r.violations.insert(r.violations.end(), mixed.violations.begin(), mixed.violations.end());
  } else {
    m["allocs"] = static_cast<double>(churn.allocs);
    m["alloc_failures"] = static_cast<double>(churn.failures);
    m["allocs_per_s"] = elapsed > 0 ? static_cast<double>(churn.allocs) / elapsed : 0;
    m["iteration_median_ns"] = median_of(iter_ns);
    m["iteration_stddev_pct"] = stddev_pct_of(iter_ns);
  }
  r.locks = summarize_locks(lock_tables);
  summarize_irq_off(irq, m);
  r.cache.model = "off (engine.track: false)";
  if (Track) {
    summarize_accesses(acc, r.cache);
    std::vector<const std::vector<LoggedAccess>*> logs;
    for (unsigned c = 0; c < n; ++c) logs.push_back(&cpus[c]->log());
    replay_native_logs(ctx.machine, logs, r.cache);
  }
  r.cache.hw_available = outs[0].hw_available;
  r.cache.hw_reason = outs[0].hw_available ? "" : outs[0].hw_reason;
  if (!r.cache.hw_available) r.cache.hw.clear();
  r.notes.push_back(fmt::format("native engine: {} threads on {} host cores, lock {}; timings are host measurements",
                                n, NativeEngine::host_cpus(), lock_impl_name(eng.locks().impl())));
  if (eng.oversubscribed())
    r.notes.push_back("oversubscribed: more CPUs than host cores; a blocking mutex replaced spinning and the "
                      "contention figures include host scheduling");
}

}  // namespace

void run_native(RunContext& ctx) {
  if (ctx.sc.engine_options.track)
    run_native_t<true>(ctx);
  else
    run_native_t<false>(ctx);
}

}  // namespace pagesim::run
