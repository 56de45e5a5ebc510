// The memory traffic of the virtual engine along its virtual time: the store loops that
// workloads register and the huge-page clears that run at a moment, in one closed loop per
// node (vt::MemoryTraffic), and the queueing delay that loop gives every other DRAM miss.
//
// Used by VirtualCpu (access, access_range, clear_huge_page) and, through
// VirtualDriver::memory(), by workloads that add their store loops (usemem). VirtualEngine
// owns it.
//
// Invariants: a clear counts in the loop from its start to its end, exclusive. Tasks ask at
// their own clocks, which the causality check keeps nearly in order, so a clear that starts
// after the time asked is left out until a clock reaches it, and one that has ended is taken
// out for good (a later question about an earlier time no longer sees it). Times are virtual
// picoseconds.
#pragma once

#include <cstdint>
#include <vector>

#include "pagesim/vt/machine_model.h"
#include "pagesim/vt/memory_traffic.h"

namespace pagesim {

class TrafficTimeline {
 public:
  using ps_t = vt::ps_t;

  explicit TrafficTimeline(const vt::MachineModel& model) : traffic_(model) {}

  // The traffic as it is at `now`: the clears running then.
  vt::MemoryTraffic& at(ps_t now);
  // What a DRAM miss homed on `node` pays over the idle latency at `now`: its controller's
  // queueing delay under every requester present then.
  ps_t dram_extra_ps(unsigned node, ps_t now);
  // A clear of `bytes` on a CPU of `cpu_node` into a page homed on `page_node`, from `now`,
  // keeping `lines_in_flight` lines in flight. Its rate is what the node's controller and, for
  // a remote page, the link leave it once it joins the others, fixed for the clear. Returns
  // how long it takes.
  ps_t clear(ps_t now, unsigned cpu_node, unsigned page_node, double lines_in_flight, uint64_t bytes);
  // The clears started and not yet taken out (by a question at or after their end).
  size_t nr_clears() const { return clears_.size(); }

 private:
  struct ClearInterval {
    ps_t start, end;
    unsigned cpu_node, page_node;
    double lines_in_flight;
    bool counted;  // in traffic_ now
  };

  vt::MemoryTraffic traffic_;
  std::vector<ClearInterval> clears_;
  // The span of virtual time over which traffic_ holds the clears that run: no clear starts
  // or ends inside it, so at() has nothing to do there (every DRAM miss asks).
  ps_t clears_from_ = 0, clears_until_ = 0;
};

}  // namespace pagesim
