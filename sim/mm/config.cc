// Presets and the knob table.
#include "pagesim/mm/config.h"

#include <charconv>
#include <fmt/format.h>

namespace pagesim::mm {

const std::vector<std::string>& preset_names() {
  static const std::vector<std::string> kNames = {"v5.17", "v5.17+eric", "v5.17+mel", "v5.18", "v6.18"};
  return kNames;
}

std::optional<KernelConfig> preset_config(std::string_view name) {
  KernelConfig c;
  c.preset = std::string(name);
  const bool eric = name == "v5.17+eric" || name == "v5.18" || name == "v5.17+eric+mel";
  const bool mel = name == "v5.17+mel" || name == "v5.18" || name == "v5.17+eric+mel";
  if (name == "v6.18") {
    // 6.x: check_new_pages() after zone->lock on both paths, every subpage, and only when
    // check_pages_enabled (debug_vm / debug_pagealloc here); the leak is subtracted.
    c.profile = Profile::v6_18;
    c.buddy_check = BuddyCheck::after_unlock;
    c.leak_accounting = LeakAccounting::fixed;
    c.pcp_check_scope = PcpCheckScope::all_subpages;
    c.refill_check_after_unlock = true;
    c.free_pcppages_bulk = FreeBulk::v5_18;
    return c;
  }
  if (!eric && !mel && name != "v5.17") return std::nullopt;
  if (name == "v5.17+eric+mel") c.preset = "v5.18";
  if (eric) {
    c.buddy_check = BuddyCheck::after_unlock;
    c.leak_accounting = LeakAccounting::fixed;
  }
  if (mel) c.pcp_check_scope = PcpCheckScope::all_subpages;
  return c;
}

namespace {

template <class T>
struct EnumName {
  T value;
  std::string_view name;
};

constexpr EnumName<BuddyCheck> kBuddyCheck[] = {{BuddyCheck::under_lock, "under_lock"},
                                                {BuddyCheck::after_unlock, "after_unlock"}};
constexpr EnumName<PcpCheckScope> kPcpScope[] = {{PcpCheckScope::head, "head"},
                                                 {PcpCheckScope::all_subpages, "all_subpages"}};
constexpr EnumName<LeakAccounting> kLeak[] = {{LeakAccounting::v5_17_bug, "v5.17"}, {LeakAccounting::fixed, "fixed"}};
constexpr EnumName<MelWalk> kMelWalk[] = {{MelWalk::normal, "normal"},
                                          {MelWalk::zero_cost, "zero_cost"},
                                          {MelWalk::outside_lock, "outside_lock"}};
constexpr EnumName<FreeBulk> kFreeBulk[] = {{FreeBulk::v5_17, "v5.17"}, {FreeBulk::v5_18, "v5.18"}};
constexpr EnumName<BatchCap> kBatchCap[] = {{BatchCap::mib1, "1M"}, {BatchCap::kib512, "512K"}};
constexpr EnumName<Profile> kProfile[] = {{Profile::v5_17, "v5.17"}, {Profile::v6_18, "v6.18"}};

template <class T, size_t N>
std::string set_enum(T& field, const EnumName<T> (&table)[N], std::string_view value, std::string_view knob) {
  std::string allowed;
  for (const auto& e : table) {
    if (e.name == value) {
      field = e.value;
      return {};
    }
    allowed += allowed.empty() ? "" : "|";
    allowed += e.name;
  }
  return fmt::format("knob {}: '{}' is not one of {}", knob, value, allowed);
}

template <class T, size_t N>
std::string enum_name(T v, const EnumName<T> (&table)[N]) {
  for (const auto& e : table)
    if (e.value == v) return std::string(e.name);
  return "?";
}

std::string set_bool(bool& field, std::string_view value, std::string_view knob) {
  if (value == "true" || value == "on" || value == "1") field = true;
  else if (value == "false" || value == "off" || value == "0") field = false;
  else return fmt::format("knob {}: '{}' is not a boolean (true|false)", knob, value);
  return {};
}

std::string set_u32(uint32_t& field, std::string_view value, std::string_view knob, uint32_t lo, uint32_t hi) {
  uint64_t v = 0;
  auto [p, ec] = std::from_chars(value.data(), value.data() + value.size(), v, 10);
  if (ec != std::errc() || p != value.data() + value.size() || v < lo || v > hi)
    return fmt::format("knob {}: '{}' is not a decimal integer in [{}, {}]", knob, value, lo, hi);
  field = static_cast<uint32_t>(v);
  return {};
}

}  // namespace

const std::vector<KnobInfo>& knob_infos() {
  static const std::vector<KnobInfo> kKnobs = {
      {"profile", "v5.17|v6.18", "the pcp code that runs: 5.17's, or 6.18's (high auto-tuning, batch scaling, free_high, pcp spinlock)"},
      {"buddy_check", "under_lock|after_unlock", "check_new_pages() on the buddy path: under zone->lock (5.17) or after it (Eric, 3313204c8ad5)"},
      {"pcp_check_scope", "head|all_subpages", "check_pcp_refill/check_new_pcp: head page only (5.17) or every subpage (Mel, 77fe7f136a73)"},
      {"leak_accounting", "v5.17|fixed", "a bad block leaked on the buddy path stays in NR_FREE_PAGES (v5.17) or is subtracted (fixed)"},
      {"debug_vm", "true|false", "CONFIG_DEBUG_VM: moves the pcp check from refill to allocation"},
      {"debug_pagealloc", "true|false", "debug_pagealloc=on: checks at both refill and allocation"},
      {"refill_check_after_unlock", "true|false", "6.4 placement: check_pcp_refill after zone->lock is dropped"},
      {"high_order_pcp", "true|false", "pcp lists for orders 1-3 and 9 (5.13+); off means order 0 only"},
      {"thp", "true|false", "CONFIG_TRANSPARENT_HUGEPAGE: order-9 blocks use pcp list 12-14"},
      {"mel_walk", "normal|zero_cost|outside_lock", "ablation of the all-subpage walk: as is, free, or after the zone unlock"},
      {"artificial_hold", "true|false", "ablation: head-only check plus a hold as long as the subpage walk"},
      {"free_pcppages_bulk", "v5.17|v5.18", "free_pcppages_bulk: two-phase with prefetch (5.17) or one pass plus free_high (5.18)", "v6.18"},
      {"zone_batchsize", "1M|512K", "zone_batchsize's cap: 1 MiB of pages, batch 63 (d8a759b57035, 4.19), or 512 KiB, batch 31 (before it)"},
      {"deferred_struct_page_init", "true|false", "initialise struct pages per 128 MiB section on first use"},
      {"memmap_reserved", "true|false", "each node's memmap (64 B per page) is reserved at its top, outside managed pages"},
      {"percpu_pagelist_high_fraction", "0 or 8..", "vm.percpu_pagelist_high_fraction (0: pcp high from the low watermark)"},
      {"watermark_scale_factor", "1..3000", "vm.watermark_scale_factor"},
      {"watermark_boost_factor", "0..", "vm.watermark_boost_factor"},
      {"min_free_kbytes", "auto or 128..", "vm.min_free_kbytes; auto derives it as the kernel does (plus khugepaged)"},
      {"khugepaged", "true|false", "khugepaged enabled: raises min_free_kbytes to its recommendation"},
      {"pcp_batch_scale_max", "0..6", "v6.18: CONFIG_PCP_BATCH_SCALE_MAX, the batch scaling limit of refills and drains", "v5.17"},
      {"pcp_free_high_batch", "true|false", "v6.18: PCPF_FREE_HIGH_BATCH (LLC slice > 3 batches): free_high keeps a batch on the pcp", "v5.17"},
  };
  return kKnobs;
}

std::string set_knob(KernelConfig& c, std::string_view name, std::string_view v) {
  if (name == "profile") return set_enum(c.profile, kProfile, v, name);
  if (name == "buddy_check") return set_enum(c.buddy_check, kBuddyCheck, v, name);
  if (name == "pcp_check_scope") return set_enum(c.pcp_check_scope, kPcpScope, v, name);
  if (name == "leak_accounting") return set_enum(c.leak_accounting, kLeak, v, name);
  if (name == "debug_vm") return set_bool(c.debug_vm, v, name);
  if (name == "debug_pagealloc") return set_bool(c.debug_pagealloc, v, name);
  if (name == "refill_check_after_unlock") return set_bool(c.refill_check_after_unlock, v, name);
  if (name == "high_order_pcp") return set_bool(c.high_order_pcp, v, name);
  if (name == "thp") return set_bool(c.thp, v, name);
  if (name == "mel_walk") return set_enum(c.mel_walk, kMelWalk, v, name);
  if (name == "artificial_hold") return set_bool(c.artificial_hold, v, name);
  if (name == "free_pcppages_bulk") return set_enum(c.free_pcppages_bulk, kFreeBulk, v, name);
  if (name == "zone_batchsize") return set_enum(c.zone_batchsize, kBatchCap, v, name);
  if (name == "deferred_struct_page_init") return set_bool(c.deferred_struct_page_init, v, name);
  if (name == "memmap_reserved") return set_bool(c.memmap_reserved, v, name);
  if (name == "percpu_pagelist_high_fraction") {
    std::string err = set_u32(c.percpu_pagelist_high_fraction, v, name, 0, 1u << 30);
    if (err.empty() && c.percpu_pagelist_high_fraction > 0 && c.percpu_pagelist_high_fraction < 8)
      err = fmt::format("knob {}: {} is rejected by the kernel (EINVAL): 0 or at least 8", name, v);
    return err;
  }
  if (name == "watermark_scale_factor") return set_u32(c.watermark_scale_factor, v, name, 1, 3000);
  if (name == "watermark_boost_factor") return set_u32(c.watermark_boost_factor, v, name, 0, 1u << 30);
  if (name == "min_free_kbytes") {
    if (v == "auto") {
      c.min_free_kbytes.reset();
      return {};
    }
    uint32_t k = 0;
    std::string err = set_u32(k, v, name, 128, 1u << 30);
    if (err.empty()) c.min_free_kbytes = k;
    return err;
  }
  if (name == "khugepaged") return set_bool(c.khugepaged, v, name);
  if (name == "pcp_batch_scale_max") return set_u32(c.pcp_batch_scale_max, v, name, 0, 6);
  if (name == "pcp_free_high_batch") return set_bool(c.pcp_free_high_batch, v, name);
  return fmt::format("unknown knob '{}'", name);
}

std::string get_knob(const KernelConfig& c, std::string_view name) {
  auto b = [](bool x) { return std::string(x ? "true" : "false"); };
  if (name == "profile") return enum_name(c.profile, kProfile);
  if (name == "buddy_check") return enum_name(c.buddy_check, kBuddyCheck);
  if (name == "pcp_check_scope") return enum_name(c.pcp_check_scope, kPcpScope);
  if (name == "leak_accounting") return enum_name(c.leak_accounting, kLeak);
  if (name == "debug_vm") return b(c.debug_vm);
  if (name == "debug_pagealloc") return b(c.debug_pagealloc);
  if (name == "refill_check_after_unlock") return b(c.refill_check_after_unlock);
  if (name == "high_order_pcp") return b(c.high_order_pcp);
  if (name == "thp") return b(c.thp);
  if (name == "mel_walk") return enum_name(c.mel_walk, kMelWalk);
  if (name == "artificial_hold") return b(c.artificial_hold);
  if (name == "free_pcppages_bulk") return enum_name(c.free_pcppages_bulk, kFreeBulk);
  if (name == "zone_batchsize") return enum_name(c.zone_batchsize, kBatchCap);
  if (name == "deferred_struct_page_init") return b(c.deferred_struct_page_init);
  if (name == "memmap_reserved") return b(c.memmap_reserved);
  if (name == "percpu_pagelist_high_fraction") return std::to_string(c.percpu_pagelist_high_fraction);
  if (name == "watermark_scale_factor") return std::to_string(c.watermark_scale_factor);
  if (name == "watermark_boost_factor") return std::to_string(c.watermark_boost_factor);
  if (name == "min_free_kbytes") return c.min_free_kbytes ? std::to_string(*c.min_free_kbytes) : "auto";
  if (name == "khugepaged") return b(c.khugepaged);
  if (name == "pcp_batch_scale_max") return std::to_string(c.pcp_batch_scale_max);
  if (name == "pcp_free_high_batch") return b(c.pcp_free_high_batch);
  return {};
}

}  // namespace pagesim::mm
