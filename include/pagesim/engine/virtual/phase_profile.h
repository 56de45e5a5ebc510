// Where the vCPUs' time went over a workload's measured phase: the time.*, sched.*, idle_pct and
// perf-profile.* rows the virtual engine reports for every workload (docs/output.md).
//
// VirtualDriver::mark_start restarts every task's times (system, user, per site, spinning) and
// notes the vCPUs' busy time so far; VirtualDriver::mark_end takes this profile; run_virtual
// turns it into metrics, so a workload reports it without code of its own. The context
// switches and migrations count from the last VirtualCpu::reset_stats (a workload's warm-up
// end) or the run's start. The self shares partition all vCPU time, as
// `perf record -a` samples it: each site's own time, the spinning on each lock class, the
// store loops (user time), the rest of the busy time ("other") and idle add up to 100%.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <string>

#include "pagesim/exec/exec.h"
#include "pagesim/vt/machine_model.h"

namespace pagesim {
class VirtualEngine;
}

namespace pagesim::engine {

struct PhaseProfile {
  vt::ps_t elapsed = 0;  // the phase's length
  unsigned nr_cpus = 0;
  vt::ps_t busy = 0;  // summed over vCPUs: the time some task ran there
  // Summed over tasks: the time charged at each site (accesses, work, clearing), spent
  // spinning for a lock (by the site that waited, and by lock class), in the store loops.
  std::array<vt::ps_t, kNumSites> site{}, spin{};
  std::array<vt::ps_t, static_cast<size_t>(LockClass::kCount)> spin_cls{};
  vt::ps_t user = 0, sys = 0;
  uint64_t migrations = 0, involuntary_switches = 0, voluntary_switches = 0;
};

// The profile of the phase [start, end], taken at its end while every task waits there (after
// a barrier); busy_at_start: VirtualEngine::busy_until(start), noted at its start.
PhaseProfile take_phase_profile(VirtualEngine& eng, vt::ps_t start, vt::ps_t end, vt::ps_t busy_at_start);

// time.*, sched.migrations, idle_pct and perf-profile.* of a profile, into `m`.
void add_phase_metrics(const PhaseProfile& p, std::map<std::string, double>& m);

}  // namespace pagesim::engine
