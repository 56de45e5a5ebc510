// Kernel variants: the policy knobs of the 2022 linux-mm thread, the kernel profiles (each a set
// of named behaviours) and the presets built from them.
//
// Presets (docs/model.md, "Variants"):
//   v5.17        check_new_pages() under zone->lock on the buddy path, head-only pcp checks,
//                leaked buddy-path blocks stay counted in NR_FREE_PAGES (the bug).
//   v5.17+eric   3313204c8ad5: the buddy-path check after the unlock; leak accounting fixed.
//   v5.17+mel    77fe7f136a73: pcp refill/allocation checks cover every subpage.
//   v5.18        both (alias v5.17+eric+mel); 5.18's other changes are separate knobs.
//   v6.18        the v6.18 profile (docs/model.md, "The v6.18 profile"): every behaviour of
//                KernelBehaviours, the checks after the lock on every subpage.
// The code tests a behaviour by its name (cfg.behaviour.pcp_spinlock), never the profile: the
// profile table in sim/mm/config.cc is the one place that says which profile has which.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace pagesim::mm {

enum class BuddyCheck : uint8_t { under_lock, after_unlock };
enum class PcpCheckScope : uint8_t { head, all_subpages };
enum class LeakAccounting : uint8_t { v5_17_bug, fixed };
// Ablations of Mel's subpage walk (docs/model.md, "Checks and bad pages").
enum class MelWalk : uint8_t { normal, zero_cost, outside_lock };
enum class FreeBulk : uint8_t { v5_17, v5_18 };
// Which kernel's page allocator runs: 5.17's, or 6.18's. A profile is the set of behaviours
// below (sim/mm/config.cc, the profile table) and the knobs it fixes.
enum class Profile : uint8_t { v5_17, v6_18 };

// The page allocator behaviours that changed after 5.17, each named for what it does and
// introduced by the kernel commits cited. Each is off in the v5.17 profile and on in v6.18.
struct KernelBehaviours {
  // 0d523026abd4 "mm/page_alloc: fix tracepoint mm_page_alloc_zone_locked()" (5.19): the event
  // fires in __rmqueue_smallest for the list searched, not in __rmqueue for every block.
  bool zone_locked_trace_in_rmqueue_smallest = false;
  // 4b23a68f9536 "mm/page_alloc: protect PCP lists with a spinlock" (6.0): a failed pcp path
  // falls back to rmqueue_buddy; 01b44456a7aa "mm/page_alloc: replace local_lock with normal
  // spinlock": IRQs stay on under the pcp lock, so rmqueue_bulk takes zone->lock irqsave.
  bool pcp_spinlock = false;
  // 5d0a661d808f "mm/page_alloc: use only one PCP list for THP-sized allocations" (6.0) and
  // bf14ed81f571 "mm/page_alloc: Separate THP PCP into movable and non-movable categories":
  // THP blocks on list 12 (unmovable, reclaimable) or 13 (movable).
  bool thp_pcp_lists_by_movability = false;
  // 15cd90049d59 "mm/page_alloc: fix incorrect PGFREE and PGALLOC for high-order page": the pcp
  // paths count PGALLOC and PGFREE in pages, not in blocks.
  bool pcp_events_count_pages = false;
  // 700d2e9a36b9 "mm, page_alloc: reduce page alloc/free sanity checks" (6.4) and 8666925c4986
  // "mm, page_alloc: use check_pages_enabled static key to check tail pages": no refill or
  // bulk-free check; allocation and free checks, tails included, only with check_pages_enabled.
  bool checks_only_when_enabled = false;
  // f945116e4e19 "mm: page_alloc: remove stale CMA guard code" (6.7): MOVABLE requests use the
  // pcp whether or not ALLOC_CMA is set.
  bool pcp_movable_ignores_alloc_cma = false;
  // 90b41691b988 "mm: add framework for PCP high auto-tuning" and 51a755c56dc0 "mm: tune PCP
  // high automatically" (6.7): pcp->high between high_min and high_max, raised by refills and
  // frees, lowered by decay_pcp_high; with the rest of that series: c0a242394cb9 (refills scaled
  // by alloc_factor, nr_pcp_alloc), 52166607ecc9 (CONFIG_PCP_BATCH_SCALE_MAX), 57c0419c5f0e
  // (ZONE_BELOW_HIGH), 6ccdcb6d3a74 (free_count) and 362d37a106dd (free_high).
  bool pcp_high_autotune = false;
  // 55f77df7d715 "mm: page_alloc: control latency caused by zone PCP draining" (6.10):
  // drain_pages_zone frees in chunks of batch << CONFIG_PCP_BATCH_SCALE_MAX.
  bool pcp_drain_in_chunks = false;
  // 55612e80e722 "mm: page_alloc: close migratetype race between freeing and stealing" (6.10):
  // free_pcppages_bulk frees a block to its pageblock's current type, not the type noted when it
  // entered the pcp.
  bool free_to_pageblock_type = false;

  bool operator==(const KernelBehaviours&) const = default;
};

// zone_batchsize's cap on pcp->batch: 1 MiB of pages (batch 63, d8a759b57035 "mm, page_alloc:
// double zone's batchsize", 4.19) or 512 KiB (batch 31, before it).
enum class BatchCap : uint8_t { mib1, kib512 };

