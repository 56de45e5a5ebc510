// The invariant checker (docs/model.md, "Accounting and invariants"): the model's CONFIG_DEBUG_VM, run at quiescent points
// (no CPU inside the allocator). It reads the Machine directly and never changes it.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "pagesim/mm/machine.h"

namespace pagesim::mm {

// Per-zone page accounting, as the JSON "zones" entries report it.
struct ZoneCensus {
  unsigned node = 0;
  zone_type zone = ZONE_NORMAL;
  uint64_t managed_pages = 0;
  long nr_free_pages = 0;        // the counter, per-cpu diffs folded in
  uint64_t free_list_pages = 0;  // counted on the buddy lists
  uint64_t deferred_pages = 0;   // not yet initialised (counted as free by the counter)
  uint64_t pcp_pages = 0;
  long allocated_pages = 0;
  long leaked_pages = 0;
  long leaked_unaccounted = 0;   // the v5.17 buddy-path drift
};

ZoneCensus zone_census(const Zone& z);

struct InvariantReport {
  uint64_t checks = 0;  // individual conditions evaluated
  std::vector<std::string> violations;
  bool ok() const { return violations.empty(); }
};

// Checks every invariant of docs/model.md, "Accounting and invariants", on every populated zone. Walks every free list and pcp
// list and scans the memmap of each initialised section (for unmerged buddies), so its cost is
// linear in the initialised memory.
InvariantReport check_invariants(const Machine& m);

}  // namespace pagesim::mm
