// The v6.18 profile's pcp: high_min/high_max from zone_pcp_update, nr_pcp_alloc's batch
// scaling, free_high, decay_pcp_high, drain_pages_zone's chunks, and where the kmem
// tracepoints fire under each profile.
#include <vector>

#include "test_util.h"

namespace pagesim::test {
namespace {

constexpr uint64_t kGiB = 1ull << 30;

std::unique_ptr<mm::Machine> v6_machine(mm::KernelConfig cfg = preset("v6.18")) { return machine(1, 1, kGiB, cfg); }

struct Sink final : mm::TraceSink {
  std::vector<mm::Tracepoint> events;
  void emit(const mm::Tracepoint& tp) override { events.push_back(tp); }
  size_t count(mm::TracepointId id, int order = -1) const {
    size_t n = 0;
    for (const auto& e : events) n += e.id == id && (order < 0 || e.order == order);
    return n;
  }
};

// zone_set_pageset_high_and_batch: high_min from the low watermark, high_max = managed / 8 (one
// CPU); pcp->high is clamped into them at first use, so it starts at high_min.
TEST(PcpV6, HighMinAndHighMax) {
  auto m = v6_machine();
  const mm::Zone& z = normal(*m);
  const mm::PerCpuPages& pcp = z.pcp(0);
  EXPECT_EQ(pcp.batch, 63);
  EXPECT_EQ(pcp.high_min, static_cast<int>(std::max<uint64_t>(z.low_wmark_pages(), 4 * 63)));
  EXPECT_EQ(pcp.high_max, static_cast<int>(z.managed_pages / 8));
  EXPECT_TRUE(pcp.flags & mm::PCPF_FREE_HIGH_BATCH);
  auto v5 = machine(1, 1, kGiB);
  EXPECT_EQ(normal(*v5).pcp(0).high, pcp.high_min) << "5.17's fixed high is 6.x's high_min";
}

// nr_pcp_alloc: with no frees in between, order-0 refills double (alloc_factor) up to
// batch << 5, each capped by high - count - batch, and each raises high by what it takes.
TEST(PcpV6, OrderZeroRefillsScaleUp) {
  auto m = v6_machine();
  Cpu cpu(*m);
  mm::PerCpuPages& pcp = normal(*m).pcp(0);
  pcp.high_max = 100000;  // room for every step
  std::vector<uint64_t> refills;
  uint64_t blocks = 0;
  for (int i = 0; i < 4000; ++i) {
    ASSERT_NE(cpu.mm.alloc_pages_node(0, mm::GFP_HIGHUSER_MOVABLE, 0), nullptr);
    if (events(*m, mm::PCP_REFILL_BLOCKS) != blocks) refills.push_back(events(*m, mm::PCP_REFILL_BLOCKS) - blocks);
    blocks = events(*m, mm::PCP_REFILL_BLOCKS);
  }
  EXPECT_EQ(refills, (std::vector<uint64_t>{63, 126, 252, 504, 1008, 2016, 2016}));
  EXPECT_EQ(pcp.alloc_factor, 5);
  EXPECT_EQ(pcp.high, pcp.high_min + 63 + 126 + 252 + 504 + 1008 + 2016 + 2016);
}

// free_high: the second order-1 free in a row, after batch + high_min / 2 pages freed, drains
// min(count, batch << 5) at once and lowers high by batch << 5.
TEST(PcpV6, FreeHighDrainsOnTheSecondHighOrderFree) {
  mm::KernelConfig cfg = preset("v6.18");
  cfg.pcp_free_high_batch = false;
  auto m = v6_machine(cfg);
  Cpu cpu(*m);
  mm::PerCpuPages& pcp = normal(*m).pcp(0);
  mm::Page* a = cpu.mm.alloc_pages_node(0, mm::GFP_HIGHUSER_MOVABLE | mm::__GFP_COMP, 1);
  mm::Page* b = cpu.mm.alloc_pages_node(0, mm::GFP_HIGHUSER_MOVABLE | mm::__GFP_COMP, 1);
  ASSERT_TRUE(a && b);
  EXPECT_EQ(pcp.count, (31 - 2) * 2);
  pcp.high = pcp.high_max;
  pcp.free_count = static_cast<short>(63 + pcp.high_min / 2);
  cpu.mm.__free_pages(a, 1);  // the first high-order free only sets PCPF_PREV_FREE_HIGH_ORDER
  EXPECT_EQ(events(*m, mm::PCP_DRAIN), 0u);
  EXPECT_TRUE(pcp.flags & mm::PCPF_PREV_FREE_HIGH_ORDER);
  const int high = pcp.high;
  cpu.mm.__free_pages(b, 1);
  EXPECT_EQ(events(*m, mm::PCP_DRAIN), 1u);
  EXPECT_EQ(events(*m, mm::PCP_DRAIN_PAGES), 31u * 2) << "min(count, batch << 5): the whole list";
  EXPECT_EQ(pcp.count, 0);
  EXPECT_EQ(pcp.high, std::max(high - (63 << 5), pcp.high_min));
  expect_invariants(*m);
}

// n blocks of `order` allocated and freed again with high at high_max, so that the pcp holds
// exactly them (the refills' leftovers are drained in between).
void free_onto_pcp(Cpu& cpu, mm::Zone& z, int n, unsigned order) {
  std::vector<mm::Page*> blocks;
  for (int i = 0; i < n; ++i) blocks.push_back(cpu.mm.alloc_pages_node(0, mm::GFP_HIGHUSER_MOVABLE | (order ? mm::__GFP_COMP : 0), order));
  cpu.mm.drain_local_pages(&z);
  z.pcp(0).high = z.pcp(0).high_max;
  for (mm::Page* p : blocks) cpu.mm.__free_pages(p, order);
}

// decay_pcp_high: high loses an eighth (never more than count - batch << 5 allows, never
// below high_min) and what lies above it is drained; at high_min it stops.
TEST(PcpV6, DecayLowersHighAndDrainsTheExcess) {
  auto m = v6_machine();
  Cpu cpu(*m);
  mm::Zone& z = normal(*m);
  mm::PerCpuPages& pcp = z.pcp(0);
  pcp.high_min = 64;
  free_onto_pcp(cpu, z, 3000, 0);
  const int count = pcp.count;
  ASSERT_EQ(count, 3000);
  // Just above count: the eighth (not the batch << 5 floor) sets the new high.
  pcp.high = count + 8;
  EXPECT_TRUE(cpu.mm.decay_pcp_high(z));
  const int cut = (count + 8) - ((count + 8) >> 3);
  ASSERT_GT(cut, count - (63 << 5));
  EXPECT_EQ(pcp.high, cut);
  EXPECT_EQ(pcp.count, cut) << "exactly the excess is drained (order-0 blocks)";
  // Far above count: high loses only an eighth, and nothing is drained.
  pcp.high = 4 * pcp.count;
  const int before = pcp.count;
  EXPECT_TRUE(cpu.mm.decay_pcp_high(z));
  EXPECT_EQ(pcp.high, 4 * before - ((4 * before) >> 3));
  EXPECT_EQ(pcp.count, before) << "nothing above high";
  pcp.high = pcp.high_min;
  const uint64_t drains = events(*m, mm::PCP_DRAIN);
  cpu.mm.drain_local_pages(&z);
  EXPECT_EQ(pcp.count, 0);
  EXPECT_GE(events(*m, mm::PCP_DRAIN) - drains, 1u);
  EXPECT_FALSE(cpu.mm.decay_pcp_high(z)) << "at high_min with nothing to drain, vmstat_update may stop";
  expect_invariants(*m);
}

// decay_pcp_high drains its excess a batch (63 pages) per free_pcppages_bulk call, from list 0
// each time, and a call frees whole blocks. Worked by hand: 8 THP blocks (4096 pages) on the
// pcp, high cut from 4096 to 4096 - 4096 / 8 = 3584: an excess of 512 pages is 9 calls
// (8 x 63 + 8), and each frees one THP block, so 9 blocks would go; there are 8, so all of
// them. In one call of 512 pages (6.18.0) it would have been a single block.
TEST(PcpV6, DecayDrainsABatchPerCallSoEachCallTakesAThpBlock) {
  auto m = v6_machine();
  Sink sink;
  Cpu cpu(*m);
  mm::Zone& z = normal(*m);
  z.pcp(0).high_max = 100000;
  free_onto_pcp(cpu, z, 8, 9);
  mm::PerCpuPages& pcp = z.pcp(0);
  ASSERT_EQ(pcp.count, 8 * 512);
  m->set_tracer(&sink);
  pcp.high = 8 * 512;
  pcp.high_min = 64;
  EXPECT_TRUE(cpu.mm.decay_pcp_high(z));
  m->set_tracer(nullptr);
  EXPECT_EQ(pcp.high, 8 * 512 - 8 * 512 / 8);
  EXPECT_EQ(sink.count(mm::TracepointId::mm_page_pcpu_drain, 9), 8u);
  EXPECT_EQ(pcp.count, 0);
  expect_invariants(*m);
}

// drain_pages_zone: chunks of batch << 5 in 6.x, one call in 5.17.
TEST(PcpV6, DrainPagesZoneInChunks) {
  for (const char* p : {"v6.18", "v5.17"}) {
    auto m = machine(1, 1, kGiB, preset(p));
    Cpu cpu(*m);
    mm::Zone& z = normal(*m);
    z.pcp(0).high_max = z.pcp(0).high = 100000;
    z.pcp(0).high_min = 100000;
    std::vector<mm::Page*> pages;
    for (int i = 0; i < 5000; ++i) pages.push_back(cpu.mm.alloc_pages_node(0, mm::GFP_HIGHUSER_MOVABLE, 0));
    for (mm::Page* pg : pages) cpu.mm.__free_pages(pg, 0);
    const int count = z.pcp(0).count;
    const uint64_t before = events(*m, mm::PCP_DRAIN);
    cpu.mm.drain_local_pages(&z);
    const uint64_t calls = events(*m, mm::PCP_DRAIN) - before;
    const uint64_t want = std::string(p) == "v6.18" ? static_cast<uint64_t>((count + 2015) / 2016) : 1u;
    EXPECT_EQ(calls, want) << p << ", " << count << " pages";
    EXPECT_EQ(z.pcp(0).count, 0);
  }
}

// mm_page_alloc_zone_locked: 6.x in __rmqueue_smallest with percpu_refill for pcp orders and
// types; 5.17 in __rmqueue with percpu_refill = order == 0. One drain event per block.
TEST(PcpV6, TracepointsPerProfile) {
  for (const char* p : {"v6.18", "v5.17"}) {
    auto m = machine(1, 1, kGiB, preset(p));
    Sink sink;
    m->set_tracer(&sink);
    Cpu cpu(*m);
    mm::Page* one = cpu.mm.alloc_pages_node(0, mm::GFP_HIGHUSER_MOVABLE | mm::__GFP_COMP, 1);
    mm::Page* big = cpu.mm.alloc_pages_node(0, mm::GFP_HIGHUSER_MOVABLE | mm::__GFP_COMP, 4);
    ASSERT_TRUE(one && big);
    EXPECT_EQ(sink.count(mm::TracepointId::mm_page_alloc), 2u) << p;
    EXPECT_EQ(sink.count(mm::TracepointId::mm_page_alloc_zone_locked, 1), 31u) << p;
    EXPECT_EQ(sink.count(mm::TracepointId::mm_page_alloc_zone_locked, 4), 1u) << p;
    for (const auto& e : sink.events) {
      if (e.id != mm::TracepointId::mm_page_alloc_zone_locked) continue;
      EXPECT_EQ(e.percpu_refill, std::string(p) == "v6.18" ? e.order == 1 : e.order == 0) << p;
    }
    cpu.mm.__free_pages(one, 1);
    cpu.mm.__free_pages(big, 4);
    EXPECT_EQ(sink.count(mm::TracepointId::mm_page_free), 2u) << p;
    cpu.mm.drain_local_pages(nullptr);
    EXPECT_EQ(sink.count(mm::TracepointId::mm_page_pcpu_drain), 31u) << p;
    m->set_tracer(nullptr);
  }
}

}  // namespace
}  // namespace pagesim::test
