// Static call-site tags for accesses, locks and IRQ-off regions.
//
// A Site names the kernel function that touches a line or takes a lock, so that lock_stat
// contention points and cache-miss attribution read as kernel function names. Sites are small
// integers (not pointers) so that orderings and outputs are deterministic.
#pragma once

#include <cstdint>
#include <string_view>

namespace pagesim {

#define PAGESIM_SITES(X)                                                              \
  X(unknown, "unknown")                                                               \
  X(rmqueue, "rmqueue")                                                               \
  X(rmqueue_pcplist, "rmqueue_pcplist")                                               \
  X(__rmqueue_pcplist, "__rmqueue_pcplist")                                           \
  X(rmqueue_bulk, "rmqueue_bulk")                                                     \
  X(__rmqueue_smallest, "__rmqueue_smallest")                                         \
  X(expand, "expand")                                                                 \
  X(__rmqueue_fallback, "__rmqueue_fallback")                                         \
  X(move_freepages_block, "move_freepages_block")                                     \
  X(check_new_pages, "check_new_pages")                                               \
  X(check_pcp_refill, "check_pcp_refill")                                             \
  X(check_new_pcp, "check_new_pcp")                                                   \
  X(bad_page, "bad_page")                                                             \
  X(post_alloc_hook, "post_alloc_hook")                                               \
  X(prep_compound_page, "prep_compound_page")                                         \
  X(prep_new_page, "prep_new_page")                                                   \
  X(zone_watermark_fast, "zone_watermark_fast")                                       \
  X(get_page_from_freelist, "get_page_from_freelist")                                 \
  X(deferred_grow_zone, "_deferred_grow_zone")                                        \
  X(free_pages_prepare, "free_pages_prepare")                                         \
  X(free_unref_page, "free_unref_page")                                               \
  X(free_unref_page_commit, "free_unref_page_commit")                                 \
  X(free_pcppages_bulk, "free_pcppages_bulk")                                         \
  X(__free_one_page, "__free_one_page")                                               \
  X(free_one_page, "free_one_page")                                                   \
  X(__free_pages_ok, "__free_pages_ok")                                               \
  X(drain_pages_zone, "drain_pages_zone")                                             \
  X(mod_zone_page_state, "__mod_zone_page_state")                                     \
  X(zone_statistics, "zone_statistics")                                               \
  X(alloc_surplus_huge_page, "alloc_surplus_huge_page")                               \
  X(gather_surplus_pages, "gather_surplus_pages")                                     \
  X(dequeue_huge_page_node, "dequeue_huge_page_node")                                 \
  X(free_huge_page, "free_huge_page")                                                 \
  X(__update_and_free_page, "__update_and_free_page")                                 \
  X(return_unused_surplus_pages, "return_unused_surplus_pages")                       \
  X(clear_huge_page, "clear_huge_page")                                               \
  X(artificial_hold, "artificial_hold")                                               \
  X(workload, "workload")                                                             \
  X(free_frozen_page_commit, "free_frozen_page_commit")                               \
  X(decay_pcp_high, "decay_pcp_high")                                                 \
  X(do_user_addr_fault, "do_user_addr_fault")                                         \
  X(__pte_alloc, "__pte_alloc")                                                       \
  X(clear_page, "clear_page_erms")                                                    \
  X(copy_page, "copy_page")                                                           \
  X(filemap_fault, "filemap_fault")                                                   \
  X(zap_pte_range, "zap_pte_range")                                                   \
  X(flush_tlb_mm_range, "flush_tlb_mm_range")

enum class Site : uint16_t {
#define PAGESIM_SITE_ENUM(id, name) id,
  PAGESIM_SITES(PAGESIM_SITE_ENUM)
#undef PAGESIM_SITE_ENUM
  kCount
};

inline constexpr unsigned kNumSites = static_cast<unsigned>(Site::kCount);

// The kernel function name of a site, e.g. "rmqueue_bulk".
std::string_view site_name(Site s);

}  // namespace pagesim
