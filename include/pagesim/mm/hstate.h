// struct hstate for 2 MiB pages: the hugetlb pool's state. Every field is protected by
// hugetlb_lock, as in the kernel. The operations are in mm/hugetlb.h.
#pragma once

#include <cstdint>

#include "pagesim/exec/exec.h"
#include "pagesim/mm/page.h"

namespace pagesim::mm {

inline constexpr unsigned HUGETLB_PAGE_ORDER = pageblock_order;  // 2 MiB on x86-64
inline constexpr uint64_t pages_per_huge_page = uint64_t{1} << HUGETLB_PAGE_ORDER;

// Hugetlb page flags live in H->private (hugetlb_page_flags).
enum hugetlb_page_flags : uint64_t {
  HPG_restore_reserve = 1u << 0,
  HPG_migratable = 1u << 1,
  HPG_temporary = 1u << 2,
  HPG_freed = 1u << 3,
};

struct Hstate {  // struct hstate for the 2 MiB size
  spinlock_t hugetlb_lock;
  unsigned long nr_huge_pages = 0, free_huge_pages = 0, resv_huge_pages = 0, surplus_huge_pages = 0;
  unsigned long nr_overcommit_huge_pages = 0;
  unsigned long nr_huge_pages_node[MAX_NUMNODES] = {};
  unsigned long free_huge_pages_node[MAX_NUMNODES] = {};
  unsigned long surplus_huge_pages_node[MAX_NUMNODES] = {};
  PageList hugepage_freelists[MAX_NUMNODES];
  PageList hugepage_activelist;
  unsigned next_nid_to_free = 0;
  Hstate();
};

// Cache lines of struct hstate and hugetlb_lock (in .data, node 0).
Line hstate_counter_line(unsigned nid = MAX_NUMNODES);  // the global counters, or a node's
Line hstate_freelist_line(unsigned nid);

}  // namespace pagesim::mm
