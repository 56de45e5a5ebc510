// The store loops of one usemem iteration solved together, for the report: every loop running
// at once, where each task runs when the last one has faulted (memory_traffic.h prices the
// loops as they really run, slice by slice).
#pragma once

#include <cstdint>
#include <vector>

#include "pagesim/vt/machine_model.h"

namespace pagesim::vt {

struct StoreLoopTask {
  uint64_t stores = 0;
  std::vector<uint64_t> pages_per_node;  // the task's pages by home node; none: not running
  unsigned node = 0;                     // the node it runs on
  double cpu_share = 1;                  // the share of its CPU it gets (1 / tasks on that CPU)
};

struct StoreLoopResult {
  std::vector<ps_t> time_ps;         // per task: its stores at the fixed point
  std::vector<double> remote_share;  // per task: share of its stores to another node
  // Per node, at the fixed point:
  std::vector<double> dram_utilisation;        // the busiest controller station
  std::vector<double> transactions_per_s;      // every DRAM transaction homed there
  std::vector<double> directory_writes_per_s;  // among them, directory updates
  std::vector<double> local_ns;                // a local store miss
  std::vector<double> remote_ns;               // the slowest remote store miss homed there
};

StoreLoopResult store_loop(const MachineModel& m, const std::vector<StoreLoopTask>& tasks);

}  // namespace pagesim::vt
