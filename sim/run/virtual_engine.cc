// The virtual-time engine's runs: one fiber task per vCPU running the workload's per-task loop,
// with barriers at phase boundaries and at the quiescent points where invariants are checked.
// Every time here is virtual (picoseconds from the machine model), never the host clock.
#include <fmt/format.h>

#include <array>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>

#include "engine.h"
#include "pagesim/error.h"
#include "pagesim/exec/virtual.h"
#include "pagesim/vt/live_store_loops.h"
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

// A relative input file (machine file, placement trace) is looked up from the working
// directory, then next to the scenario.
std::string input_path(const scenario::Scenario& sc, const std::string& f) {
  namespace fs = std::filesystem;
  if (fs::path(f).is_absolute() || fs::exists(f)) return f;
  const fs::path beside = fs::path(sc.file).parent_path() / f;
  return fs::exists(beside) ? beside.string() : f;
}

std::string machine_file_path(const scenario::Scenario& sc) {
  const std::string& f = sc.engine_options.machine_file;
  return f.empty() ? vt::default_machine_file() : input_path(sc, f);
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

// The analytic store loops of one usemem iteration. `result`: the loaded latencies solved once
// every task has faulted, from where each task runs then and how many tasks share its CPU
// (reported). `live`: the same re-solved as the loops run, move and end (what is charged).
struct StoreLoops {
  std::vector<vt::StoreLoopTask> tasks;
  std::optional<vt::StoreLoopResult> result;
  std::optional<vt::LiveStoreLoops> live;
  std::vector<unsigned long> surplus_node;  // HugePages_Surp per node once every task faulted
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
    ex.start_barrier();  // fork, ready(), the pipe's wake-up chain
    const ps_t t_start = ex.forked_at();  // usemem's start_time, taken before the fork
    if (it == 0) ph.t0 = t_start;
    wake_jitter(ex, ctx.seed, it);
    workload::UsememTask<E> task(h, ex, p, data);
    const ps_t m0 = ex.clock();
    task.mmap();
    const ps_t f0 = ex.clock();
    task.fault_all();
    workload::UsememTaskResult& r = task.result();
    r.reserve_ns = (f0 - m0) / 1000;
    r.fault_ns = (ex.clock() - f0) / 1000;
    StoreLoops& L = loops[it];
    vt::StoreLoopTask& mine = L.tasks[ex.task()];
    if (!r.failed) {
      mine.stores = s.task.size / 8;  // do_rw_once, random: SIZE/8 8-byte stores
      mine.pages_per_node = r.fault_node_pages;
      mine.residency.assign(nodes, 0);
      mine.residency[ex.node()] = 1;  // where it runs now; the loop itself may move it
      mine.cpu_share = 1.0 / eng.runqueues().nr_running(ex.cpu());
    }
    ex.rendezvous();  // every task has faulted; clocks are untouched
    if (!L.result) {
      L.result = vt::store_loop(eng.model(), L.tasks);
      L.live.emplace(eng.model(), static_cast<unsigned>(L.tasks.size()));
      eng.cache().flush_all();  // the 63 GiB random footprint flushes every cache
      for (unsigned n = 0; n < nodes; ++n) L.surplus_node.push_back(ctx.machine.hstate().surplus_huge_pages_node[n]);
    }
    if (!r.failed) {
      // do_rw_once, each slice at the latencies of where every loop runs at that moment.
      r.store_node_ps = ex.run_user(mine.stores, [&](unsigned node) {
        return L.live->per_store_ps(ex.task(), r.fault_node_pages, node, 1.0 / std::max(1u, eng.runqueues().nr_running(ex.cpu())));
      });
      L.live->leave(ex.task());
      ps_t loop = 0;
      double remote = 0;
      for (unsigned n = 0; n < nodes; ++n) loop += r.store_node_ps[n];
      for (unsigned n = 0; n < nodes && loop; ++n)
        remote += static_cast<double>(r.store_node_ps[n]) / static_cast<double>(loop) *
                  (1 - static_cast<double>(r.fault_node_pages[n]) / static_cast<double>(r.pages));
      r.remote_store_share = remote;
      r.stores = mine.stores;
      r.unit_bytes = s.task.size / 8 + 8 * r.stores;
      r.user_ns = loop / 1000;
    }
    usemem_finish(r, (ex.clock() - t_start) / 1000);
    const ps_t u0 = ex.clock();
    ex.sys_enter();
    task.munmap();
    ex.sys_exit();
    r.free_usecs = (ex.clock() - u0) / 1000000;
    r.sys_ns = ex.sys_ps() / 1000;
    out.usemem.push_back(r);
    ex.barrier();  // the parent's waitpid
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

// time.*, the scheduler's counters and the idle share, as the robot's report shows them.
void scheduler_metrics(VirtualEngine& eng, unsigned n, ps_t elapsed, std::map<std::string, double>& m) {
  double user = 0, sys = 0, busy = 0, migrations = 0, invol = 0, vol = 0;
  for (unsigned t = 0; t < n; ++t) {
    const E& ex = eng.task(t);
    user += static_cast<double>(ex.user_ps()) / 1e12;
    sys += static_cast<double>(ex.sys_ps()) / 1e12;
    migrations += static_cast<double>(ex.migrations());
    invol += static_cast<double>(ex.involuntary_switches());
    vol += static_cast<double>(ex.voluntary_switches());
  }
  for (ps_t b : eng.cpu_busy_ps()) busy += static_cast<double>(b);
  const double cpu_time = static_cast<double>(elapsed) * eng.machine().nr_cpus();
  m["time.user_time"] = user;
  m["time.system_time"] = sys;
  m["time.elapsed_time"] = static_cast<double>(elapsed) / 1e12;
  m["time.percent_of_cpu_this_job_got"] = elapsed ? 100 * (user + sys) / (static_cast<double>(elapsed) / 1e12) : 0;
  m["time.involuntary_context_switches"] = invol;
  m["time.voluntary_context_switches"] = vol;
  m["sched.migrations"] = migrations;
  m["idle_pct"] = cpu_time > 0 ? std::max(0.0, 100 * (1 - busy / cpu_time)) : 0;
}

// perf-profile.children.cycles-pp.*: the share of all CPUs' time (idle included, as perf
// record -a samples it) in each function and its callees, from the time charged per site.
void perf_profile_metrics(VirtualEngine& eng, unsigned n, ps_t elapsed, std::map<std::string, double>& m) {
  std::array<double, kNumSites> self{}, spin{};
  double store = 0;
  for (unsigned t = 0; t < n; ++t) {
    const E& ex = eng.task(t);
    for (unsigned i = 0; i < kNumSites; ++i) {
      self[i] += static_cast<double>(ex.site_ps()[i]);
      spin[i] += static_cast<double>(ex.spin_ps()[i]);
    }
    store += static_cast<double>(ex.user_ps());
  }
  const double all = static_cast<double>(elapsed) * eng.machine().nr_cpus();
  if (all <= 0) return;
  auto at = [&](Site s) { return self[static_cast<unsigned>(s)] + spin[static_cast<unsigned>(s)]; };
  double spinning = 0;
  for (double x : spin) spinning += x;
  const double bulk = at(Site::rmqueue_bulk) + at(Site::__rmqueue_smallest) + at(Site::expand) + at(Site::check_pcp_refill);
  m["perf-profile.children.rmqueue_bulk"] = 100 * bulk / all;
  m["perf-profile.children.native_queued_spin_lock_slowpath"] = 100 * spinning / all;
  m["perf-profile.children.prep_compound_page"] = 100 * at(Site::prep_compound_page) / all;
  m["perf-profile.children.clear_huge_page"] = 100 * at(Site::clear_huge_page) / all;
  m["perf-profile.children.free_pcppages_bulk"] = 100 * (at(Site::free_pcppages_bulk) + at(Site::__free_one_page)) / all;
  m["perf-profile.children.do_rw_once"] = 100 * store / all;
}

SchedParams sched_params(const scenario::Scenario& sc) {
  SchedParams p;
  if (!sc.engine_options.sched_trace.empty()) p.trace_file = input_path(sc, sc.engine_options.sched_trace);
  return p;
}

}  // namespace

void run_virtual(RunContext& ctx) {
  const scenario::EngineOptions& eo = ctx.sc.engine_options;
  const std::string w = ctx.sc.workload;
  if (w != "random_mixed" && w != "pcp_churn" && w != "thp_alloc" && w != "usemem")
    throw InputError(fmt::format("{}: workload '{}' does not run on the virtual engine", ctx.sc.file, w));
  VirtualOptions vo;
  vo.slack_ps = eo.slack_ns * 1000;
  vo.sched = sched_params(ctx.sc);
  VirtualEngine eng(ctx.machine, vt::load_machine_model(machine_file_path(ctx.sc)), vo, make_sched_policy(eo.sched, vo.sched));
  unsigned n = ctx.machine.nr_cpus();
  Phase ph;
  UsememSetup um;
  std::vector<StoreLoops> loops;
  if (w == "usemem") {
    um = usemem_setup(ctx.machine, ctx.sc.params, n, ctx.seed, ctx.opt.short_mode, true);
    n = um.nr_task;
    loops.resize(um.iterations);
    for (StoreLoops& l : loops) l.tasks.resize(n);
  }
  std::vector<TaskOut> outs(n);
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
  m["causality_yields"] = static_cast<double>(eng.causality_yields());
  if (w == "usemem") {
    usemem_metrics(by_iteration(outs, um.iterations), ctx.machine.nr_nodes(), r);
    for (unsigned t = 0; t < n && t < r.tasks.size(); ++t)
      for (const VirtualCpu::Placement& p : eng.task(t).placements())
        r.tasks[t].timeline.push_back({p.at / 1000, p.cpu});
    m["size_bytes"] = static_cast<double>(um.task.size);
    m["nr_task"] = n;
    for (size_t it = 0; it < loops.size(); ++it)
      if (loops[it].result)
        for (unsigned h = 0; h < ctx.machine.nr_nodes(); ++h) {
          m[fmt::format("store_dram_util_node{}_it{}", h, it)] = loops[it].result->dram_utilisation[h];
          m[fmt::format("store_local_ns_node{}_it{}", h, it)] = loops[it].result->local_ns[h];
          m[fmt::format("store_remote_ns_node{}_it{}", h, it)] = loops[it].result->remote_ns[h];
          m[fmt::format("hugepages_surp_node{}_it{}", h, it)] = static_cast<double>(loops[it].surplus_node[h]);
        }
    for (size_t it = 0; it < loops.size(); ++it)
      if (loops[it].live) m[fmt::format("store_latency_solves_it{}", it)] = static_cast<double>(loops[it].live->solves());
    scheduler_metrics(eng, n, ph.t1 - ph.t0, m);
    perf_profile_metrics(eng, n, ph.t1 - ph.t0, m);
  } else if (w == "random_mixed") {
    random_mixed_metrics(mixed, elapsed, m);
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
  summarize_cache_model(eng.cache().stats(), r.cache);
  const vt::MachineModel& mdl = eng.model();
  r.cache.model = fmt::format("software cache model online in virtual-time order; machine {} ({})", mdl.name, mdl.file);
  r.cache.hw_reason = "virtual engine: no hardware counters (modelled machine)";
  r.notes.push_back(fmt::format("virtual engine: {} tasks on {} vCPUs, scheduler policy {}, machine file {}; times are virtual",
                                n, ctx.machine.nr_cpus(), eng.policy().name(), mdl.file));
  if (eng.slack_accesses())
    r.notes.push_back(fmt::format("causality slack used: {} accesses ran ahead of the next clock (slack {} ns)",
                                  eng.slack_accesses(), eo.slack_ns));
}

}  // namespace pagesim::run
