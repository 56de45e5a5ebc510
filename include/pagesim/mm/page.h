// struct page: 64 bytes, one cache line, laid out as x86-64 v5.17 with MEMCG.
//
// Locking (as in the kernel):
//  - A free block's head (PageBuddy, `private_` = order, `lru` on free_area) is owned by
//    zone->lock.
//  - A block on a pcp list is owned by that CPU with IRQs off (pagesets.lock in 5.17).
//  - An allocated block is owned by whoever holds the reference.
//  - `flags`, `private_`, `page_type`, `mapping`, `_refcount` and `compound_head` are read
//    by other CPUs without the owner's lock (page_is_buddy, move_freepages_block), so every
//    access goes through READ_ONCE/WRITE_ONCE (mm/once.h).
#pragma once

#include <boost/intrusive/list.hpp>
#include <cstdint>
#include <new>

#include "pagesim/mm/once.h"
#include "pagesim/mm/types.h"

namespace pagesim::mm {

// enum pageflags (include/linux/page-flags.h), x86-64 with ARCH_USES_PG_UNCACHED and PAGE_IDLE.
enum pageflags : unsigned {
  PG_locked, PG_referenced, PG_uptodate, PG_dirty, PG_lru, PG_active, PG_workingset, PG_waiters,
  PG_error, PG_slab, PG_owner_priv_1, PG_arch_1, PG_reserved, PG_private, PG_private_2,
  PG_writeback, PG_head, PG_mappedtodisk, PG_reclaim, PG_swapbacked, PG_unevictable, PG_mlocked,
  PG_uncached, PG_hwpoison, PG_young, PG_idle,
  NR_PAGEFLAGS,
  PG_reported = PG_uptodate,          // free page reporting, on buddy pages
  PG_double_map = PG_workingset,      // on H+1 of a THP
  PG_has_hwpoisoned = PG_mappedtodisk // on H+1
};

inline constexpr uint64_t bit(unsigned b) { return uint64_t{1} << b; }
inline constexpr uint64_t PAGEFLAGS_MASK = bit(NR_PAGEFLAGS) - 1;
inline constexpr uint64_t PAGE_FLAGS_CHECK_AT_PREP = PAGEFLAGS_MASK & ~bit(PG_hwpoison);
inline constexpr uint64_t PAGE_FLAGS_CHECK_AT_FREE =
    bit(PG_lru) | bit(PG_locked) | bit(PG_private) | bit(PG_private_2) | bit(PG_writeback) |
    bit(PG_reserved) | bit(PG_slab) | bit(PG_active) | bit(PG_unevictable) | bit(PG_mlocked);

// Section/node/zone ids live in the top bits of flags (page_to_nid, page_zonenum).
inline constexpr unsigned NODES_PGSHIFT = 54;  // CONFIG_NODES_SHIFT = 10
inline constexpr unsigned ZONES_PGSHIFT = 52;  // ZONES_WIDTH = 2
inline constexpr uint64_t ZONES_MASK = 3;
inline constexpr uint64_t NODES_MASK = (uint64_t{1} << 10) - 1;

// page_type (the _mapcount word): PageBuddy is "top nibble 0xf and PG_buddy bit clear".
inline constexpr uint32_t PAGE_TYPE_BASE = 0xf0000000u;
inline constexpr uint32_t PG_buddy = 0x00000080u;
inline constexpr uint32_t PG_offline = 0x00000100u;
inline constexpr uint32_t PG_table = 0x00000200u;
inline constexpr uint32_t PG_guard = 0x00000400u;

inline constexpr uintptr_t TAIL_MAPPING = 0x400;  // POISON_POINTER_DELTA + 0x400
inline constexpr uintptr_t PAGE_MAPPING_ANON = 0x1;
inline constexpr uintptr_t PAGE_MAPPING_MOVABLE = 0x2;
inline constexpr uint8_t NULL_COMPOUND_DTOR = 0;
inline constexpr uint8_t COMPOUND_PAGE_DTOR = 1;
inline constexpr uint8_t HUGETLB_PAGE_DTOR = 2;
inline constexpr uint8_t TRANSHUGE_PAGE_DTOR = 3;

using LruHook =
    boost::intrusive::list_member_hook<boost::intrusive::link_mode<boost::intrusive::normal_link>>;

struct Page {
  uint64_t flags;  // page-flag bits low, node/zone ids high
  union {          // offset 8
    LruHook lru;   // buddy free list, pcp list or private list link
    struct {       // the tail-page view of the same 16 bytes
      uintptr_t compound_head;     // head | 1 on every tail
      union {
        struct {
          uint8_t compound_dtor;       // H+1
          uint8_t compound_order;      // H+1
          uint16_t pad0;
          int32_t compound_mapcount;   // H+1
        };
        int32_t hpage_pinned_refcount;  // H+2
      };
    } tail;
  };
  union {            // offset 24
    uintptr_t mapping;
    uint32_t compound_nr;  // H+1: overwrites the low half of mapping
  };
  uint64_t index;    // free pages: cached migratetype (set_pcppage_migratetype)
  uint64_t private_; // buddy order while PageBuddy
  union {            // offset 48
    int32_t _mapcount;
    uint32_t page_type;
  };
  int32_t _refcount;
  uint64_t memcg_data;

