// kmem_requests(): a trace's allocations and frees as per-CPU request streams, paired by
// trace::pair_events as `pagesim replay` pairs them, copied `replicate` times on disjoint pfns.
#include <absl/container/flat_hash_map.h>
#include <fmt/format.h>

#include <algorithm>

#include "pagesim/error.h"
#include "pagesim/trace/pairing.h"
#include "pagesim/workload/kmem_trace.h"

namespace pagesim::workload {

using trace::EventKind;

uint64_t KmemRequests::requests() const {
  uint64_t n = 0;
  for (const auto& c : cpus) n += c.size();
  return n;
}

namespace {

// Copy 0: the trace's own streams, one per traced CPU.
KmemRequests traced_streams(const trace::Trace& t, uint64_t max_requests) {
  std::vector<bool> requests(t.events.size());
  for (size_t i = 0; i < t.events.size(); ++i)
    requests[i] = !t.events[i].failed && t.events[i].kind != EventKind::vmstat_update;
  const trace::Pairing pairing = trace::pair_events(t, requests);
  KmemRequests r;
  absl::flat_hash_map<uint64_t, uint32_t> live;     // pfn -> the slot of its allocation
  absl::flat_hash_map<size_t, uint32_t> deferred;   // a batch's mm_page_free -> its block's slot
  double t0 = -1, last = 0;
  uint64_t n = 0;
  auto push = [&](const trace::Event& e, KmemRequest q) {
    if (t0 < 0) t0 = e.ts;
    last = e.ts;
    q.at_s = e.ts - t0;
    q.line = e.line;
    if (e.cpu >= r.cpus.size()) r.cpus.resize(e.cpu + 1), r.first_line.resize(e.cpu + 1, 0);
    if (r.cpus[e.cpu].empty()) r.first_line[e.cpu] = e.line;
    r.cpus[e.cpu].push_back(q);
    ++n;
  };
  for (size_t i = 0; i < t.events.size() && (!max_requests || n < max_requests); ++i) {
    const trace::Event& e = t.events[i];
    switch (e.kind) {
      case EventKind::mm_page_alloc:
        if (e.failed) {
          r.failed_allocs++;
          break;
        }
        live[e.pfn] = r.slots;
        push(e, {.pfn = e.pfn, .slot = r.slots++, .gfp = trace::alloc_gfp(t, e), .order = e.order, .op = KmemRequest::Op::alloc});
        break;
      case EventKind::mm_page_free: {
        if (pairing.pretrace_free[i]) {
          r.pretrace_frees++;
          break;
        }
        const auto it = live.find(e.pfn);
        if (it == live.end()) break;  // pair_events saw it allocated: never, but stay safe
        const uint32_t slot = it->second;
        live.erase(it);
        if (pairing.deferred[i]) deferred[i] = slot;
        else push(e, {.pfn = e.pfn, .slot = slot, .order = e.order, .op = KmemRequest::Op::free});
        break;
      }
      case EventKind::mm_page_free_batched:
        // free_unref_folios' second pass: the block reaches the pcp now, at its free's order.
        if (pairing.free_of_batched[i] >= 0) {
          const auto j = static_cast<size_t>(pairing.free_of_batched[i]);
          if (const auto it = deferred.find(j); it != deferred.end()) {
            push(e, {.pfn = e.pfn, .slot = it->second, .order = t.events[j].order, .op = KmemRequest::Op::free_folio});
            deferred.erase(it);
          }
        }
        break;
      default:
        break;  // the kernel's answer (zone_locked, pcpu_drain) and vmstat_update
    }
  }
  if (n == 0) throw InputError(fmt::format("{}: no mm_page_alloc or mm_page_free to issue (was the kmem event enabled?)", t.source));
  r.traced_cpus = static_cast<unsigned>(r.cpus.size());
  r.span_s = last - t0;
  uint64_t max_end = 0;  // one past the highest page any request names
  for (const auto& c : r.cpus)
    for (const KmemRequest& q : c) max_end = std::max(max_end, q.pfn + (uint64_t{1} << q.order));
  // Whole MAX_ORDER blocks, so that a copy's blocks keep their traced alignment.
  const uint64_t max_block = uint64_t{1} << (mm::MAX_ORDER - 1);
  r.pfn_stride = (max_end + max_block - 1) / max_block * max_block;
  return r;
}

}  // namespace

KmemRequests kmem_requests(const trace::Trace& t, unsigned replicate, uint64_t max_requests) {
  KmemRequests r = traced_streams(t, max_requests);
  const unsigned traced = r.traced_cpus;
  const uint32_t slots = r.slots;
  r.replicate = std::max(1u, replicate);
  r.cpus.resize(static_cast<size_t>(traced) * r.replicate);
  for (unsigned k = 1; k < r.replicate; ++k)
    for (unsigned c = 0; c < traced; ++c) {
      std::vector<KmemRequest>& copy = r.cpus[k * traced + c];
      copy = r.cpus[c];
      for (KmemRequest& q : copy) {
        q.pfn += k * r.pfn_stride;
        q.slot += k * slots;
      }
    }
  r.slots = slots * r.replicate;
  return r;
}

}  // namespace pagesim::workload
