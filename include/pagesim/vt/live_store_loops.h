// LiveStoreLoops: the store loops of one usemem iteration while they run.
//
// vt::store_loop() solves the loaded latencies for a fixed set of loops. Here the set changes
// as the loops run: a task enters its loop, moves to another node, shares its CPU with more or
// fewer tasks, or finishes. Each change marks the solution stale; the next price asked for is
// re-solved from every loop's state at that moment, so a slice of a loop is charged at the
// latencies of where all loops are then (docs/machine-model.md, "Memory model").
//
// Thread safety: none. The virtual engine calls it from its fibers one at a time, in virtual-
// time order, which is also what makes the sequence of solutions deterministic.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "pagesim/vt/machine_model.h"
#include "pagesim/vt/memory_model.h"

namespace pagesim::vt {

class LiveStoreLoops {
 public:
  LiveStoreLoops(const MachineModel& m, unsigned nr_tasks);

  // The cost of one store (picoseconds, MLP applied) of `task`, whose pages are
  // `pages_per_node`, now running on `node` with `cpu_share` of its CPU. Enters the task into
  // the set or updates its state first.
  double per_store_ps(unsigned task, const std::vector<uint64_t>& pages_per_node, unsigned node, double cpu_share);
  // The task's loop has ended: it no longer loads memory.
  void leave(unsigned task);

  uint64_t solves() const { return solves_; }  // how often the latencies were re-solved

 private:
  const MachineModel& m_;
  std::vector<StoreLoopTask> tasks_;  // a task out of its loop has no pages
  std::vector<int> node_;             // the node each loop runs on; -1 when out
  std::optional<StoreLoopResult> solved_;  // empty when stale
  uint64_t solves_ = 0;
};

}  // namespace pagesim::vt