  Page() { new (&lru) LruHook(); }
  ~Page() {}
  Page(const Page&) = delete;
  Page& operator=(const Page&) = delete;
};
static_assert(sizeof(Page) == 64, "struct page is one 64-byte cache line");
static_assert(offsetof(Page, mapping) == 24 && offsetof(Page, index) == 32 &&
              offsetof(Page, private_) == 40 && offsetof(Page, _mapcount) == 48 &&
              offsetof(Page, _refcount) == 52 && offsetof(Page, memcg_data) == 56);

using PageList = boost::intrusive::list<Page, boost::intrusive::member_hook<Page, LruHook, &Page::lru>,
                                        boost::intrusive::constant_time_size<false>>;

// INIT_LIST_HEAD(&page->lru): self-linked, so a later list_del of a page that
// was never queued (hugetlb's raced surplus page) is a no-op, not a NULL write.
inline void INIT_LIST_HEAD(Page* p) {
  PageList::node_algorithms::init_header(PageList::value_traits::to_node_ptr(*p));
}

// --- flag helpers (include/linux/page-flags.h) ---
inline uint64_t page_flags(const Page* p) { return READ_ONCE(p->flags); }
inline bool test_page_flag(const Page* p, unsigned b) { return page_flags(p) & bit(b); }
// __SetPageX / __ClearPageX: non-atomic RMW by the owner.
inline void __set_page_flag(Page* p, unsigned b) { WRITE_ONCE(p->flags, page_flags(p) | bit(b)); }
inline void __clear_page_flag(Page* p, unsigned b) { WRITE_ONCE(p->flags, page_flags(p) & ~bit(b)); }
inline void clear_page_flags(Page* p, uint64_t mask) { WRITE_ONCE(p->flags, page_flags(p) & ~mask); }

inline bool PageHead(const Page* p) { return test_page_flag(p, PG_head); }
inline bool PageTail(const Page* p) { return READ_ONCE(p->tail.compound_head) & 1; }
inline bool PageHWPoison(const Page* p) { return test_page_flag(p, PG_hwpoison); }
inline unsigned page_zonenum(const Page* p) { return (page_flags(p) >> ZONES_PGSHIFT) & ZONES_MASK; }
inline unsigned page_to_nid(const Page* p) { return (page_flags(p) >> NODES_PGSHIFT) & NODES_MASK; }

// --- page types ---
inline uint32_t page_type(const Page* p) { return READ_ONCE(p->page_type); }
inline bool page_has_type(const Page* p, uint32_t t) {
  return (page_type(p) & (PAGE_TYPE_BASE | t)) == PAGE_TYPE_BASE;
}
inline bool PageBuddy(const Page* p) { return page_has_type(p, PG_buddy); }
inline bool PageGuard(const Page* p) { return page_has_type(p, PG_guard); }
inline void __SetPageBuddy(Page* p) { WRITE_ONCE(p->page_type, page_type(p) & ~PG_buddy); }
inline void __ClearPageBuddy(Page* p) { WRITE_ONCE(p->page_type, page_type(p) | PG_buddy); }
inline void page_mapcount_reset(Page* p) { WRITE_ONCE(p->_mapcount, -1); }

inline uint64_t buddy_order(const Page* p) { return READ_ONCE(p->private_); }
inline void set_page_private(Page* p, uint64_t v) { WRITE_ONCE(p->private_, v); }
inline int page_ref_count(const Page* p) { return READ_ONCE(p->_refcount); }
inline void set_page_count(Page* p, int v) { WRITE_ONCE(p->_refcount, v); }
inline uintptr_t page_mapping(const Page* p) { return READ_ONCE(p->mapping); }
inline void set_page_mapping(Page* p, uintptr_t v) { WRITE_ONCE(p->mapping, v); }

// get/set_pcppage_migratetype: the cached migratetype in page->index.
inline unsigned get_pcppage_migratetype(const Page* p) { return static_cast<unsigned>(p->index); }
inline void set_pcppage_migratetype(Page* p, unsigned mt) { p->index = mt; }
// The free-list migratetype of a free buddy block. The model records it in `index` when it
// links the block (the kernel leaves `index` stale there); same line, so no access changes.
inline unsigned free_list_mt(const Page* p) { return static_cast<unsigned>(p->index); }

// __init_single_page, field by field (no mm_zero_struct_page first): node and zone ids in the
// flags, _mapcount -1, refcount 0 (as __free_pages_core leaves it), the rest cleared.
inline void init_single_page(Page* p, unsigned nid, unsigned zone) {
  p->flags = (uint64_t{nid} << NODES_PGSHIFT) | (uint64_t{zone} << ZONES_PGSHIFT);
  p->tail.compound_head = 0;
  p->mapping = 0;
  p->index = 0;
  p->private_ = 0;
  p->_mapcount = -1;
  p->_refcount = 0;
  p->memcg_data = 0;
}

}  // namespace pagesim::mm
