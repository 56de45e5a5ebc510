// What a trace says of the pcp lists: the kernel's side of a replay. From the events alone,
// each CPU's lists are known up to a constant: refills and frees add blocks, allocations and
// drains take them. Internal to sim/replay.
#pragma once

#include <absl/container/flat_hash_map.h>
#include <absl/container/flat_hash_set.h>

#include <array>
#include <cstdint>
#include <vector>

#include "pagesim/replay/replay.h"
#include "pagesim/trace/ftrace.h"
#include "pagesim/trace/pairing.h"

namespace pagesim::replay::detail {

// A pcp list as 6.x numbers them: order 0-3 by migratetype, then the THP order (pindex 12 for
// unmovable and reclaimable, 13 for movable).
inline constexpr unsigned kLists = 14;
inline constexpr unsigned kThpOrder = 9;
bool pcp_order(unsigned order);  // pcp_allowed_order with THP
unsigned list_of(unsigned mt, unsigned order);
unsigned list_order(unsigned pindex);
unsigned list_mt(unsigned pindex);  // MOVABLE for 13, UNMOVABLE for 12

// Which events the replay feeds the model, and how (shared with the kmem_trace workload).
using trace::Pairing;
using trace::pair_events;

// One CPU's lists, relative to the start: running deltas and their extremes.
struct ListHistory {
  std::array<long, kLists> blocks{}, min_blocks{};
  long pages = 0, min_pages = 0, max_pages = 0;
};

// The kernel's lists, event by event. Allocations of pcp orders and migratetypes come from the
// pcp; a free goes to the list Pairing::free_mt gives.
// 6.x traces no block that __rmqueue_claim takes whole from pageblock order up: rmqueue_bulk
// hands out its first, pageblock-aligned sub-block untraced and traces the rest, split from
// it, in this refill or the next. An allocation of such a block (aligned, not on a list, the
// next block up traced as refilled somewhere in the trace) took an untraced refill: it moves no
// list.
class KernelLists {
 public:
  KernelLists(unsigned nr_cpus, const trace::Trace& t, const Pairing& p);
  // Applies event i; returns its CPU, or -1 when it moves no list.
  int apply(size_t i);
  const ListHistory& cpu(unsigned c) const { return cpus_[c]; }

 private:
  void move(unsigned cpu, unsigned list, int blocks);
  bool untraced_claim(uint64_t pfn, unsigned order) const;
  std::vector<ListHistory> cpus_;
  absl::flat_hash_set<uint64_t> on_lists_;  // blocks the events put on a pcp list
  absl::flat_hash_set<uint64_t> refilled_;  // blocks the trace shows refilled, at any time
  const trace::Trace& t_;
  const Pairing& p_;
};

}  // namespace pagesim::replay::detail
