// random_mixed: mixed-order allocation and free with fault injection, for invariant soaks.
//
// Each operation runs on a randomly chosen CPU: with probability `free_fraction` (or when the
// live set is at its cap) it frees a random live block, otherwise it allocates a block of a
// random order and migratetype from the CPU's node. Faults are injected into free blocks at
// `fault_rate` per operation. Invariants are checked every `check_every` operations.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "pagesim/exec/uniprocessor.h"
#include "pagesim/mm/fault_inject.h"
#include "pagesim/mm/machine.h"

namespace pagesim::workload {

struct RandomMixedParams {
  uint64_t ops = 100000;
  uint64_t seed = 1;
  double free_fraction = 0.5;
  uint64_t max_live_pages = 0;  // 0: half of the machine's memory
  double fault_rate = 0.0;      // faults injected per operation
  mm::FaultSpec fault;          // what to corrupt; `subpage` -1 mixes heads and tails
  double fault_on_pcp = 0.3;    // share of faults aimed at pcp lists instead of buddy lists
  uint64_t check_every = 10000; // 0: only at the end
  bool drain_at_end = true;     // return everything, then drain every pcp
};

struct RandomMixedResult {
  uint64_t allocs = 0, frees = 0, alloc_failures = 0, faults_injected = 0;
  uint64_t invariant_checks = 0;
  std::vector<std::string> violations;  // the first violations found, with the op number
};

// Runs on the uniprocessor engine (CPU switches between operations).
template <bool Track>
RandomMixedResult run_random_mixed(mm::Machine& m, UniprocessorExec<Track>& ex, const RandomMixedParams& p);

}  // namespace pagesim::workload
