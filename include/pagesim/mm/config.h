// Kernel variants: the policy knobs of the 2022 linux-mm thread and the presets built from them.
//
// Presets (docs/model.md, "Variants"):
//   v5.17        check_new_pages() under zone->lock on the buddy path, head-only pcp checks,
//                leaked buddy-path blocks stay counted in NR_FREE_PAGES (the bug).
//   v5.17+eric   3313204c8ad5: the buddy-path check after the unlock; leak accounting fixed.
//   v5.17+mel    77fe7f136a73: pcp refill/allocation checks cover every subpage.
//   v5.18        both (alias v5.17+eric+mel); 5.18's other changes are separate knobs.
//   v6.18        the 6.x pcp profile (docs/model.md, "The v6.18 profile"): pcp->high tuned
//                between high_min and high_max, batch scaling, free_high, the pcp spinlock,
//                checks after the lock and only with check_pages_enabled.
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
// Which kernel's pcp code runs: 5.17's, or 6.18's (the 6.7 auto-tuning series and later).
enum class Profile : uint8_t { v5_17, v6_18 };

// zone_batchsize's cap on pcp->batch: 1 MiB of pages (batch 63, d8a759b57035 "mm, page_alloc:
// double zone's batchsize", 4.19) or 512 KiB (batch 31, before it).
enum class BatchCap : uint8_t { mib1, kib512 };

struct KernelConfig {
  std::string preset = "v5.17";
  Profile profile = Profile::v5_17;
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
  // v6.18 profile only.
  uint32_t pcp_batch_scale_max = 5;         // CONFIG_PCP_BATCH_SCALE_MAX (mm/Kconfig default)
  bool pcp_free_high_batch = true;          // PCPF_FREE_HIGH_BATCH: LLC slice > 3 * batch pages
};

// The named presets, in display order.
const std::vector<std::string>& preset_names();
// Returns the preset's config, or nullopt for an unknown name. "v5.17+eric+mel" is an alias.
std::optional<KernelConfig> preset_config(std::string_view name);

struct KnobInfo {
  std::string_view name;
  std::string_view values;       // accepted values, e.g. "under_lock|after_unlock"
  std::string_view description;
  // The profile whose pcp code never reads the knob ("v5.17" or "v6.18"), "" when both read it:
  // setting it there changes nothing, and `pagesim run` warns (ignored-knob).
  std::string_view ignored_by = {};
};
const std::vector<KnobInfo>& knob_infos();
// Sets one knob from text. Returns an error message, or empty on success.
std::string set_knob(KernelConfig& cfg, std::string_view name, std::string_view value);
// Reads one knob as text (for the resolved scenario and reports).
std::string get_knob(const KernelConfig& cfg, std::string_view name);

}  // namespace pagesim::mm
