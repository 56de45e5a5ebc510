// The analytic memory model: workload-side memory traffic that is charged by formula instead
// of line by line (docs/machine-model.md, "Memory model").
//
//   clear_huge_page: bytes / min(one thread's clear rate in its mode, the page node's DRAM bandwidth shared
//     by the tasks clearing there now); a remote page is also limited by the UPI bandwidth
//     shared by the remote clears.
//   the store loop: per task, stores x (local share x L_local + remote share x L_remote) / MLP,
//     where the remote share comes from the task's node-residency (the share of the loop it
//     runs on each node) against its pages' node histogram, and the latencies are the machine
//     file's idle ones plus the loaded-latency curve at the utilisation that all concurrent
//     tasks' traffic produces, solved as a fixed point. A node whose demand exceeds its
//     bandwidth queues: its latency stretches until its demand equals its bandwidth.
#pragma once

#include <cstdint>
#include <vector>

#include "pagesim/vt/machine_model.h"

namespace pagesim::vt {

// Time to clear `bytes` homed on `page_node` from a CPU on `cpu_node` at one thread's
// `thread_rate` (bytes/s, MachineModel::clear_rate), with `sharers` tasks (this one included)
// clearing on page_node at the same time. sharers >= 1.
ps_t clear_time_ps(const MachineModel& m, uint64_t bytes, unsigned page_node, unsigned cpu_node, unsigned sharers,
                   double thread_rate);

struct StoreLoopTask {
  uint64_t stores = 0;
  std::vector<uint64_t> pages_per_node;  // the task's pages by home node
  std::vector<double> residency;         // share of the loop spent on each node (sums to 1)
  double cpu_share = 1;                  // the share of its CPU it gets (1 / tasks on that CPU)
};

struct StoreLoopResult {
  std::vector<ps_t> time_ps;        // per task
  std::vector<double> remote_share; // per task: share of its stores to another node
  std::vector<double> dram_utilisation;  // per node, at the fixed point
  std::vector<double> local_ns;     // per node: loaded latency of a local store miss
  std::vector<double> remote_ns;    // per home node: loaded latency of a remote store miss
  std::vector<double> lat_ps;       // [cpu node * nodes + home node]: loaded miss latency
  unsigned iterations = 0;          // of the fixed-point solve
};

// The cost of one store of a task with `pages_per_node` while it runs on `cpu_node`, at the
// latencies of `r` (picoseconds, the MLP applied).
double store_ps_on(const MachineModel& m, const StoreLoopResult& r, const std::vector<uint64_t>& pages_per_node,
                   unsigned cpu_node);

// All tasks run their loops at the same time (the LKP case after the fault burst).
StoreLoopResult store_loop(const MachineModel& m, const std::vector<StoreLoopTask>& tasks);

}  // namespace pagesim::vt
