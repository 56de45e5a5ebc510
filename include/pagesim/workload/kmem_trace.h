// kmem_trace: a kernel kmem trace's allocations and frees (docs/replay.md, "What-if on your own
// workload") issued as requests to the model, each traced CPU as a CPU of the scenario's machine.
//
// The requests are what `pagesim replay` feeds the model (trace::pair_events): a successful
// mm_page_alloc is an allocation of its order with its gfp_flags and migratetype; an
// mm_page_free is a free of the block, at that event, or at its mm_page_free_batched when
// free_unref_folios freed it in a batch (then as a folio free, at the batched event's time). A
// free of a block allocated before the trace began is skipped and counted; so is a failed
// allocation. The kernel's answers (mm_page_alloc_zone_locked, mm_page_pcpu_drain) and
// vmstat_update are not requests.
//
// `replicate: N` runs N copies of every traced CPU's stream: copy k of traced CPU c runs on CPU
// k * traced_cpus + c, its blocks named by pfn + k * pfn_stride, so that no two copies share a
// block.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "pagesim/mm/types.h"
#include "pagesim/trace/ftrace.h"

namespace pagesim::workload {

struct KmemRequest {
  enum class Op : uint8_t { alloc, free, free_folio };
  double at_s = 0;    // seconds after the trace's first request
  uint64_t pfn = 0;   // the block: the traced pfn + copy * pfn_stride
  uint32_t slot = 0;  // the allocation it is (an alloc), or frees (a free): an index into a table of blocks
  mm::gfp_t gfp = 0;  // an allocation's gfp (trace::alloc_gfp)
  uint8_t order = 0;
  Op op = Op::alloc;
  uint32_t line = 0;  // the trace's line
};

struct KmemRequests {
  unsigned traced_cpus = 0;  // the trace's CPUs that issue requests: its largest such CPU + 1
  unsigned replicate = 1;
  uint64_t pfn_stride = 0;   // copy k's pfns are the traced ones + k * pfn_stride
  uint32_t slots = 0;        // allocations, over every copy
  std::vector<std::vector<KmemRequest>> cpus;  // traced_cpus * replicate streams, each in time order
  // Per traced CPU, the line of its first request (for the CPU-count error).
  std::vector<uint32_t> first_line;
  uint64_t pretrace_frees = 0;  // frees of blocks allocated before the trace began: skipped (per copy)
  uint64_t failed_allocs = 0;   // the kernel's failed allocations: skipped (per copy)
  double span_s = 0;            // the first request to the last
  uint64_t requests() const;
};

// The requests of `t`, its first `max_requests` of them (0: all) per copy. Throws InputError
// when the trace holds no request.
KmemRequests kmem_requests(const trace::Trace& t, unsigned replicate, uint64_t max_requests);

}  // namespace pagesim::workload
