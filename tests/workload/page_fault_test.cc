// will-it-scale's page fault tests (pagesim/workload/page_fault.h): small loops worked out by
// hand (faults, allocations, pcp refills and drains, TLB flushes), process against thread mode,
// and will-it-scale's task placement.
#include <gtest/gtest.h>

#include "pagesim/engine/uniprocessor/uniprocessor.h"
#include "pagesim/error.h"
#include "pagesim/mm/invariants.h"
#include "pagesim/mm/machine.h"
#include "pagesim/run/runner.h"
#include "pagesim/scenario/load.h"
#include "pagesim/workload/page_fault.h"

namespace pagesim::workload {
namespace {

using Exec = UniprocessorExec<true>;

// One node, one CPU, 1 GiB: pcp->batch 63 (zone_batchsize), pcp->high printed by the tests.
struct OneCpu {
  std::unique_ptr<mm::Machine> m = std::make_unique<mm::Machine>(mm::MachineSpec::uniform(1, 1, 1ull << 30),
                                                                 *mm::preset_config("v5.17"), mm::HostMemory{});
  Exec ex{*m, 0};
  mm::Mm<Exec> mm{*m, ex};
  const mm::PerCpuPages& pcp() const { return m->node(0).zones[mm::ZONE_NORMAL].pcp(0); }
};

PageFaultCounts loop(PageFaultTask<Exec>& t) {
  PageFaultCounts n;
  t.loop(n);
  return n;
}

// A 1024-page loop's allocations by kind and its frees, none failing.
void expect_allocs(const PageFaultCounts& n, uint64_t cache, uint64_t data, uint64_t frees) {
  EXPECT_EQ(n.faults, 1024u);
  EXPECT_EQ(n.cache_allocs, cache);
  EXPECT_EQ(n.data_allocs, data);
  EXPECT_EQ(n.pt_allocs, 2u);
  EXPECT_EQ(n.frees, frees);
  EXPECT_EQ(n.failures, 0u);
}

// page_fault1, 1024 pages (4 MiB), from empty pcp lists, pcp->high set to 252 (4 x batch,
// zone_highsize's floor). Faults: 1024, each allocating one movable page; a PTE page (unmovable
// list) at pages 0 and 512. Refills take pcp->batch = 63 pages each: ceil(1024 / 63) = 17 for
// the data (47 left on the list), 1 for the page tables (61 left): pcp->count 108. munmap frees
// the 1024 data pages one by one (free_unref_page_commit): the count reaches high at the 144th,
// and nr_pcp_free drains batch << free_factor clamped to [batch, high - batch]: 63 (count 189),
// then at the 207th 126 (count 126), then at the 333rd and every 189 frees after it 189 (count
// 63): drains at frees 144, 207, 333, 522, 711 and 900, six, leaving 187; the 2 PTE pages make
// it 189. TLB: one flush for the one gather batch (1024 < 9698 pages), one before
// free_pgtables; no IPI (one task per mm).
TEST(PageFault, PageFault1OneLoopByHand) {
  OneCpu c;
  ASSERT_EQ(c.pcp().batch, 63);
  c.m->node(0).zones[mm::ZONE_NORMAL].pcp(0).high = 252;
  PageFaultTask<Exec> t(c.mm, c.ex, {PfMapping::anon_private, 1024, false}, {}, 0, 0, 1);
  const PageFaultCounts n = loop(t);
  expect_allocs(n, 0, 1024, 1026);
  EXPECT_EQ(n.tlb_flushes, 2u);
  EXPECT_EQ(n.tlb_ipis, 0u);
  EXPECT_EQ(n.pcp_refills, 18u);
  EXPECT_EQ(n.pcp_drains, 6u);
  EXPECT_EQ(c.pcp().count, 189);
  EXPECT_TRUE(mm::check_invariants(*c.m).ok());
}

// With the zone's own pcp->high (above 1134 on this 1 GiB node) nothing drains: the first loop
// leaves 47 + 1024 movable and 63 unmovable pages on the lists, and the second loop takes its
// 1024 data pages and 2 PTE pages from them and gives them back: no refill, no drain.
TEST(PageFault, PageFault1SecondLoopRunsFromTheLists) {
  OneCpu c;
  ASSERT_GT(c.pcp().high, 1134);
  PageFaultTask<Exec> t(c.mm, c.ex, {PfMapping::anon_private, 1024, false}, {}, 0, 0, 1);
  const PageFaultCounts first = loop(t);
  EXPECT_EQ(first.pcp_refills, 18u);
  EXPECT_EQ(first.pcp_drains, 0u);
  EXPECT_EQ(c.pcp().count, 1134);
  const PageFaultCounts second = loop(t);
  expect_allocs(second, 0, 1024, 1026);
  EXPECT_EQ(second.pcp_refills, 0u);
  EXPECT_EQ(second.pcp_drains, 0u);
  EXPECT_EQ(c.pcp().count, 1134);
}

// page_fault2: the first loop fills the file's page cache (1024 pages, kept) and allocates the
// 1024 private copies (freed); the second allocates only the copies and the page tables.
TEST(PageFault, PageFault2CopiesAfterTheFileIsCached) {
  OneCpu c;
  PageFaultTask<Exec> t(c.mm, c.ex, {PfMapping::file_private, 1024, false}, {}, 0, 0, 1);
  const PageFaultCounts first = loop(t);
  expect_allocs(first, 1024, 1024, 1026);
  EXPECT_EQ(first.pcp_refills, (2048u + 62) / 63 + 1);  // 33 movable, 1 unmovable
  expect_allocs(loop(t), 0, 1024, 1026);
  EXPECT_TRUE(mm::check_invariants(*c.m).ok());
}

// page_fault3: once the file is cached a loop allocates and frees only its 2 PTE pages, which
// the unmovable list (61 left after the first refill) serves: no refill, no drain.
TEST(PageFault, PageFault3AllocatesOnlyPageTablesOnceCached) {
  OneCpu c;
  PageFaultTask<Exec> t(c.mm, c.ex, {PfMapping::file_shared, 1024, false}, {}, 0, 0, 1);
  expect_allocs(loop(t), 1024, 0, 2);
  const PageFaultCounts second = loop(t);
  expect_allocs(second, 0, 0, 2);
  EXPECT_EQ(second.pcp_refills, 0u);
  EXPECT_EQ(second.pcp_drains, 0u);
}

// Thread mode: every munmap's flush interrupts the mm's other threads (flush_tlb_mm_range);
// process mode's mm has one task. The allocator sees the same pages either way.
TEST(PageFault, ThreadModeFlushesReachTheOtherThreads) {
  OneCpu a, b;
  PageFaultTask<Exec> process(a.mm, a.ex, {PfMapping::anon_private, 1024, false}, {}, 0, 0, 1);
  PageFaultTask<Exec> thread(b.mm, b.ex, {PfMapping::anon_private, 1024, true}, {}, 0, 0, 8);
  const PageFaultCounts p = loop(process), t = loop(thread);
  EXPECT_EQ(p.tlb_ipis, 0u);
  EXPECT_EQ(t.tlb_ipis, 2u * 7);
  EXPECT_EQ(p.data_allocs, t.data_allocs);
  EXPECT_EQ(p.pcp_refills, t.pcp_refills);
  EXPECT_EQ(p.pcp_drains, t.pcp_drains);
}

// The mm lines: one per mm, so process mode's tasks never share one and thread mode's all do.
TEST(PageFault, OneMmLineAgainstMany) {
  EXPECT_NE(mm_lock_line(0, 0), mm_lock_line(1, 0));
  EXPECT_NE(mm_lock_line(0, 0).line(), mm_rss_line(0, 0).line());
  EXPECT_EQ(mm_lock_line(3, 1).kind, LineKind::lock_word);
}

// hwloc's core order on 2 nodes x 8 vCPUs (4 cores of 2 threads each): the first threads of
// node 0's cores, then node 1's, then the second threads.
TEST(PageFault, WillItScalePlacesCoresFirst) {
  std::vector<unsigned> cpus;
  for (unsigned i = 0; i < 16; ++i) cpus.push_back(wis_cpu(i, 2, 8));
  EXPECT_EQ(cpus, (std::vector<unsigned>{0, 2, 4, 6, 8, 10, 12, 14, 1, 3, 5, 7, 9, 11, 13, 15}));
}

// On the virtual engine, thread mode's shared mmap_lock line moves between the threads' CPUs:
// more HITMs than process mode for the same faults and allocations.
run::RunResult run_virtual(const std::string& workload, const std::string& mode) {
  scenario::LoadOptions opt;
  opt.engines = run::engine_names();
  const scenario::ScenarioSet set = scenario::load_string(
      "machine: {nodes: 2, cpus_per_node: 4, memory_per_node: 1G}\nkernel: {presets: [v5.17]}\n"
      "engine: {name: virtual, sched: pinned}\n"
      "workload: {name: " + workload + ", params: {mode: " + mode + ", size: 2M, loops: 1}}\n",
      "pf.yaml", opt);
  return run::run_one(set.front(), 0, 0, {});
}

// More tasks than CPUs is refused at the scenario's line, naming the key.
TEST(PageFault, MoreTasksThanCpusIsAnInputError) {
  scenario::LoadOptions opt;
  opt.engines = run::engine_names();
  try {
    scenario::load_string("machine: {nodes: 1, cpus_per_node: 2, memory_per_node: 1G}\nengine: virtual\n"
                          "workload: {name: page_fault2, params: {tasks: 3}}\n",
                          "pf.yaml", opt);
    FAIL() << "accepted 3 tasks on 2 CPUs";
  } catch (const InputError& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("pf.yaml:3:"), std::string::npos) << msg;
    EXPECT_NE(msg.find("workload.params.tasks"), std::string::npos) << msg;
  }
}

TEST(PageFault, ThreadModeSharesTheMmapLockLine) {
  const run::RunResult p = run_virtual("page_fault1", "process"), t = run_virtual("page_fault1", "thread");
  EXPECT_EQ(p.metrics.at("faults"), 8 * 512.0);
  EXPECT_EQ(t.metrics.at("faults"), p.metrics.at("faults"));
  EXPECT_EQ(t.metrics.at("data_allocs"), p.metrics.at("data_allocs"));
  EXPECT_EQ(p.metrics.at("tlb_ipis"), 0);
  EXPECT_EQ(t.metrics.at("tlb_ipis"), 8 * 2 * 7.0);
  const auto hitm = [](const run::RunResult& r) { return r.cache.counters.at("model_hitm_local") + r.cache.counters.at("model_hitm_remote"); };
  EXPECT_GT(hitm(t), hitm(p) + 8 * 512);
}

}  // namespace
}  // namespace pagesim::workload
