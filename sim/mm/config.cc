// The profile table, the presets and the knob table.
#include "pagesim/mm/config.h"

#include <algorithm>
#include <charconv>
#include <fmt/format.h>

#include <functional>
#include <stdexcept>

namespace pagesim::mm {

namespace {

template <class T>
struct EnumName {
  T value;
  std::string_view name;
};

// The kernel profiles: the one place that says which behaviours each kernel has
// (include/pagesim/mm/config.h cites the commits), and the knobs it fixes.
struct ProfileRow {
  Profile value;
  std::string_view name;
  KernelBehaviours behaviour;
};
constexpr KernelBehaviours kBehaviours6x{
    .zone_locked_trace_in_rmqueue_smallest = true,
    .pcp_spinlock = true,
    .thp_pcp_lists_by_movability = true,
    .pcp_events_count_pages = true,
    .checks_only_when_enabled = true,
    .pcp_movable_ignores_alloc_cma = true,
    .pcp_high_autotune = true,
    .pcp_drain_in_chunks = true,
    .free_to_pageblock_type = true,
};
constexpr ProfileRow kProfiles[] = {{Profile::v5_17, "v5.17", {}}, {Profile::v6_18, "v6.18", kBehaviours6x}};

const ProfileRow& profile_row(Profile p) {
  for (const ProfileRow& r : kProfiles)
    if (r.value == p) return r;
  throw std::logic_error("a profile without a row in the profile table");
}

// A preset: its profile and the knobs it sets, as a scenario would write them.
struct Preset {
  std::string_view name;
  std::vector<std::pair<std::string_view, std::string_view>> knobs;  // "profile" first, if set
};
const std::vector<Preset>& presets() {
  static const std::vector<Preset> kPresets = {
      {"v5.17", {}},
      {"v5.17+eric", {{"buddy_check", "after_unlock"}, {"leak_accounting", "fixed"}}},
      {"v5.17+mel", {{"pcp_check_scope", "all_subpages"}}},
      {"v5.18", {{"buddy_check", "after_unlock"}, {"leak_accounting", "fixed"}, {"pcp_check_scope", "all_subpages"}}},
      // 6.x: check_new_pages() after zone->lock on both paths and every subpage (when checks
      // are enabled at all); the leak is subtracted.
      {"v6.18",
       {{"profile", "v6.18"},
        {"buddy_check", "after_unlock"},
        {"leak_accounting", "fixed"},
        {"pcp_check_scope", "all_subpages"},
        {"refill_check_after_unlock", "true"}}},
  };
  return kPresets;
}
constexpr std::string_view kAlias = "v5.17+eric+mel", kAliasOf = "v5.18";

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

template <class Table>
std::string alternatives(const Table& table) {
  std::string out;
  for (const auto& e : table) out += (out.empty() ? "" : "|") + std::string(e.name);
  return out;
}

template <class T, size_t N>
std::string set_enum(T& field, const EnumName<T> (&table)[N], std::string_view value, std::string_view knob) {
  for (const auto& e : table)
    if (e.name == value) {
      field = e.value;
      return {};
    }
  return fmt::format("knob {}: '{}' is not one of {}", knob, value, alternatives(table));
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

// The profile knob: its behaviours, and the values of the knobs it fixes.
std::string set_profile(KernelConfig& c, std::string_view value) {
  for (const ProfileRow& r : kProfiles)
    if (r.name == value) {
      c.profile = r.value;
      c.behaviour = r.behaviour;
      for (const FixedKnob& f : fixed_knobs())
        if (f.profile == r.name && !set_knob(c, f.knob, f.value).empty())
          throw std::logic_error(fmt::format("profile {} fixes an unknown knob {}", r.name, f.knob));
      return {};
    }
  return fmt::format("knob profile: '{}' is not one of {}", value, alternatives(kProfiles));
}

// A row of the knob table: what `pagesim list` shows, and how the knob reads and writes its
// KernelConfig member.
struct Knob {
  std::string_view name;
  std::string values;  // an enumerated knob's come from its table
  std::string_view description, ignored_by;
  std::function<std::string(KernelConfig&, std::string_view)> set;  // an error message, or empty
  std::function<std::string(const KernelConfig&)> get;
};

template <class T, size_t N>
Knob enum_knob(std::string_view name, T KernelConfig::*member, const EnumName<T> (&table)[N],
               std::string_view description, std::string_view ignored_by = {}) {
  return {name, alternatives(table), description, ignored_by,
          [=, &table](KernelConfig& c, std::string_view v) { return set_enum(c.*member, table, v, name); },
          [=, &table](const KernelConfig& c) { return enum_name(c.*member, table); }};
}

Knob bool_knob(std::string_view name, bool KernelConfig::*member, std::string_view description,
               std::string_view ignored_by = {}) {
  return {name, "true|false", description, ignored_by,
          [=](KernelConfig& c, std::string_view v) { return set_bool(c.*member, v, name); },
          [=](const KernelConfig& c) { return std::string(c.*member ? "true" : "false"); }};
}

Knob u32_knob(std::string_view name, uint32_t KernelConfig::*member, uint32_t lo, uint32_t hi, std::string_view values,
              std::string_view description, std::string_view ignored_by = {}) {
  return {name, std::string(values), description, ignored_by,
          [=](KernelConfig& c, std::string_view v) { return set_u32(c.*member, v, name, lo, hi); },
          [=](const KernelConfig& c) { return std::to_string(c.*member); }};
}

Knob profile_knob() {
  return {"profile", alternatives(kProfiles),
          "the kernel profile: 5.17's page allocator, or 6.18's (high auto-tuning, batch scaling, free_high, pcp spinlock, checks only when enabled)",
          {}, set_profile, [](const KernelConfig& c) { return std::string(profile_row(c.profile).name); }};
}

// vm.percpu_pagelist_high_fraction: the kernel rejects 1-7.
Knob high_fraction_knob() {
  Knob k = u32_knob("percpu_pagelist_high_fraction", &KernelConfig::percpu_pagelist_high_fraction, 0, 1u << 30, "0 or 8..",
                    "vm.percpu_pagelist_high_fraction (0: pcp high from the low watermark)");
  k.set = [](KernelConfig& c, std::string_view v) {
    std::string err = set_u32(c.percpu_pagelist_high_fraction, v, "percpu_pagelist_high_fraction", 0, 1u << 30);
    if (err.empty() && c.percpu_pagelist_high_fraction > 0 && c.percpu_pagelist_high_fraction < 8)
      err = fmt::format("knob percpu_pagelist_high_fraction: {} is rejected by the kernel (EINVAL): 0 or at least 8", v);
    return err;
  };
  return k;
}

Knob min_free_kbytes_knob() {
  return {"min_free_kbytes", "auto or 128..", "vm.min_free_kbytes; auto derives it as the kernel does (plus khugepaged)", {},
          [](KernelConfig& c, std::string_view v) {
            if (v == "auto") {
              c.min_free_kbytes.reset();
              return std::string();
            }
            uint32_t k = 0;
            std::string err = set_u32(k, v, "min_free_kbytes", 128, 1u << 30);
            if (err.empty()) c.min_free_kbytes = k;
            return err;
          },
          [](const KernelConfig& c) { return c.min_free_kbytes ? std::to_string(*c.min_free_kbytes) : std::string("auto"); }};
}

// The knob table, in display order.
const std::vector<Knob>& knobs() {
  using C = KernelConfig;
  static const std::vector<Knob> kKnobs = {
      profile_knob(),
      enum_knob("buddy_check", &C::buddy_check, kBuddyCheck, "check_new_pages() on the buddy path: under zone->lock (5.17) or after it (Eric, 3313204c8ad5)"),
      enum_knob("pcp_check_scope", &C::pcp_check_scope, kPcpScope, "check_pcp_refill/check_new_pcp: head page only (5.17) or every subpage (Mel, 77fe7f136a73)"),
      enum_knob("leak_accounting", &C::leak_accounting, kLeak, "a bad block leaked on the buddy path stays in NR_FREE_PAGES (v5.17) or is subtracted (fixed)"),
      bool_knob("debug_vm", &C::debug_vm, "CONFIG_DEBUG_VM: moves the pcp check from refill to allocation"),
      bool_knob("debug_pagealloc", &C::debug_pagealloc, "debug_pagealloc=on: checks at both refill and allocation"),
      bool_knob("refill_check_after_unlock", &C::refill_check_after_unlock, "6.4 placement: check_pcp_refill after zone->lock is dropped (6.x has no refill check)", "v6.18"),
      bool_knob("high_order_pcp", &C::high_order_pcp, "pcp lists for orders 1-3 and 9 (5.13+); off means order 0 only"),
      bool_knob("thp", &C::thp, "CONFIG_TRANSPARENT_HUGEPAGE: order-9 blocks use pcp list 12-14"),
      enum_knob("mel_walk", &C::mel_walk, kMelWalk, "ablation of the all-subpage walk: as is, free, or after the zone unlock"),
      bool_knob("artificial_hold", &C::artificial_hold, "ablation: head-only check plus a hold as long as the subpage walk"),
      enum_knob("free_pcppages_bulk", &C::free_pcppages_bulk, kFreeBulk, "free_pcppages_bulk: two-phase with prefetch (5.17) or one pass plus free_high (5.18; the v6.18 profile fixes it)"),
      enum_knob("zone_batchsize", &C::zone_batchsize, kBatchCap, "zone_batchsize's cap: 1 MiB of pages, batch 63 (d8a759b57035, 4.19), or 512 KiB, batch 31 (before it)"),
      bool_knob("deferred_struct_page_init", &C::deferred_struct_page_init, "initialise struct pages per 128 MiB section on first use"),
      bool_knob("memmap_reserved", &C::memmap_reserved, "each node's memmap (64 B per page) is reserved at its top, outside managed pages"),
      high_fraction_knob(),
      u32_knob("watermark_scale_factor", &C::watermark_scale_factor, 1, 3000, "1..3000", "vm.watermark_scale_factor"),
      u32_knob("watermark_boost_factor", &C::watermark_boost_factor, 0, 1u << 30, "0..", "vm.watermark_boost_factor"),
      min_free_kbytes_knob(),
      bool_knob("khugepaged", &C::khugepaged, "khugepaged enabled: raises min_free_kbytes to its recommendation"),
      u32_knob("pcp_batch_scale_max", &C::pcp_batch_scale_max, 0, 6, "0..6", "v6.18: CONFIG_PCP_BATCH_SCALE_MAX, the batch scaling limit of refills and drains", "v5.17"),
      bool_knob("pcp_free_high_batch", &C::pcp_free_high_batch, "v6.18: PCPF_FREE_HIGH_BATCH (LLC slice > 3 batches): free_high keeps a batch on the pcp", "v5.17"),
  };
  return kKnobs;
}

const Knob* find_knob(std::string_view name) {
  for (const Knob& k : knobs())
    if (k.name == name) return &k;
  return nullptr;
}

}  // namespace

const std::vector<std::string>& preset_names() {
  static const std::vector<std::string> kNames = [] {
    std::vector<std::string> names;
    for (const Preset& p : presets()) names.emplace_back(p.name);
    return names;
  }();
  return kNames;
}

std::optional<KernelConfig> preset_config(std::string_view name) {
  const std::string_view canonical = name == kAlias ? kAliasOf : name;
  for (const Preset& p : presets()) {
    if (p.name != canonical) continue;
    KernelConfig c;
    c.preset = std::string(p.name);
    for (const auto& [knob, value] : p.knobs)
      if (const std::string err = set_knob(c, knob, value); !err.empty())
        throw std::logic_error(fmt::format("preset {}: {}", p.name, err));
    return c;
  }
  return std::nullopt;
}

const std::vector<FixedKnob>& fixed_knobs() {
  // 6.x has only 5.18's one-pass free_pcppages_bulk (8391e0a7e172).
  static const std::vector<FixedKnob> kFixed = {{"v6.18", "free_pcppages_bulk", "v5.18"}};
  return kFixed;
}

std::string check_fixed_knob(const KernelConfig& cfg, std::string_view name, std::string_view value) {
  const std::string_view profile = profile_row(cfg.profile).name;
  for (const FixedKnob& f : fixed_knobs()) {
    if (f.profile != profile || f.knob != name) continue;
    KernelConfig asked = cfg;
    if (set_knob(asked, name, value).empty() && get_knob(asked, name) != f.value)
      return fmt::format("its kernel profile {} fixes {} to {}", profile, name, f.value);
  }
  return {};
}

const std::vector<KnobInfo>& knob_infos() {
  static const std::vector<KnobInfo> kInfos = [] {
    std::vector<KnobInfo> infos;
    for (const Knob& k : knobs()) infos.push_back({k.name, k.values, k.description, k.ignored_by});
    return infos;
  }();
  return kInfos;
}

std::string set_knob(KernelConfig& c, std::string_view name, std::string_view v) {
  const Knob* k = find_knob(name);
  return k ? k->set(c, v) : fmt::format("unknown knob '{}'", name);
}

std::string get_knob(const KernelConfig& c, std::string_view name) {
  const Knob* k = find_knob(name);
  return k ? k->get(c) : std::string();
}

constexpr std::string_view kVariantKnobNames[kNumVariantKnobs] = {"buddy_check", "pcp_check_scope", "leak_accounting"};

std::vector<std::string_view> variant_knob_names(VariantKnobs knobs) {
  std::vector<std::string_view> names;
  for (unsigned k = 0; k < kNumVariantKnobs; ++k)
    if (knobs >> k & 1) names.push_back(kVariantKnobNames[k]);
  return names;
}

std::optional<VariantKnobs> variant_knobs_named(const std::vector<std::string>& names) {
  VariantKnobs knobs = 0;
  for (const std::string& n : names) {
    const auto* it = std::find(std::begin(kVariantKnobNames), std::end(kVariantKnobNames), n);
    if (it == std::end(kVariantKnobNames)) return std::nullopt;
    knobs |= static_cast<VariantKnobs>(1u << (it - std::begin(kVariantKnobNames)));
  }
  return knobs;
}

std::optional<VariantKnobs> variant_difference(const KernelConfig& a, const KernelConfig& b) {
  VariantKnobs d = 0;
  if (a.buddy_check != b.buddy_check) d |= variant_bit(VariantKnob::buddy_check);
  if (a.pcp_check_scope != b.pcp_check_scope) d |= variant_bit(VariantKnob::pcp_check_scope);
  if (a.leak_accounting != b.leak_accounting) d |= variant_bit(VariantKnob::leak_accounting);
  KernelConfig same = b;  // b with a's name and variant knobs: equal to a unless another field differs
  same.preset = a.preset;
  same.buddy_check = a.buddy_check;
  same.pcp_check_scope = a.pcp_check_scope;
  same.leak_accounting = a.leak_accounting;
  if (!(same == a)) return std::nullopt;
  return d;
}

}  // namespace pagesim::mm
