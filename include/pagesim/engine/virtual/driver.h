// The virtual engine's driver: tasks are fibers on virtual CPUs, time is the machine model's
// (picoseconds), and the engine's OS services (fork and the start pipe, clear_huge_page, sliced
// user-mode work, the scheduler's counters) are reached through engine().
#pragma once

#include <functional>

#include "pagesim/engine/driver_base.h"
#include "pagesim/engine/virtual/virtual.h"

namespace pagesim::engine {

class VirtualDriver : public DriverBase<ps_t> {
 public:
  using Exec = VirtualCpu;
  using Time = ps_t;

  VirtualDriver(const RunInput& in, VirtualEngine& eng) : DriverBase(in), eng_(eng) {}

  VirtualEngine& engine() const { return eng_; }
  unsigned nr_cpus() const { return machine().nr_cpus(); }
  // Runs body(task) for `nr_tasks` fiber tasks; more tasks than vCPUs time-share them.
  void run_tasks(unsigned nr_tasks, const std::function<void(Exec&)>& body) { eng_.run(nr_tasks, body); }
  void barrier(Exec& ex) { ex.barrier(); }
  Time now(Exec& ex) const { return ex.clock(); }
  double now_ns(Exec& ex) const { return static_cast<double>(ex.clock()) / 1000; }
  void counters_start(Exec&) {}  // a modelled machine has no hardware counters
  void counters_stop(Exec&) {}
  // Tasks leave a start barrier at slightly different times (the pipe wake-ups of LKP's usemem
  // are sequential): an assumed spread, uniform in [0, 1 us) per (seed, round, task), so that
  // repeats with derived seeds differ and LKP's stddev means something.
  void leave_start_barrier(Exec& ex, uint64_t round) const;

  // time.*, sched.* and idle_pct as the robot's report shows them, over the measured phase.
  void add_scheduler_metrics() const;
  // perf-profile.children.* over the measured phase: the share of all vCPUs' time (idle
  // included, as perf record -a samples it) in each function and its callees.
  void add_profile_metrics() const;

 private:
  VirtualEngine& eng_;
};

}  // namespace pagesim::engine
