// Head-only vs all-subpage checks, the DEBUG_VM x debug_pagealloc matrix, check placement
// inside or outside zone->lock, and the ablations.
#include "pagesim/mm/fault_inject.h"
#include "test_util.h"

namespace pagesim::test {
namespace {

std::unique_ptr<mm::Machine> thp_machine(mm::KernelConfig cfg) { return machine(1, 1, 1ull << 30, cfg); }

uint64_t sp_in(const UniprocessorExec<true>& ex, LockContext c) {
  return ex.accesses().struct_page_by_context[static_cast<unsigned>(c)];
}

TEST(Checks, AllocatedBlocksPassTheirChecks) {
  for (const std::string& p : mm::preset_names()) {
    auto m = thp_machine(preset(p));
    Cpu cpu(*m);
    mm::Page* page = cpu.mm.alloc_pages_node(0, kThp, 9);
    ASSERT_NE(page, nullptr) << p;
    EXPECT_EQ(events(*m, mm::BAD_PAGE), 0u) << p;
  }
}

TEST(Checks, StructPageReadsPerRefillCheckAreOneVsTwoToTheOrder) {
  for (const std::string& p : mm::preset_names()) {
    auto m = thp_machine(preset(p));
    Cpu cpu(*m);
    ASSERT_NE(cpu.mm.alloc_pages_node(0, kThp, 9), nullptr);
    const bool mel = preset(p).pcp_check_scope == mm::PcpCheckScope::all_subpages;
    // Without checks_only_when_enabled an order-9 refill takes 2 blocks: 2 head reads, or 2 x
    // 512 reads under zone->lock; with it, neither DEBUG_VM nor debug_pagealloc: no check.
    const bool unchecked = preset(p).behaviour.checks_only_when_enabled;
    EXPECT_EQ(struct_page_at(cpu.ex, Site::check_pcp_refill), 0u + (mel || unchecked ? 0 : 2)) << p;
    EXPECT_EQ(struct_page_at(cpu.ex, Site::check_new_pages), mel && !unchecked ? 1024u : 0u) << p;
  }
}

TEST(Checks, CorruptTailIsCaughtOnlyByAllSubpageVariants) {
  for (const std::string& p : mm::preset_names()) {
    auto m = thp_machine(preset(p));
    Cpu cpu(*m);
    mm::corrupt_page(m->pfn_to_page(100), mm::FaultField::refcount);  // tail 100 of block 0
    mm::Page* page = cpu.mm.alloc_pages_node(0, kThp, 9);
    ASSERT_NE(page, nullptr);
    const bool mel = preset(p).pcp_check_scope == mm::PcpCheckScope::all_subpages;
    if (preset(p).behaviour.checks_only_when_enabled) {
      // 6.x checks nothing without check_pages_enabled (DEBUG_VM, debug_pagealloc).
      EXPECT_EQ(m->page_to_pfn(page), 0u) << p;
      cpu.mm.__free_pages(page, 9);
      EXPECT_EQ(events(*m, mm::BAD_PAGE), 0u) << p << ": the corruption goes unseen";
    } else if (mel) {
      EXPECT_EQ(m->page_to_pfn(page), 512u) << p << ": the refill check leaks block 0";
      EXPECT_EQ(events(*m, mm::BAD_PAGE), 1u) << p;
      EXPECT_EQ(events(*m, mm::LEAKED_PAGES), 512u) << p;
    } else {
      EXPECT_EQ(m->page_to_pfn(page), 0u) << p << ": head-only hands out the bad block";
      EXPECT_EQ(events(*m, mm::BAD_PAGE), 0u) << p;
      cpu.mm.__free_pages(page, 9);  // free_pages_prepare checks every tail
      EXPECT_EQ(events(*m, mm::BAD_PAGE), 1u) << p << ": caught only when it is freed";
      EXPECT_EQ(events(*m, mm::LEAKED_PAGES), 512u) << p;
    }
    expect_invariants(*m);
  }
}

// check_new_pages walks every struct page of the block, up to the last: a bad page at tail
// 511 is caught like one at tail 100. Under v5.17+mel the refill check leaks block 0 (512
// reads to find it, then 512 for the good block 512); on v5.17's buddy path (order 6) the
// bad pfn 63 ends block 0-63, which is leaked for its buddy 64.
TEST(Checks, CorruptLastSubpageIsCaughtAsWellAsAnEarlyOne) {
  {
    auto m = thp_machine(preset("v5.17+mel"));
    Cpu cpu(*m);
    mm::corrupt_page(m->pfn_to_page(511), mm::FaultField::refcount);
    mm::Page* page = cpu.mm.alloc_pages_node(0, kThp, 9);
    ASSERT_NE(page, nullptr);
    EXPECT_EQ(m->page_to_pfn(page), 512u) << "the refill check leaks block 0";
    EXPECT_EQ(events(*m, mm::BAD_PAGE), 1u);
    EXPECT_EQ(events(*m, mm::LEAKED_PAGES), 512u);
    EXPECT_EQ(struct_page_at(cpu.ex, Site::check_new_pages), 1024u);
    expect_invariants(*m);
  }
  {
    auto m = thp_machine(preset("v5.17"));
    Cpu cpu(*m);
    mm::corrupt_page(m->pfn_to_page(63), mm::FaultField::mapping);
    mm::Page* page = cpu.mm.alloc_pages_node(0, mm::GFP_HIGHUSER_MOVABLE, 6);  // buddy path
    ASSERT_NE(page, nullptr);
    EXPECT_EQ(m->page_to_pfn(page), 64u);
    EXPECT_EQ(events(*m, mm::LEAKED_PAGES), 64u);
    expect_invariants(*m);
  }
}

// 77fe7f136a73's all-subpage check covers every order above 0, order 1 included: the refill
// of 31 order-1 blocks (batch 63 >> 1) finds the bad tail pfn 1 of block 0-1 and leaks it, so
// the allocation gets pfn 2. Head-only v5.17 hands out block 0.
TEST(Checks, AllSubpageCheckWalksOrderOneBlocksToo) {
  for (const char* p : {"v5.17+mel", "v5.17"}) {
    auto m = thp_machine(preset(p));
    Cpu cpu(*m);
    mm::corrupt_page(m->pfn_to_page(1), mm::FaultField::mapping);
    mm::Page* page = cpu.mm.alloc_pages_node(0, mm::GFP_HIGHUSER_MOVABLE | mm::__GFP_COMP, 1);
    ASSERT_NE(page, nullptr);
    const bool mel = preset(p).pcp_check_scope == mm::PcpCheckScope::all_subpages;
    EXPECT_EQ(events(*m, mm::PCP_REFILL_BLOCKS), 31u) << p;
    EXPECT_EQ(m->page_to_pfn(page), mel ? 2u : 0u) << p;
    EXPECT_EQ(events(*m, mm::LEAKED_PAGES), mel ? 2u : 0u) << p;
    EXPECT_EQ(struct_page_at(cpu.ex, Site::check_new_pages), mel ? 2u + 30u * 2u : 0u) << p;
  }
}

struct MatrixCase {
  bool debug_vm, dpa;
  uint64_t refill_reads, new_pcp_reads;  // struct-page reads per site for one order-9 allocation
};

class ConfigMatrix : public ::testing::TestWithParam<MatrixCase> {};

TEST_P(ConfigMatrix, MelChecksRunWhereTheMatrixSays) {
  const MatrixCase c = GetParam();
  mm::KernelConfig cfg = preset("v5.17+mel");
  cfg.debug_vm = c.debug_vm;
  cfg.debug_pagealloc = c.dpa;
  auto m = thp_machine(cfg);
  Cpu cpu(*m);
  mm::corrupt_page(m->pfn_to_page(100), mm::FaultField::mapping);
  mm::Page* page = cpu.mm.alloc_pages_node(0, kThp, 9);
  ASSERT_NE(page, nullptr);
  EXPECT_EQ(m->page_to_pfn(page), 512u);
  EXPECT_EQ(events(*m, mm::LEAKED_PAGES), 512u);
  const uint64_t walk = struct_page_at(cpu.ex, Site::check_new_pages);
  EXPECT_EQ(walk, c.refill_reads + c.new_pcp_reads);
  expect_invariants(*m);
}

// Block 0 is bad at tail 100 (101 reads to find it), block 512 is good (512 reads).
INSTANTIATE_TEST_SUITE_P(Matrix, ConfigMatrix,
                         ::testing::Values(MatrixCase{false, false, 613, 0},  // refill only
                                           MatrixCase{false, true, 613, 512},  // both: refill leaks 0, alloc checks 512
                                           MatrixCase{true, false, 0, 613},   // allocation only
                                           MatrixCase{true, true, 613, 512}));

TEST(Checks, BuddyPathWalkMovesOutOfTheLockWithEric) {
  uint64_t in_lock[2], outside[2];
  int i = 0;
  for (const char* p : {"v5.17", "v5.17+eric"}) {
    auto m = thp_machine(preset(p));
    Cpu cpu(*m);
    ASSERT_NE(cpu.mm.alloc_pages_node(0, mm::GFP_HIGHUSER_MOVABLE, 6), nullptr);  // buddy path
    EXPECT_EQ(struct_page_at(cpu.ex, Site::check_new_pages), 64u) << p;
    in_lock[i] = sp_in(cpu.ex, LockContext::zone_lock);
    outside[i] = sp_in(cpu.ex, LockContext::none);
    ++i;
  }
  EXPECT_EQ(in_lock[0] - in_lock[1], 64u) << "the 64-line walk leaves zone->lock";
  EXPECT_EQ(outside[1] - outside[0], 64u);
}

TEST(Checks, AblationZeroCostStillCatchesButReadsOnlyHeads) {
  mm::KernelConfig cfg = preset("v5.17+mel");
  cfg.mel_walk = mm::MelWalk::zero_cost;
  auto m = thp_machine(cfg);
  Cpu cpu(*m);
  mm::corrupt_page(m->pfn_to_page(100), mm::FaultField::refcount);
  mm::Page* page = cpu.mm.alloc_pages_node(0, kThp, 9);
  EXPECT_EQ(m->page_to_pfn(page), 512u);
  EXPECT_EQ(struct_page_at(cpu.ex, Site::check_new_pages), 0u);
  EXPECT_EQ(struct_page_at(cpu.ex, Site::check_pcp_refill), 2u);
}

TEST(Checks, AblationOutsideLockAndTheSixFourPlacementCheckAfterUnlock) {
  for (int variant = 0; variant < 2; ++variant) {
    mm::KernelConfig cfg = preset("v5.17+mel");
    if (variant == 0) cfg.mel_walk = mm::MelWalk::outside_lock;
    else cfg.refill_check_after_unlock = true;
    auto m = thp_machine(cfg);
    Cpu cpu(*m);
    mm::corrupt_page(m->pfn_to_page(100), mm::FaultField::refcount);
    mm::Page* page = cpu.mm.alloc_pages_node(0, kThp, 9);
    EXPECT_EQ(m->page_to_pfn(page), 512u);
    EXPECT_EQ(events(*m, mm::LEAKED_PAGES), 512u);
    // The 613 reads happen with IRQs off (pcp) but not under zone->lock.
    EXPECT_GE(sp_in(cpu.ex, LockContext::irq_off), 613u);
    EXPECT_LT(sp_in(cpu.ex, LockContext::zone_lock), 100u);
    expect_invariants(*m);
  }
}

TEST(Checks, AblationArtificialHoldMatchesTheWalkLength) {
  mm::KernelConfig cfg = preset("v5.17");
  cfg.artificial_hold = true;
  auto m = thp_machine(cfg);
  Cpu cpu(*m);
  ASSERT_NE(cpu.mm.alloc_pages_node(0, kThp, 9), nullptr);
  EXPECT_EQ(cpu.ex.accesses().hold_lines, 2u * 511u);
  EXPECT_EQ(struct_page_at(cpu.ex, Site::check_pcp_refill), 2u);
}

TEST(Checks, BadPageResetsMapcountAndIsRateLimited) {
  mm::KernelConfig cfg = preset("v5.17");
  cfg.bad_page_ratelimit_burst = 3;
  auto m = thp_machine(cfg);
  Cpu cpu(*m);
  for (mm::pfn_t pfn = 0; pfn < 10; ++pfn) mm::corrupt_page(m->pfn_to_page(pfn), mm::FaultField::mapcount);
  mm::Page* p = cpu.mm.alloc_pages_node(0, mm::GFP_HIGHUSER_MOVABLE, 0);
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(m->page_to_pfn(p), 10u);
  EXPECT_EQ(events(*m, mm::BAD_PAGE), 10u);
  EXPECT_EQ(events(*m, mm::BAD_PAGE_SUPPRESSED), 7u);
  EXPECT_EQ(m->bad_page_reports().size(), 3u);
  EXPECT_EQ(m->bad_page_reports()[0].reason, "nonzero mapcount");
  EXPECT_EQ(m->pfn_to_page(0)->_mapcount, -1) << "page_mapcount_reset";
  expect_invariants(*m);
}

}  // namespace
}  // namespace pagesim::test
