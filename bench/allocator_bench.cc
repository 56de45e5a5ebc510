// Allocator fast paths, single thread, on the uniprocessor exec with tracking off and on.
// Speed goals are checked here, never in tests (docs/performance.md records the figures).
#include <benchmark/benchmark.h>

#include <memory>

#include "pagesim/engine/uniprocessor/uniprocessor.h"
#include "pagesim/mm/config.h"
#include "pagesim/mm/page_alloc.h"

namespace pagesim {
namespace {

template <bool Track>
struct Fixture {
  explicit Fixture(const char* preset = "v5.17")
      : m(mm::MachineSpec::uniform(1, 1, 1ull << 30), *mm::preset_config(preset), mm::HostMemory{}), ex(m), mm(m, ex) {}
  mm::Machine m;
  UniprocessorExec<Track> ex;
  mm::Mm<UniprocessorExec<Track>> mm;
};

// An order-0 pcp hit: alloc_pages + __free_pages with the page staying on the pcp list.
template <bool Track>
void BM_PcpHitAllocFree(benchmark::State& state) {
  Fixture<Track> f;
  mm::Page* warm = f.mm.alloc_pages_node(0, mm::GFP_HIGHUSER_MOVABLE, 0);  // fill the pcp list
  for (auto _ : state) {
    mm::Page* p = f.mm.alloc_pages_node(0, mm::GFP_HIGHUSER_MOVABLE, 0);
    benchmark::DoNotOptimize(p);
    f.mm.__free_pages(p, 0);
  }
  f.mm.__free_pages(warm, 0);
}
BENCHMARK(BM_PcpHitAllocFree<false>)->Name("pcp_hit_alloc_free/untracked");
BENCHMARK(BM_PcpHitAllocFree<true>)->Name("pcp_hit_alloc_free/tracked");

// An order-9 THP allocation that refills pcp list 13 every time (2 blocks through
// rmqueue_bulk), then the free and a drain back to buddy: head-only vs all-subpage checks.
template <bool Track>
void BM_Order9Refill(benchmark::State& state, const char* preset) {
  Fixture<Track> f(preset);
  for (auto _ : state) {
    mm::Page* p = f.mm.alloc_pages_node(0, mm::GFP_TRANSHUGE, 9);
    benchmark::DoNotOptimize(p);
    f.mm.__free_pages(p, 9);
    f.mm.drain_local_pages();
  }
}
void BM_Order9RefillHead(benchmark::State& s) { BM_Order9Refill<false>(s, "v5.17"); }
void BM_Order9RefillAll(benchmark::State& s) { BM_Order9Refill<false>(s, "v5.17+mel"); }
void BM_Order9RefillHeadTracked(benchmark::State& s) { BM_Order9Refill<true>(s, "v5.17"); }
void BM_Order9RefillAllTracked(benchmark::State& s) { BM_Order9Refill<true>(s, "v5.17+mel"); }
BENCHMARK(BM_Order9RefillHead)->Name("order9_refill/head/untracked");
BENCHMARK(BM_Order9RefillAll)->Name("order9_refill/all_subpages/untracked");
BENCHMARK(BM_Order9RefillHeadTracked)->Name("order9_refill/head/tracked");
BENCHMARK(BM_Order9RefillAllTracked)->Name("order9_refill/all_subpages/tracked");

// rmqueue_bulk at batch 63 (order 0), the blocks then handed back by a drain.
template <bool Track>
void BM_RmqueueBulk63(benchmark::State& state) {
  Fixture<Track> f;
  mm::Zone& z = f.m.node(0).zones[mm::ZONE_NORMAL];
  mm::PerCpuPages& pcp = z.pcp(0);
  for (auto _ : state) {
    IrqFlags fl = f.ex.local_irq_save(Site::unknown);
    const int got = f.mm.rmqueue_bulk(z, 0, 63, pcp.lists[1], mm::MIGRATE_MOVABLE, mm::ALLOC_WMARK_LOW | mm::ALLOC_CMA);
    pcp.count += got;
    f.ex.local_irq_restore(fl, Site::unknown);
    f.mm.drain_local_pages();
  }
}
BENCHMARK(BM_RmqueueBulk63<false>)->Name("rmqueue_bulk_63_and_drain/untracked");
BENCHMARK(BM_RmqueueBulk63<true>)->Name("rmqueue_bulk_63_and_drain/tracked");

// The buddy path: an order-4 allocation splits an order-10 block; the free merges it back.
template <bool Track>
void BM_BuddySplitMerge(benchmark::State& state) {
  Fixture<Track> f;
  for (auto _ : state) {
    mm::Page* p = f.mm.alloc_pages_node(0, mm::GFP_HIGHUSER_MOVABLE, 4);
    benchmark::DoNotOptimize(p);
    f.mm.__free_pages(p, 4);
  }
}
BENCHMARK(BM_BuddySplitMerge<false>)->Name("buddy_split_merge_order4/untracked");
BENCHMARK(BM_BuddySplitMerge<true>)->Name("buddy_split_merge_order4/tracked");

// A block in the state check_new_pages sees it: off the free list, every struct page clean.
mm::Page* fresh_block(Fixture<false>& f) {
  mm::Page* p = f.mm.alloc_pages_node(0, mm::GFP_HIGHUSER_MOVABLE, 9);  // no __GFP_COMP
  mm::set_page_count(p, 0);
  return p;
}

// check_new_pages over an order-9 block (32 KiB of struct pages), untracked, beside a
// hand-written loop doing the same test and a plain sequential read of the same memory.
void BM_CheckNewPages(benchmark::State& state) {
  Fixture<false> f;
  mm::Page* block = fresh_block(f);
  for (auto _ : state) benchmark::DoNotOptimize(f.mm.check_new_pages(block, 9));
}
BENCHMARK(BM_CheckNewPages)->Name("check_new_pages_order9/untracked");

void BM_HandLoop(benchmark::State& state) {
  Fixture<false> f;
  const mm::Page* block = fresh_block(f);
  for (auto _ : state) {
    bool bad = false;
    for (int i = 0; i < 512 && !bad; ++i) {
      const mm::Page* p = block + i;
      bad = READ_ONCE(p->_mapcount) != -1 || mm::page_mapping(p) || mm::page_ref_count(p) || p->memcg_data ||
            (mm::page_flags(p) & (mm::PAGE_FLAGS_CHECK_AT_PREP | mm::bit(mm::PG_hwpoison)));
    }
    benchmark::DoNotOptimize(bad);
  }
}
BENCHMARK(BM_HandLoop)->Name("check_new_pages_order9/hand_loop");

void BM_SequentialRead(benchmark::State& state) {
  Fixture<false> f;
  const uint64_t* words = reinterpret_cast<const uint64_t*>(fresh_block(f));
  for (auto _ : state) {
    uint64_t sum = 0;
    for (int i = 0; i < 512 * 8; ++i) sum += words[i];
    benchmark::DoNotOptimize(sum);
  }
}
BENCHMARK(BM_SequentialRead)->Name("sequential_read_32KiB");

}  // namespace
}  // namespace pagesim

BENCHMARK_MAIN();
