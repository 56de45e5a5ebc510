// The virtual engine's runs: builds the VirtualEngine from the machine file and the scheduler
// policy, runs the workload through its driver, then reports what the engine measured.
// Every time here is virtual (picoseconds from the machine model), never the host clock.
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <filesystem>

#include "../summaries.h"
#include "pagesim/config/shipped.h"
#include "pagesim/engine/virtual/driver.h"
#include "pagesim/engine/virtual/numa_balancing.h"
#include "pagesim/error.h"
#include "pagesim/rng.h"
#include "pagesim/vt/machine_model.h"

namespace pagesim::engine {

namespace {

using E = VirtualCpu;

std::string machine_file_of(const EngineOptions& eo, const std::string& source) {
  if (eo.machine_file.empty()) return vt::default_machine_file();
  return config::require_existing(fmt::format("{}: engine.machine_file", source), eo.machine_file,
                                  machine_file_candidates(source, eo.machine_file));
}

}  // namespace

vt::MachineModel virtual_machine_model(const EngineOptions& o, const std::string& source) {
  return vt::load_machine_model(machine_file_of(o, source));
}

void check_virtual(const mm::MachineSpec& spec, const EngineOptions& o, const std::string& source) {
  VirtualEngine::geometry_for(spec, virtual_machine_model(o, source));
  if (!o.sched_trace.empty() && !std::filesystem::exists(input_path(source, o.sched_trace)))
    throw InputError(fmt::format("{}: engine.sched_trace: '{}' does not exist", source, o.sched_trace));
}

void VirtualDriver::leave_start_barrier(Exec& ex, uint64_t round) const {
  constexpr ps_t kWakeJitterPs = 1000000;
  Rng rng(seed(), 0x77616b6500000000ull + (round << 20) + ex.task());
  ex.advance(rng.below(kWakeJitterPs));
}

void VirtualDriver::add_scheduler_metrics() const {
  const unsigned n = eng_.nr_tasks();
  const ps_t elapsed = phase_end() - phase_start();
  double user = 0, sys = 0, busy = 0, migrations = 0, invol = 0, vol = 0;
  for (unsigned t = 0; t < n; ++t) {
    const E& ex = eng_.task(t);
    user += static_cast<double>(ex.user_ps()) / 1e12;
    sys += static_cast<double>(ex.sys_ps()) / 1e12;
    migrations += static_cast<double>(ex.migrations());
    invol += static_cast<double>(ex.involuntary_switches());
    vol += static_cast<double>(ex.voluntary_switches());
  }
  for (ps_t b : eng_.cpu_busy_ps()) busy += static_cast<double>(b);
  const double cpu_time = static_cast<double>(elapsed) * eng_.machine().nr_cpus();
  auto& m = result().metrics;
  m["time.user_time"] = user;
  m["time.system_time"] = sys;
  m["time.elapsed_time"] = static_cast<double>(elapsed) / 1e12;
  m["time.percent_of_cpu_this_job_got"] = elapsed ? 100 * (user + sys) / (static_cast<double>(elapsed) / 1e12) : 0;
  m["time.involuntary_context_switches"] = invol;
  m["time.voluntary_context_switches"] = vol;
  m["sched.migrations"] = migrations;
  m["idle_pct"] = cpu_time > 0 ? std::max(0.0, 100 * (1 - busy / cpu_time)) : 0;
  if (const NumaBalancingStats* nb = eng_.policy().numa_stats()) {
    m["proc-vmstat.numa_pte_updates"] = static_cast<double>(nb->pte_updates);
    m["proc-vmstat.numa_hint_faults"] = static_cast<double>(nb->hint_faults);
    m["proc-vmstat.numa_hint_faults_local"] = static_cast<double>(nb->hint_faults_local);
    m["proc-vmstat.numa_pages_migrated"] = static_cast<double>(nb->pages_migrated);
    m["sched.numa_scans"] = static_cast<double>(nb->scans);
    m["sched.numa_task_moves"] = static_cast<double>(nb->task_moves);
    m["sched.numa_swaps"] = static_cast<double>(nb->swaps);
  }
}

void VirtualDriver::add_profile_metrics() const {
  const unsigned n = eng_.nr_tasks();
  std::array<double, kNumSites> self{}, spin{};
  double store = 0;
  for (unsigned t = 0; t < n; ++t) {
    const E& ex = eng_.task(t);
    for (unsigned i = 0; i < kNumSites; ++i) {
      self[i] += static_cast<double>(ex.site_ps()[i]);
      spin[i] += static_cast<double>(ex.spin_ps()[i]);
    }
    store += static_cast<double>(ex.user_ps());
  }
  const double all = static_cast<double>(phase_end() - phase_start()) * eng_.machine().nr_cpus();
  if (all <= 0) return;
  auto at = [&](Site s) { return self[static_cast<unsigned>(s)] + spin[static_cast<unsigned>(s)]; };
  double spinning = 0;
  for (double x : spin) spinning += x;
  const double bulk = at(Site::rmqueue_bulk) + at(Site::__rmqueue_smallest) + at(Site::expand) + at(Site::check_pcp_refill);
  auto& m = result().metrics;
  m["perf-profile.children.rmqueue_bulk"] = 100 * bulk / all;
  m["perf-profile.children.native_queued_spin_lock_slowpath"] = 100 * spinning / all;
  m["perf-profile.children.prep_compound_page"] = 100 * at(Site::prep_compound_page) / all;
  m["perf-profile.children.clear_huge_page"] = 100 * at(Site::clear_huge_page) / all;
  m["perf-profile.children.free_pcppages_bulk"] = 100 * (at(Site::free_pcppages_bulk) + at(Site::__free_one_page)) / all;
  m["perf-profile.children.do_rw_once"] = 100 * store / all;
  for (const auto& [cls, name] : {std::pair{LockClass::zone_lock, "zone_lock"}, std::pair{LockClass::hugetlb_lock, "hugetlb_lock"}}) {
    double spun = 0;
    for (unsigned t = 0; t < n; ++t) spun += static_cast<double>(eng_.task(t).spin_ps(cls));
    m[fmt::format("perf-profile.spin.{}", name)] = 100 * spun / all;
  }
}

void run_virtual(const RunInput& in, const Program& program) {
  const EngineOptions& eo = in.options;
  VirtualOptions vo;
  vo.slack_ps = eo.slack_ns * 1000;
  vo.stop = in.stop;
  if (!eo.sched_trace.empty()) vo.sched.trace_file = input_path(in.source, eo.sched_trace);
  vo.sched.numa_home = eo.numa_home;
  vo.sched.seed = in.seed;
  vo.sched.balance_window_ps = eo.balance_window_ns * 1000;
  vt::MachineModel model = virtual_machine_model(eo, in.source);
  if (in.check_model) in.check_model(model);
  VirtualEngine eng(in.machine, std::move(model), vo, make_sched_policy(eo.sched, vo.sched));
  VirtualDriver d(in, eng);
  program.run(d);

  const unsigned n = eng.nr_tasks();
  run::RunResult& r = in.result;
  auto& m = r.metrics;
  m["elapsed_s"] = d.elapsed_s();
  m["vcpus"] = n;
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
  m["sys_s"] = sys_ps / 1e12;
  m["model_accesses"] = model_accesses;
  m["causality_slack_accesses"] = static_cast<double>(eng.slack_accesses());
  m["causality_yields"] = static_cast<double>(eng.causality_yields());
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
                                  eng.slack_accesses(), eo.slack_ns));
}

}  // namespace pagesim::engine
