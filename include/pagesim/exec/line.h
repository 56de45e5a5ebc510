// Cache-line identities of modelled kernel objects.
//
// Every line the model touches has a kernel-like virtual address (64-byte granular), a home
// NUMA node and a kind. Struct pages live in the vmemmap at VMEMMAP_BASE + pfn * 64 and are
// homed on their pfn's node; `struct zone` lines use the v5.17 field offsets (see
// docs/model.md); pcp lists live in the per-cpu area of their CPU's node.
#pragma once

#include <cstdint>
#include <string_view>

namespace pagesim {

enum class LineKind : uint8_t {
  struct_page,   // a struct page in the vmemmap
  lock_word,     // zone->lock, hugetlb_lock, mm->mmap_lock
  list_head,     // free_area[o].free_list[mt], pcp->lists[i], hugetlb free lists
  zone_meta,     // read-mostly zone fields: watermarks, pageset pointers, flags
  pcp_meta,      // pcp count/high/batch/free_factor
  counter,       // zone->vm_stat, vm_zone_stat, per-cpu diffs, hstate counters, mm->rss_stat
  data,          // workload data (user memory)
  kCount
};
inline constexpr unsigned kNumLineKinds = static_cast<unsigned>(LineKind::kCount);
std::string_view line_kind_name(LineKind k);

struct Line {
  uint64_t addr = 0;  // byte address; the line is addr >> 6
  uint16_t node = 0;  // home node (where the memory lives)
  LineKind kind = LineKind::struct_page;

  uint64_t line() const { return addr >> 6; }
  // The i-th line of a walk from this one, `stride` bytes apart (same node and kind).
  Line at(uint64_t i, uint32_t stride) const { return {addr + i * stride, node, kind}; }
  friend bool operator==(const Line&, const Line&) = default;
};

enum class AccessKind : uint8_t { load, store, rmw, prefetch };
std::string_view access_kind_name(AccessKind k);

// Base addresses of the modelled kernel address space (x86-64 layout flavour).
inline constexpr uint64_t VMEMMAP_BASE = 0xffffea0000000000ull;
inline constexpr uint64_t ZONE_BASE = 0xffff888000000000ull;     // struct zone, 4 KiB apart
inline constexpr uint64_t PERCPU_BASE = 0xffff889000000000ull;   // per-cpu areas
inline constexpr uint64_t MM_BASE = 0xffff88a000000000ull;       // mm_structs, 1 KiB apart
inline constexpr uint64_t GLOBAL_BASE = 0xffffffff82000000ull;   // .data: vm_zone_stat, hstate
inline constexpr uint64_t DATA_BASE = 0x0000100000000000ull;     // user data

}  // namespace pagesim
