// Which of a trace's events are the workload's requests, and how they pair: a free with the
// allocation it returns (or with none, when the block was allocated before the trace began), a
// folio batch's two passes with each other. `pagesim replay` and the kmem_trace workload both
// read a trace's requests through it.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "pagesim/mm/types.h"
#include "pagesim/trace/ftrace.h"

namespace pagesim::trace {

struct Pairing {
  std::vector<bool> in_zone;  // the event's block lies in the zone read (as given to pair_events)
  // free_unref_folios frees in two passes: mm_page_free for the whole batch, then
  // mm_page_free_batched as each block reaches the pcp. For a batched event, the index of its
  // mm_page_free (which prints the real order); -1 otherwise.
  std::vector<int64_t> free_of_batched;
  std::vector<bool> deferred;        // an mm_page_free whose block moves at its batched event
  std::vector<bool> pretrace_free;   // an mm_page_free of a block allocated before the trace
  // Such blocks, by order and migratetype (the free's list, free_mt).
  std::array<std::array<uint64_t, 3>, mm::MAX_ORDER> pretrace{};
  // Per mm_page_free: the list its block joins. The kernel takes the pageblock's type at the
  // free; the block's next drain prints the pageblock's type, the best witness. Without one, the
  // type it was allocated with; without that, MOVABLE.
  std::vector<int8_t> free_mt;
};
// Events with in_zone[i] false are left out of every pairing.
Pairing pair_events(const Trace& t, const std::vector<bool>& in_zone);

// What an mm_page_alloc asked for: its gfp_flags' bits, with the migratetype bits replaced by
// the migratetype it printed (1 movable, 2 reclaimable, else unmovable).
mm::gfp_t alloc_gfp(const Trace& t, const Event& e);

}  // namespace pagesim::trace
