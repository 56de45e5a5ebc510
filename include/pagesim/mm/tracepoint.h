// The kmem page tracepoints (include/trace/events/kmem.h), as the model fires them. A Machine
// with a sink set (Machine::set_tracer) reports each one; without one the model pays a null
// test per site. The sink is called on the CPU that fires the event and must be as thread-safe
// as the engine driving the Machine (the replay is single-threaded).
#pragma once

#include <cstdint>

#include "pagesim/mm/types.h"

namespace pagesim::mm {

enum class TracepointId : uint8_t {
  mm_page_alloc,              // __alloc_pages, after the fast and slow paths (pfn -1 on failure)
  mm_page_free,               // free_pages_prepare
  mm_page_free_batched,       // free_unref_page_list (5.17) / free_unref_folios (6.x)
  mm_page_alloc_zone_locked,  // a block leaves buddy under zone->lock
  mm_page_pcpu_drain,         // a block goes from a pcp list back to buddy (free_pcppages_bulk)
};

struct Tracepoint {
  TracepointId id;
  unsigned cpu;
  pfn_t pfn;  // kNoPfn for a failed allocation
  uint8_t order;
  int8_t migratetype;  // -1 where the event has none
  bool percpu_refill;  // mm_page_alloc_zone_locked
  gfp_t gfp;           // mm_page_alloc
};
inline constexpr pfn_t kNoPfn = ~pfn_t{0};

class TraceSink {
 public:
  virtual ~TraceSink() = default;
  virtual void emit(const Tracepoint& tp) = 0;
};

}  // namespace pagesim::mm
