// The virtual-time engine's runs: one fiber task per vCPU running the workload's per-task loop,
// with barriers at phase boundaries and at the quiescent points where invariants are checked.
// Every time here is virtual (picoseconds from the machine model), never the host clock.
#include <fmt/format.h>

#include <filesystem>
#include <memory>
#include <optional>

#include "engine.h"
#include "pagesim/error.h"
#include "pagesim/exec/virtual.h"
#include "pagesim/vt/memory_model.h"
#include "pagesim/workload/churn.h"
#include "pagesim/workload/random_mixed.h"
#include "churn_loop.h"
#include "random_mixed_loop.h"
#include "summaries.h"
#include "workload_params.h"
#include "usemem_metrics.h"
#include "usemem_params.h"

namespace pagesim::run {

namespace {

using E = VirtualCpu;

struct TaskOut {
  workload::RandomMixedResult mixed;
  std::vector<workload::UsememTaskResult> usemem;  // one per iteration
  workload::ChurnCounts churn;
  std::vector<double> iter_ns;
};

struct Phase {  // the measured phase in virtual time
  ps_t t0 = 0, t1 = 0;
};

// Tasks leave a start barrier at slightly different times (the pipe wake-ups of LKP's usemem
// are sequential). The spread is an assumption, uniform in [0, 1 us) per (seed, task), so that
// repeats with derived seeds differ and LKP's stddev means something.
constexpr ps_t kWakeJitterPs = 1000000;
void wake_jitter(E& ex, uint64_t seed, uint64_t round) {
  Rng rng(seed, 0x77616b6500000000ull + (round << 20) + ex.task());
  ex.advance(rng.below(kWakeJitterPs));
}

// A relative machine file is looked up from the working directory, then next to the scenario.
std::string machine_file_path(const scenario::Scenario& sc) {
  const std::string& f = sc.engine_options.machine_file;
  if (f.empty()) return vt::default_machine_file();
  namespace fs = std::filesystem;
  if (fs::path(f).is_absolute() || fs::exists(f)) return f;
  const fs::path beside = fs::path(sc.file).parent_path() / f;
  return fs::exists(beside) ? beside.string() : f;
}

void random_mixed_task(RunContext& ctx, E& ex, mm::Mm<E>& mm, TaskOut& out, Phase& ph, unsigned n) {
  const workload::RandomMixedParams p = random_mixed_params(ctx.sc, ctx.seed, ctx.opt.short_mode);
  random_mixed_loop(
      ctx.machine, p, ex, mm, ex.task(), n, out.mixed, [&] { ex.barrier(); }, [&] { ph.t0 = ex.clock(); },
      [&] { ph.t1 = ex.clock(); });
}

void churn_task(RunContext& ctx, E& ex, mm::Mm<E>& mm, TaskOut& out, Phase& ph) {
  churn_loop(
      ctx.sc, ctx.opt.short_mode, ex, mm, [&] { ex.barrier(); },
      [&] {
        if (ex.task() == 0) ph.t0 = ex.clock();
        wake_jitter(ex, ctx.seed, 0);
      },
      [&] { return static_cast<double>(ex.clock()) / 1000; }, out.churn, out.iter_ns);
  ex.barrier();
  if (ex.task() == 0) ph.t1 = ex.clock();
  mm.drain_local_pages();
}

// The analytic store loops of one usemem iteration, computed once every task has faulted.
struct StoreLoops {
  std::vector<vt::StoreLoopTask> tasks;
  std::optional<vt::StoreLoopResult> result;
};

void usemem_task(RunContext& ctx, VirtualEngine& eng, E& ex, mm::Mm<E>& mm, TaskOut& out, Phase& ph,
                 const UsememSetup& s, std::vector<StoreLoops>& loops) {
  mm::Hugetlb<E> h(mm);
  if (s.task.surplus_policy) h.set_surplus_policy(&s.task.policy);
  if (ex.task() == 0) h.set_overcommit(s.overcommit);
  workload::DataRegion data(4096);  // never written: clearing and stores are charged analytically
  const unsigned nodes = ctx.machine.nr_nodes();
  for (uint64_t it = 0; it < s.iterations; ++it) {
    workload::UsememParams p = s.task;
    p.seed = s.task.seed + it * 1000003 + ex.task();
    ex.barrier();  // usemem's start barrier: every task mmaps at once
    if (ex.task() == 0 && it == 0) ph.t0 = ex.clock();
    wake_jitter(ex, ctx.seed, it);
    const ps_t t_start = ex.clock();
    workload::UsememTask<E> task(h, ex, p, data);
    task.mmap();
    task.fault_all();
    workload::UsememTaskResult& r = task.result();
    // The store loop: SIZE/8 random 8-byte stores over the task's pages (do_rw_once, random).
    StoreLoops& L = loops[it];
    vt::StoreLoopTask& mine = L.tasks[ex.task()];
    if (!r.failed) {
      mine.stores = s.task.size / 8;
      mine.pages_per_node = r.fault_node_pages;
      mine.residency.assign(nodes, 0);
      mine.residency[ex.node()] = 1;  // pinned: the whole loop on this node
    }
    ex.rendezvous();  // every task has faulted; clocks are untouched
    if (!L.result) {
      L.result = vt::store_loop(eng.model(), L.tasks);
      eng.cache().flush_all();  // the 63 GiB random footprint flushes every cache
    }
    if (!r.failed) {
      const ps_t loop = L.result->time_ps[ex.task()];
      ex.advance(loop);
      r.stores = mine.stores;
      r.unit_bytes = s.task.size / 8 + 8 * r.stores;
      r.user_ns = loop / 1000;
    }
    usemem_finish(r, (ex.clock() - t_start) / 1000);
    const ps_t f0 = ex.clock();
    ex.sys_enter();
    task.munmap();
    ex.sys_exit();
    r.free_usecs = (ex.clock() - f0) / 1000000;
    r.sys_ns = ex.sys_ps() / 1000;
    out.usemem.push_back(r);
    ex.barrier();
    if (ex.task() == 0) {  // quiescent: every task has unmapped
      const mm::InvariantReport inv = mm::check_invariants(ctx.machine);
      out.mixed.invariant_checks++;
      out.mixed.violations.insert(out.mixed.violations.end(), inv.violations.begin(), inv.violations.end());
    }
    ex.barrier();
  }
  if (ex.task() == 0) ph.t1 = ex.clock();
  mm.drain_local_pages();
}

}  // namespace

void run_virtual(RunContext& ctx) {
  const scenario::EngineOptions& eo = ctx.sc.engine_options;
  if (eo.sched != "pinned")
    throw InputError(fmt::format("{}: engine.sched: '{}' is not implemented (pinned)", ctx.sc.file, eo.sched));
  const std::string w = ctx.sc.workload;
  if (w != "random_mixed" && w != "pcp_churn" && w != "thp_alloc" && w != "usemem")
    throw InputError(fmt::format("{}: workload '{}' does not run on the virtual engine", ctx.sc.file, w));
  VirtualOptions vo;
  vo.slack_ps = eo.slack_ns * 1000;
  VirtualEngine eng(ctx.machine, vt::load_machine_model(machine_file_path(ctx.sc)), vo);
  const unsigned n = ctx.machine.nr_cpus();
  std::vector<TaskOut> outs(n);
  Phase ph;
  UsememSetup um;
  std::vector<StoreLoops> loops;
  if (w == "usemem") {
    um = usemem_setup(ctx.machine, ctx.sc.params, n, ctx.seed, ctx.opt.short_mode);
    loops.resize(um.iterations);
    for (StoreLoops& l : loops) l.tasks.resize(n);
  }
  eng.run(n, [&](E& ex) {
    mm::Mm<E> mm(ctx.machine, ex);
    TaskOut& out = outs[ex.task()];
    if (w == "random_mixed")
      random_mixed_task(ctx, ex, mm, out, ph, n);
    else if (w == "usemem")
      usemem_task(ctx, eng, ex, mm, out, ph, um, loops);
    else
      churn_task(ctx, ex, mm, out, ph);
  });

  RunResult& r = ctx.result;
  auto& m = r.metrics;
  const double elapsed = static_cast<double>(ph.t1 - ph.t0) / 1e12;
  m["elapsed_s"] = elapsed;
  m["vcpus"] = n;
  std::vector<const std::vector<LockStatCpu>*> lock_tables;
  IrqOffStat irq;
  AccessCounters acc;
  double sys_ps = 0, model_accesses = 0;
  std::vector<double> iter_ns;
  workload::RandomMixedResult mixed;
  workload::ChurnCounts churn;
  for (unsigned t = 0; t < n; ++t) {
    const E& ex = eng.task(t);
    lock_tables.push_back(&ex.lock_stats());
    irq.merge(ex.irq_off());
    acc += ex.accesses();
    sys_ps += static_cast<double>(ex.sys_ps());
    model_accesses += static_cast<double>(ex.model_accesses());
    iter_ns.insert(iter_ns.end(), outs[t].iter_ns.begin(), outs[t].iter_ns.end());
    mixed += outs[t].mixed;
    churn.allocs += outs[t].churn.allocs;
    churn.failures += outs[t].churn.failures;
  }
  m["sys_s"] = sys_ps / 1e12;
  m["model_accesses"] = model_accesses;
  m["causality_slack_accesses"] = static_cast<double>(eng.slack_accesses());
  if (w == "usemem") {
    std::vector<std::vector<workload::UsememTaskResult>> iterations(um.iterations);
    for (unsigned t = 0; t < n; ++t)
      for (size_t it = 0; it < outs[t].usemem.size(); ++it) iterations[it].push_back(outs[t].usemem[it]);
    usemem_metrics(iterations, ctx.machine.nr_nodes(), m);
    m["size_bytes"] = static_cast<double>(um.task.size);
    for (size_t it = 0; it < loops.size(); ++it)
      if (loops[it].result)
        for (unsigned h = 0; h < ctx.machine.nr_nodes(); ++h) {
          m[fmt::format("store_dram_util_node{}_it{}", h, it)] = loops[it].result->dram_utilisation[h];
          m[fmt::format("store_local_ns_node{}_it{}", h, it)] = loops[it].result->local_ns[h];
          m[fmt::format("store_remote_ns_node{}_it{}", h, it)] = loops[it].result->remote_ns[h];
        }
  } else if (w == "random_mixed") {
    m["allocs"] = static_cast<double>(mixed.allocs);
    m["frees"] = static_cast<double>(mixed.frees);
    m["alloc_failures"] = static_cast<double>(mixed.alloc_failures);
    m["faults_injected"] = static_cast<double>(mixed.faults_injected);
    m["ops_per_s"] = elapsed > 0 ? static_cast<double>(mixed.allocs + mixed.frees) / elapsed : 0;
  } else {
    m["allocs"] = static_cast<double>(churn.allocs);
    m["alloc_failures"] = static_cast<double>(churn.failures);
    m["allocs_per_s"] = elapsed > 0 ? static_cast<double>(churn.allocs) / elapsed : 0;
    m["iteration_median_ns"] = median_of(iter_ns);
    m["iteration_stddev_pct"] = stddev_pct_of(iter_ns);
  }
  r.invariant_checks += mixed.invariant_checks;
  r.violations.insert(r.violations.end(), mixed.violations.begin(), mixed.violations.end());
  r.locks = summarize_locks(lock_tables);
  summarize_irq_off(irq, m);
  summarize_accesses(acc, r.cache);
  const cache::CacheStats& st = eng.cache().stats();
  for (unsigned o = 0; o <= static_cast<unsigned>(cache::Outcome::prefetch); ++o) {
    const auto oc = static_cast<cache::Outcome>(o);
    r.cache.counters[fmt::format("model_{}", cache::outcome_name(oc))] = st.sum(cache::Slice{oc, {}, {}, {}, {}});
  }
  const vt::MachineModel& mdl = eng.model();
  r.cache.model = fmt::format("software cache model online in virtual-time order; machine {} ({})", mdl.name, mdl.file);
  r.cache.hw_reason = "virtual engine: no hardware counters (modelled machine)";
  r.notes.push_back(fmt::format("virtual engine: {} tasks on {} vCPUs, policy {}, machine file {}; times are virtual",
                                n, n, eng.policy().name(), mdl.file));
  if (eng.slack_accesses())
    r.notes.push_back(fmt::format("causality slack used: {} accesses ran ahead of the next clock (slack {} ns)",
                                  eng.slack_accesses(), eo.slack_ns));
}

}  // namespace pagesim::run
