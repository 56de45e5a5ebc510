// The virtual engine's runs: builds the VirtualEngine from the scenario's machine model and the scheduler
// policy, runs the workload through its driver, then reports what the engine measured.
// Every time here is virtual (picoseconds from the machine model), never the host clock.
#include <fmt/format.h>

#include <map>
#include <string>

#include "../summaries.h"
#include "pagesim/engine/engine_metrics.h"
#include "pagesim/engine/virtual/driver.h"
#include "pagesim/engine/virtual/metrics.h"
#include "pagesim/engine/virtual/numa_balancing.h"
#include "pagesim/error.h"
#include "pagesim/rng.h"
#include "pagesim/vt/machine_model.h"

namespace pagesim::engine {

namespace {

constexpr run::Metric kVcpus{"vcpus", "", run::kVirtual, "tasks run (one per vCPU unless usemem's nr_task says otherwise)", false, true};
constexpr run::Metric kModelAccesses{"model_accesses", "", run::kVirtual, "cache-model calls of all tasks", false, false, true};
constexpr run::Metric kCausalityYields{"causality_yields", "", run::kVirtual,
                                       "switches because a task's clock passed the next one's", false, false, true};
// Under engine.sched: numa, over the whole run.
constexpr run::MetricPattern<1> kNumaVmstat{"proc-vmstat.numa_{counter}", "", run::kVirtual,
                                            "NUMA balancing (engine.sched: numa): pte_updates, hint_faults, "
                                            "hint_faults_local, pages_migrated"};
constexpr run::MetricPattern<1> kNumaSched{"sched.numa_{event}", "", run::kVirtual,
                                           "NUMA balancing: scans (task_numa_work passes), task_moves (to an idle CPU), "
                                           "swaps (migrate_swap)"};

using E = VirtualCpu;

}  // namespace

void VirtualDriver::leave_start_barrier(Exec& ex, uint64_t round) const {
  constexpr ps_t kWakeJitterPs = 1000000;
  Rng rng(seed(), 0x77616b6500000000ull + (round << 20) + ex.task());
  ex.advance(rng.below(kWakeJitterPs));
}

void VirtualDriver::mark_start(Time t) {
  DriverBase::mark_start(t);
  if (restarted_at_ == t) return;
  restarted_at_ = t;
  for (unsigned i = 0; i < eng_.nr_tasks(); ++i) eng_.task(i).reset_times();
  busy_at_start_ = eng_.busy_until(t);
  profile_.reset();
}

void VirtualDriver::mark_end(Time t) {
  DriverBase::mark_end(t);
  profile_ = take_phase_profile(eng_, phase_start(), t, busy_at_start_);
}

namespace {

// NUMA balancing's counters, over the whole run (engine.sched: numa).
void add_numa_metrics(const NumaBalancingStats& nb, std::map<std::string, double>& m) {
  kNumaVmstat.at("pte_updates").set(m, static_cast<double>(nb.pte_updates));
  kNumaVmstat.at("hint_faults").set(m, static_cast<double>(nb.hint_faults));
  kNumaVmstat.at("hint_faults_local").set(m, static_cast<double>(nb.hint_faults_local));
  kNumaVmstat.at("pages_migrated").set(m, static_cast<double>(nb.pages_migrated));
  kNumaSched.at("scans").set(m, static_cast<double>(nb.scans));
  kNumaSched.at("task_moves").set(m, static_cast<double>(nb.task_moves));
  kNumaSched.at("swaps").set(m, static_cast<double>(nb.swaps));
}

}  // namespace

void run_virtual(const RunInput& in, const Program& program) {
  const config::Params& eo = in.options;  // as virtual_engine() declares them
  const uint64_t slack_ns = static_cast<uint64_t>(eo.integer("slack_ns"));
  VirtualOptions vo;
  vo.slack_ps = slack_ns * 1000;
  vo.stop = in.stop;
  if (!eo.string("sched_trace").empty()) vo.sched.trace_file = input_path(in.source, eo.string("sched_trace"));
  vo.sched.numa_home = eo.string("numa_home");
  vo.sched.seed = in.seed;
  vo.sched.balance_window_ps = static_cast<uint64_t>(eo.integer("balance_window")) * 1000;
  if (in.check_model) in.check_model(*in.model);
  VirtualEngine eng(in.machine, *in.model, vo, make_sched_policy(eo.string("sched"), vo.sched));
  VirtualDriver d(in, eng);
  program.run(d);

  const unsigned n = eng.nr_tasks();
  run::RunResult& r = in.result;
  auto& m = r.metrics;
  kElapsedS.set(m, d.elapsed_s());
  kVcpus.set(m, n);
  if (d.phase_profile()) add_phase_metrics(*d.phase_profile(), m);
  if (const NumaBalancingStats* nb = eng.policy().numa_stats()) add_numa_metrics(*nb, m);
  std::vector<const LockStatTable*> lock_tables;
  IrqOffStat irq;
  AccessCounters acc;
  double sys_ps = 0, model_accesses = 0;
  for (unsigned t = 0; t < n; ++t) {
    const E& ex = eng.task(t);
    lock_tables.push_back(&ex.lock_stats());
    irq.merge(ex.irq_off());
    acc += ex.accesses();
    sys_ps += static_cast<double>(ex.sys_ps());
    model_accesses += static_cast<double>(ex.model_accesses());
  }
  kSysS.set(m, sys_ps / 1e12);
  kModelAccesses.set(m, model_accesses);
  kCausalitySlackAccesses.set(m, static_cast<double>(eng.slack_accesses()));
  kCausalityYields.set(m, static_cast<double>(eng.causality_yields()));
  r.locks = summarize_locks(lock_tables);
  summarize_irq_off(irq, m);
  summarize_accesses(acc, r.cache);
  summarize_cache_model(eng.cache().stats(), r.cache);
  const vt::MachineModel& mdl = eng.model();
  r.cache.model = fmt::format("software cache model online in virtual-time order; machine {} ({})", mdl.name, mdl.file);
  r.cache.hw_reason = "virtual engine: no hardware counters (modelled machine)";
  r.notes.push_back(fmt::format("virtual engine: {} tasks on {} vCPUs, scheduler policy {}, machine file {}; times are virtual",
                                n, in.machine.nr_cpus(), eng.policy().name(), mdl.file));
  if (eng.slack_accesses())
    r.notes.push_back(fmt::format("causality slack used: {} accesses ran ahead of the next clock (slack {} ns)",
                                  eng.slack_accesses(), slack_ns));
}

std::vector<run::MetricInfo> virtual_metrics() {
  std::vector<run::MetricInfo> m = run::metric_infos(kVcpus, kModelAccesses, kCausalityYields, kCausalitySlackAccesses);
  for (const auto& part : {phase_profile_metrics(), run::metric_infos(kNumaVmstat, kNumaSched)})
    m.insert(m.end(), part.begin(), part.end());
  return m;
}

}  // namespace pagesim::engine
