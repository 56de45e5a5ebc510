// Clearing a huge page the ways seed 000 compares, on real memory.
//
//   per_subpage  clear_huge_page as in v5.17 and v6.3: clear_page (4 KiB, `rep stosb` as clear_page_erms) per
//                subpage in process_huge_page's order: from the far end towards the target,
//                then alternately left and right of it, the target last (its cache lines stay
//                hot for the faulting access). cond_resched() between subpages is a no-op here.
//   multi_page   the x86 multi-page series: one `rep stosb` over the whole extent (clear_pages).
//   nontemporal  non-temporal 8-byte stores (movnti) over the extent, then sfence.
//   memset       the C library's memset over the extent: the reference.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

namespace pagesim::vt {

enum class ClearMode { per_subpage, multi_page, nontemporal, memset };

std::optional<ClearMode> parse_clear_mode(std::string_view s);
std::string_view clear_mode_name(ClearMode m);

// The order in which process_huge_page visits the `n` subpages of a huge page whose faulting
// address falls in subpage `target`: visit(i) for every i once, target last.
template <class F>
void process_huge_page_order(uint64_t n, uint64_t target, F&& visit) {
  uint64_t base, l;
  if (2 * target <= n) {  // target in the first half: the tail end first, downwards
    base = 0, l = target;
    for (uint64_t i = n; i-- > 2 * target;) visit(i);
  } else {  // target in the second half: the head end first, upwards
    base = n - 2 * (n - target), l = n - target;
    for (uint64_t i = 0; i < base; ++i) visit(i);
  }
  for (uint64_t i = 0; i < l; ++i) {  // left-right-left-right towards the target
    visit(base + i);
    visit(base + 2 * l - 1 - i);
  }
}

// Clears `bytes` at `p`, a whole number of extents of `huge_bytes` (a huge page, or usemem's
// scaled share of one, which may end mid-subpage), in `mode`; the faulting
// address of each huge page is in subpage `target` (per_subpage only).
void clear_extent(char* p, uint64_t bytes, uint64_t huge_bytes, ClearMode mode, uint64_t target = 0);

}  // namespace pagesim::vt
