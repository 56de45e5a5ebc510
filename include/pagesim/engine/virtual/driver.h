// The virtual engine's driver: tasks are fibers on virtual CPUs, time is the machine model's
// (picoseconds). A task's own services (fork and the start pipe, rendezvous, clear_huge_page,
// sliced user-mode work) are on its Exec (VirtualCpu); the engine-wide services a workload
// may use are here: the run-queue view, the machine model, the memory traffic, the cache
// flush, the policy's NUMA balancing counters and where each task ran. The engine itself
// stays out of the workloads' reach. The measured phase's marks also take its profile
// (phase_profile.h).
#pragma once

#include <functional>
#include <optional>
#include <vector>

#include "pagesim/engine/driver_base.h"
#include "pagesim/engine/virtual/phase_profile.h"
#include "pagesim/engine/virtual/virtual.h"

namespace pagesim::engine {

class VirtualDriver : public DriverBase<ps_t> {
 public:
  using Exec = VirtualCpu;
  using Time = ps_t;

  VirtualDriver(const RunInput& in, VirtualEngine& eng) : DriverBase(in), eng_(eng) {}

  unsigned nr_cpus() const { return machine().nr_cpus(); }
  // Runs body(task) for `nr_tasks` fiber tasks; more tasks than vCPUs time-share them.
  void run_tasks(unsigned nr_tasks, const std::function<void(Exec&)>& body) { eng_.run(nr_tasks, body); }
  void barrier(Exec& ex) { ex.barrier(); }
  Time now(Exec& ex) const { return ex.clock(); }
  double now_ns(Exec& ex) const { return static_cast<double>(ex.clock()) / 1000; }
  // --- the engine's services ---
  // The run queues as the scheduler sees them now (fork homes, nr_running per vCPU).
  const Runqueues& runqueues() const { return eng_.runqueues(); }
  const vt::MachineModel& model() const { return eng_.model(); }
  // The memory model's requesters at `now`; workloads add their store loops to it.
  vt::MemoryTraffic& memory(Time now) { return eng_.memory(now); }
  // The latest clock of any task: the virtual time of everything run so far.
  Time latest_clock() const { return eng_.now(); }
  // Every cache of the model loses its lines (a footprint far larger than the caches).
  void flush_caches() { eng_.cache().flush_all(); }
  // NUMA balancing's counters, when the policy balances (engine.sched: numa).
  const NumaBalancingStats* numa_stats() const { return eng_.policy().numa_stats(); }
  // Where task `t` ran: the CPU it was placed on at each fork and migration, in time order.
  const std::vector<VirtualCpu::Placement>& placements(unsigned t) const { return eng_.task(t).placements(); }

  void counters_start(Exec&) {}  // a modelled machine has no hardware counters
  void counters_stop(Exec&) {}
  // Tasks leave a start barrier at slightly different times (the pipe wake-ups of LKP's usemem
  // are sequential): an assumed spread, uniform in [0, 1 us) per (seed, round, task), so that
  // repeats with derived seeds differ and LKP's stddev means something.
  void leave_start_barrier(Exec& ex, uint64_t round) const;

  // The measured phase's marks (DriverBase's), which also measure it: its start restarts every
  // task's times (VirtualCpu::reset_times) and notes the vCPUs' busy time, its end takes the
  // phase's profile, which run_virtual reports (time.*, sched.*, idle_pct, perf-profile.*) for
  // every workload. Both are taken where every task waits (after a barrier); a start mark
  // repeated at the same time (usemem's tasks each mark it) restarts nothing.
  void mark_start(Time t);
  void mark_end(Time t);
  // The profile of the phase last marked, once its end is.
  const std::optional<PhaseProfile>& phase_profile() const { return profile_; }

 private:
  VirtualEngine& eng_;
  std::optional<Time> restarted_at_;
  ps_t busy_at_start_ = 0;
  std::optional<PhaseProfile> profile_;
};

}  // namespace pagesim::engine