struct KernelConfig {
  std::string preset = "v5.17";
  Profile profile{};            // v5.17, whose behaviours are the defaults
  KernelBehaviours behaviour;   // set with the profile (set_knob "profile")
  BuddyCheck buddy_check = BuddyCheck::under_lock;
  PcpCheckScope pcp_check_scope = PcpCheckScope::head;
  LeakAccounting leak_accounting = LeakAccounting::v5_17_bug;
  bool debug_vm = false;                   // CONFIG_DEBUG_VM
  bool debug_pagealloc = false;            // CONFIG_DEBUG_PAGEALLOC + debug_pagealloc=on
  bool refill_check_after_unlock = false;  // 6.4: check_pcp_refill after zone unlock
  bool high_order_pcp = true;              // 44042b449872 (5.13): orders 1-3 (and 9) on pcp
  bool thp = true;                         // CONFIG_TRANSPARENT_HUGEPAGE: order 9 on pcp
  MelWalk mel_walk = MelWalk::normal;
  bool artificial_hold = false;            // head-only plus a hold as long as Mel's walk
  FreeBulk free_pcppages_bulk = FreeBulk::v5_17;
  BatchCap zone_batchsize = BatchCap::mib1;
  bool deferred_struct_page_init = true;   // CONFIG_DEFERRED_STRUCT_PAGE_INIT
  bool memmap_reserved = true;             // each node's memmap is memblock-reserved: not managed
  uint32_t percpu_pagelist_high_fraction = 0;
  uint32_t watermark_scale_factor = 10;
  uint32_t watermark_boost_factor = 15000;
  std::optional<uint64_t> min_free_kbytes;  // unset: calculate_min_free_kbytes + khugepaged
  bool khugepaged = true;                   // THP "always"/"madvise": recommended min_free_kbytes
  uint32_t bad_page_ratelimit_burst = 60;   // bad_page(): 60 reports per 60 s
  // Read only with behaviour.pcp_high_autotune.
  uint32_t pcp_batch_scale_max = 5;         // CONFIG_PCP_BATCH_SCALE_MAX (mm/Kconfig default)
  bool pcp_free_high_batch = true;          // PCPF_FREE_HIGH_BATCH: LLC slice > 3 * batch pages

  bool operator==(const KernelConfig&) const = default;
};

// The knobs that tell the 2022 thread's presets apart. The allocator notes each one where its
// value changes what it does (Machine::note_variant_read): a run that never noted a knob would
// have done exactly the same with the knob's other value.
enum class VariantKnob : uint8_t { buddy_check, pcp_check_scope, leak_accounting };
inline constexpr unsigned kNumVariantKnobs = 3;
using VariantKnobs = uint8_t;  // a set: bit k is VariantKnob k
inline constexpr VariantKnobs kAllVariantKnobs = (1u << kNumVariantKnobs) - 1;
inline constexpr VariantKnobs variant_bit(VariantKnob k) { return static_cast<VariantKnobs>(1u << static_cast<unsigned>(k)); }
std::vector<std::string_view> variant_knob_names(VariantKnobs knobs);
// The set of the named knobs, or nullopt when a name is not a variant knob's.
std::optional<VariantKnobs> variant_knobs_named(const std::vector<std::string>& names);
// The knobs in which a and b differ, or nullopt when they differ in anything else (the preset's
// name aside).
std::optional<VariantKnobs> variant_difference(const KernelConfig& a, const KernelConfig& b);

// The named presets, in display order.
const std::vector<std::string>& preset_names();
// Returns the preset's config, or nullopt for an unknown name. "v5.17+eric+mel" is an alias.
std::optional<KernelConfig> preset_config(std::string_view name);

struct KnobInfo {
  std::string_view name;
  std::string_view values;       // accepted values, e.g. "under_lock|after_unlock"
  std::string_view description;
  // The profile whose code never reads the knob ("v5.17" or "v6.18"), "" when both read it:
  // setting it there changes nothing, and `pagesim run` warns (ignored-knob).
  std::string_view ignored_by = {};
};
// One row per knob, in display order (sim/mm/config.cc: each row names the KernelConfig
// member that set_knob and get_knob write and read).
const std::vector<KnobInfo>& knob_infos();
// Sets one knob from text. Returns an error message, or empty on success. Setting "profile"
// also sets the behaviours and the knobs that profile fixes.
std::string set_knob(KernelConfig& cfg, std::string_view name, std::string_view value);
// Reads one knob as text (for the resolved scenario and reports).
std::string get_knob(const KernelConfig& cfg, std::string_view name);

// A knob that a kernel profile fixes: the kernel has only that version of it.
struct FixedKnob {
  std::string_view profile;  // "v6.18"
  std::string_view knob;     // "free_pcppages_bulk"
  std::string_view value;    // "v5.18"
};
const std::vector<FixedKnob>& fixed_knobs();
// Setting knob `name` to `value` under cfg's profile: an error message ("its kernel profile
// v6.18 fixes free_pcppages_bulk to v5.18") when the profile fixes the knob to another value,
// else empty.
std::string check_fixed_knob(const KernelConfig& cfg, std::string_view name, std::string_view value);

}  // namespace pagesim::mm
