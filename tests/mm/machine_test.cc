// Boot-time derivations: min_free_kbytes, watermarks, pcp high/batch, vmstat thresholds,
// deferred struct-page init and host admission.
#include <cstring>

#include "pagesim/error.h"
#include "pagesim/mm/memmap.h"
#include "test_util.h"

namespace pagesim::test {
namespace {

TEST(Machine, WorkedExampleOfTheSpec) {
  // One node, 32 CPUs, Normal 16.25 M pages, DMA32 ~0.74 M, DMA ~4 k, khugepaged enabled.
  mm::MachineSpec spec;
  spec.nodes.push_back(mm::NodeSpec{32, {{mm::ZONE_DMA, 4096}, {mm::ZONE_DMA32, 740352}, {mm::ZONE_NORMAL, 16250880}}});
  mm::KernelConfig cfg = preset("v5.17");
  cfg.memmap_reserved = false;  // the spec's example takes the zone sizes as managed pages
  mm::Machine m(spec, cfg, mm::HostMemory{});
  EXPECT_EQ(m.min_free_kbytes(), 67584u) << "khugepaged's 512 x 3 x 11 pages wins over int_sqrt";
  const mm::Zone& z = m.node(0).zones[mm::ZONE_NORMAL];
  EXPECT_NEAR(static_cast<double>(z._watermark[mm::WMARK_MIN]), 16160, 20);
  EXPECT_NEAR(static_cast<double>(z._watermark[mm::WMARK_LOW]), 32400, 20);
  EXPECT_NEAR(static_cast<double>(z._watermark[mm::WMARK_HIGH]), 48650, 20);
  EXPECT_EQ(z.pageset_batch, 63);
  EXPECT_NEAR(z.pageset_high, 1010, 5);
  EXPECT_EQ(m.node(0).zones[mm::ZONE_DMA].pageset_batch, 1);
}

TEST(Machine, WithoutKhugepagedMinFreeKbytesIsTheSquareRoot) {
  mm::MachineSpec spec;
  spec.nodes.push_back(mm::NodeSpec{32, {{mm::ZONE_DMA, 4096}, {mm::ZONE_DMA32, 740352}, {mm::ZONE_NORMAL, 16250880}}});
  mm::KernelConfig cfg = preset("v5.17");
  cfg.khugepaged = false;
  mm::Machine m(spec, cfg, mm::HostMemory{});
  EXPECT_NEAR(static_cast<double>(m.min_free_kbytes()), 33000, 300);
  EXPECT_NEAR(m.node(0).zones[mm::ZONE_NORMAL].pageset_high, 750, 10);
}

TEST(Machine, PinnedMinFreeKbytes) {
  mm::KernelConfig cfg = preset("v5.17");
  cfg.min_free_kbytes = 90112;
  auto m = machine(2, 4, 1ull << 30, cfg);
  EXPECT_EQ(m->min_free_kbytes(), 90112u);
  // pages_min split by zone size: two equal zones get half each.
  EXPECT_EQ(normal(*m)._watermark[mm::WMARK_MIN], 90112u / 4 / 2);
}

// zone_highsize: the low watermark split over the node's CPUs, but at least batch * 4. One
// node of 128 CPUs and 256 MiB: 64512 managed pages give batch 15 (zone_batchsize: 63 / 4 =
// 15, rounddown_pow_of_two(22) - 1) and min_free_kbytes 12748 (khugepaged: buffer pages / 20),
// so the low watermark is 3187 + 796 = 3983 pages, 31 per CPU: the floor, 60, wins.
TEST(Machine, PcpHighIsAtLeastFourBatches) {
  auto m = machine(1, 128, 256ull << 20);
  const mm::Zone& z = normal(*m);
  EXPECT_EQ(z.managed_pages, 64512u);
  EXPECT_EQ(z.low_wmark_pages(), 3983u);
  EXPECT_EQ(z.pageset_batch, 15);
  EXPECT_EQ(z.pageset_high, 60) << "max(3983 / 128, 15 << 2)";
  EXPECT_EQ(z.pcp(127).high, 60);
}

// zone_highsize splits the low watermark over the CPUs of the zone's own node
// (cpumask_of_node), not over every online CPU: two nodes of 4 CPUs and 1 GiB each have a low
// watermark of 7040 pages per zone (min_free_kbytes 45056: khugepaged's 512 x 2 nodes x 11
// pages), so pcp->high is 7040 / 4 = 1760, not 7040 / 8 = 880.
TEST(Machine, PcpHighSplitsOverTheCpusOfTheZonesNode) {
  auto m = machine(2, 4, 1ull << 30);
  EXPECT_EQ(m->min_free_kbytes(), 45056u);
  for (unsigned n = 0; n < 2; ++n) {
    const mm::Zone& z = normal(*m, n);
    EXPECT_EQ(z.low_wmark_pages(), 7040u) << n;
    EXPECT_EQ(z.pageset_batch, 63) << n;
    EXPECT_EQ(z.pageset_high, 1760) << n;
  }
}

TEST(Machine, StatThreshold) {
  // 2 * fls(cpus) * (1 + fls(managed >> 15)), capped at 125.
  EXPECT_EQ(mm::calculate_stat_threshold(1ull << 18, 4), 2 * 3 * (1 + 4));
  EXPECT_EQ(mm::calculate_stat_threshold(1ull << 25, 128), 125);
}

// sparse_init's memmap comes from the node's own memory and stays memblock-reserved: 64 bytes
// per 4 KiB page, 1/64 of the node, off its managed pages, at the top of its highest zone.
TEST(Machine, MemmapIsReservedOutsideManagedPages) {
  const uint64_t pages = (4ull << 30) / mm::PAGE_SIZE;
  auto m = machine(2, 4, 4ull << 30);
  for (unsigned n = 0; n < 2; ++n) {
    const mm::Zone& z = normal(*m, n);
    EXPECT_EQ(z.present_pages, pages);
    EXPECT_EQ(z.managed_pages, pages - pages / 64);
    EXPECT_EQ(z.free_end_pfn(), z.zone_end_pfn() - pages / 64);
  }
  mm::KernelConfig whole = preset("v5.17");
  whole.memmap_reserved = false;
  auto w = machine(2, 4, 4ull << 30, whole);
  EXPECT_EQ(normal(*w).managed_pages, pages);
  // Beyond about 6 GiB a zone's low watermark is min + managed x watermark_scale_factor, so it
  // and pcp high (low / CPUs) come down with the managed pages.
  auto big = machine(1, 4, 16ull << 30), big_whole = machine(1, 4, 16ull << 30, whole);
  EXPECT_LT(normal(*big).low_wmark_pages(), normal(*big_whole).low_wmark_pages());
  EXPECT_LT(normal(*big).pageset_high, normal(*big_whole).pageset_high);
  expect_invariants(*m);
}

TEST(Machine, DeferredInitStartsWithOneSection) {
  auto m = machine(1, 1, 4ull << 30);
  EXPECT_EQ(m->memmap().sections_initialised(), 1u);
  const mm::ZoneCensus c = mm::zone_census(normal(*m));
  const uint64_t managed = normal(*m).managed_pages;
  EXPECT_EQ(c.free_list_pages, mm::PAGES_PER_SECTION);
  EXPECT_EQ(c.deferred_pages, managed - mm::PAGES_PER_SECTION);
  EXPECT_EQ(c.nr_free_pages, static_cast<long>(managed)) << "deferred pages count as free";
  Cpu cpu(*m);
  std::vector<mm::Page*> pages;
  for (int i = 0; i < 40; ++i) pages.push_back(cpu.mm.alloc_pages_node(0, kThp, 9));  // 80 MiB... then more
  for (int i = 0; i < 40; ++i) pages.push_back(cpu.mm.alloc_pages_node(0, kThp, 9));
  EXPECT_EQ(m->memmap().sections_initialised(), 2u) << "grown on demand by one section";
  EXPECT_GE(events(*m, mm::DEFERRED_GROW), 1u);
  expect_invariants(*m);
}

TEST(Machine, EagerInitWhenDeferredInitIsOff) {
  mm::KernelConfig cfg = preset("v5.17");
  cfg.deferred_struct_page_init = false;
  auto m = machine(1, 1, 512ull << 20, cfg);
  EXPECT_EQ(m->memmap().sections_initialised(), 4u);
  EXPECT_EQ(mm::zone_census(normal(*m)).deferred_pages, 0u);
}

// Without deferred init every struct page is built at boot, so the whole memmap must fit; with
// it, the memmap grows with the sections in use and a machine larger than the host is admitted.
TEST(Machine, RefusesAMemmapLargerThanTheHostOnlyWhenBuiltAtBoot) {
  mm::HostMemory host;
  host.mem_available_bytes = 1ull << 30;  // 1 GiB free: a 1 TiB machine needs 16 GiB of memmap
  mm::KernelConfig eager = preset("v5.17");
  eager.deferred_struct_page_init = false;
  try {
    mm::Machine m(mm::MachineSpec::uniform(2, 2, 512ull << 30), eager, host);
    FAIL() << "admitted";
  } catch (const InputError& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("16384 MiB"), std::string::npos) << msg;
    EXPECT_NE(msg.find("1024 MiB"), std::string::npos) << msg;
  }
  mm::Machine m(mm::MachineSpec::uniform(2, 2, 512ull << 30), preset("v5.17"), host);
  EXPECT_EQ(m.memmap().sections_initialised(), 2u) << "each node's first section";
}

// A request of a type with no free block grows every deferred section (__rmqueue_blocks), but
// only counts them on the MAX_ORDER-1 MOVABLE list: a section's struct pages are initialised
// when the list reaches it, and the list hands out the same pfns, in the same order, as one
// with every section linked.
TEST(Machine, DeferredSectionsAreInitialisedWhenTheListReachesThem) {
  auto m = machine(1, 2, 1ull << 40);  // 1 TiB; HostMemory{}: the 16 GiB memmap is reserved only
  mm::Zone& z = normal(*m);
  const uint64_t sections = (z.free_end_pfn() - z.zone_start_pfn) / mm::PAGES_PER_SECTION;
  Cpu cpu(*m);
  ASSERT_NE(cpu.mm.alloc_pages_node(0, mm::GFP_KERNEL, 0), nullptr);  // no UNMOVABLE block yet
  EXPECT_EQ(events(*m, mm::DEFERRED_GROW), sections - 1) << "every deferred section handed to buddy";
  EXPECT_EQ(z.deferred_pages, 0u);
  EXPECT_EQ(m->memmap().sections_initialised(), 1u) << "none of them initialised";
  expect_invariants(*m);

  std::vector<mm::Page*> blocks;
  for (int i = 0; i < 96; ++i) blocks.push_back(cpu.mm.alloc_pages_node(0, mm::GFP_HIGHUSER_MOVABLE, 10));
  for (size_t i = 1; i < blocks.size(); ++i)
    ASSERT_EQ(m->page_to_pfn(blocks[i]), m->page_to_pfn(blocks[i - 1]) + 1024) << "pfn order, block " << i;
  const uint64_t last_section = m->page_to_pfn(blocks.back()) / mm::PAGES_PER_SECTION;
  EXPECT_EQ(m->memmap().sections_initialised(), last_section + 1) << "the sections handed out, no more";
  expect_invariants(*m);

  // A few thousand mixed allocations and frees stay within a few sections.
  Rng rng(7, 0);
  std::vector<std::pair<mm::Page*, unsigned>> live;
  for (int i = 0; i < 4000; ++i) {
    if (!live.empty() && rng.below(3) == 0) {
      const size_t k = rng.below(live.size());
      cpu.mm.__free_pages(live[k].first, live[k].second);
      live[k] = live.back();
      live.pop_back();
      continue;
    }
    const unsigned order = static_cast<unsigned>(rng.below(4));
    const mm::gfp_t gfp = rng.below(2) ? mm::GFP_KERNEL : mm::GFP_HIGHUSER_MOVABLE;
    mm::Page* p = cpu.mm.alloc_pages_node(0, gfp, order);
    ASSERT_NE(p, nullptr);
    live.emplace_back(p, order);
  }
  for (auto& [p, order] : live) cpu.mm.__free_pages(p, order);
  for (mm::Page* b : blocks) cpu.mm.__free_pages(b, 10);
  EXPECT_LE(m->memmap().sections_initialised(), last_section + 3);
  EXPECT_LT(m->memmap().resident_bytes(), 32ull << 20);
  expect_invariants(*m);
}

TEST(Machine, MemmapBackingIsReported) {
  auto m = machine(1, 1, 64ull << 20);
  EXPECT_EQ(m->memmap().backing(), mm::MemmapBacking::small_pages);  // HostMemory{}: no THP, no hugetlb
  mm::Machine probed(mm::MachineSpec::uniform(1, 1, 64ull << 20), preset("v5.17"));
  EXPECT_FALSE(probed.memmap().backing_note().empty());
}

// A destroyed memmap's mapping serves the next one of its size, and a section constructed in it
// starts from zeroed struct pages, as a fresh mapping's do (mm_zero_struct_page).
TEST(Machine, ReusedMemmapStartsFromZeroedStructPages) {
  const uint64_t pages = 3 * mm::PAGES_PER_SECTION + 5;  // a size no other test uses
  const mm::HostMemory host{};
  const auto nothing = [](mm::Page*, mm::pfn_t) {};
  uintptr_t first;
  {
    mm::Memmap a(pages, host, false);
    EXPECT_FALSE(a.reused());
    a.init_section(1, nothing);
    std::memset(static_cast<void*>(a.pfn_to_page(mm::PAGES_PER_SECTION + 7)), 0xab, sizeof(mm::Page));
    first = reinterpret_cast<uintptr_t>(a.pfn_to_page(0));
  }
  mm::Memmap b(pages, host, false);
  ASSERT_TRUE(b.reused());
  EXPECT_EQ(reinterpret_cast<uintptr_t>(b.pfn_to_page(0)), first);
  EXPECT_FALSE(b.section_initialised(1));
  b.init_section(1, nothing);
  const auto* bytes = reinterpret_cast<const unsigned char*>(b.pfn_to_page(mm::PAGES_PER_SECTION + 7));
  for (size_t i = 0; i < sizeof(mm::Page); ++i) EXPECT_EQ(bytes[i], 0) << "byte " << i;
}

TEST(Machine, RejectsBadSpecs) {
  mm::MachineSpec spec = mm::MachineSpec::uniform(1, 1, 6ull << 20);  // not a multiple of 4 MiB
  EXPECT_THROW(mm::Machine(spec, preset("v5.17"), mm::HostMemory{}), InputError);
  mm::MachineSpec none;
  EXPECT_THROW(mm::Machine(none, preset("v5.17"), mm::HostMemory{}), InputError);
}

TEST(Machine, PresetsAndKnobs) {
  EXPECT_EQ(preset("v5.17+eric+mel").preset, "v5.18");
  EXPECT_FALSE(mm::preset_config("v5.19").has_value());
  mm::KernelConfig c = preset("v5.17");
  EXPECT_EQ(mm::set_knob(c, "pcp_check_scope", "all_subpages"), "");
  EXPECT_EQ(c.pcp_check_scope, mm::PcpCheckScope::all_subpages);
  EXPECT_NE(mm::set_knob(c, "pcp_check_scope", "tails"), "");
  EXPECT_NE(mm::set_knob(c, "percpu_pagelist_high_fraction", "4"), "") << "the kernel rejects 1-7";
  EXPECT_NE(mm::set_knob(c, "nosuch", "1"), "");
  for (const mm::KnobInfo& k : mm::knob_infos()) EXPECT_FALSE(mm::get_knob(c, k.name).empty()) << k.name;
}

}  // namespace
}  // namespace pagesim::test
