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

namespace pagesim::replay::detail {

// A pcp list as 6.x numbers them: order 0-3 by migratetype, then the THP order (pindex 12 for
// unmovable and reclaimable, 13 for movable).
inline constexpr unsigned kLists = 14;
inline constexpr unsigned kThpOrder = 9;
bool pcp_order(unsigned order);  // pcp_allowed_order with THP
unsigned list_of(unsigned mt, unsigned order);
unsigned list_order(unsigned pindex);
unsigned list_mt(unsigned pindex);  // MOVABLE for 13, UNMOVABLE for 12

// Which events the replay feeds the model, and how.
struct Pairing {
  std::vector<bool> in_zone;  // the event's block lies in the replayed zone
  // free_unref_folios frees in two passes: mm_page_free for the whole batch, then
  // mm_page_free_batched as each block reaches the pcp. For a batched event, the index of its
  // mm_page_free (which prints the real order); -1 otherwise.
  std::vector<int64_t> free_of_batched;
  std::vector<bool> deferred;        // an mm_page_free whose block moves at its batched event
  std::vector<bool> pretrace_free;   // an mm_page_free of a block allocated before the trace
  // Such blocks, by order and migratetype (the free's list, free_mt).
  std::array<std::array<uint64_t, 3>, kOrders> pretrace{};
  // Per mm_page_free: the list its block joins. The kernel takes the pageblock's type at the
  // free; the block's next drain prints the pageblock's type, the best witness. Without one, the
  // type it was allocated with; without that, MOVABLE.
  std::vector<int8_t> free_mt;
};
Pairing pair_events(const trace::Trace& t, const std::vector<bool>& in_zone);

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
