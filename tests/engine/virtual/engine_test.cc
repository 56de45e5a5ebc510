// The virtual-time engine by hand-checkable cases: lock waits and handoffs, causality, and
// the charged cost of walks. Every expected time is computed from the machine model's numbers.
#include <gtest/gtest.h>

#include "mm/test_util.h"
#include "pagesim/error.h"
#include "pagesim/engine/virtual/virtual.h"
#include "pagesim/mm/hugetlb.h"
#include "pagesim/vt/machine_model.h"
#include "pagesim/vt/memory_traffic.h"

namespace pagesim {
namespace {

using cache::Outcome;

// The shipped machine at 1 GHz with a free uncontended lock, so that cycles are whole
// nanoseconds and lock costs are only the modelled line accesses and handoffs.
vt::MachineModel test_model() {
  vt::MachineModel m = vt::load_machine_model(vt::default_machine_file());
  m.freq_mhz = 1000;
  m.lock_uncontended_cycles = 0;
  return m;
}

void init_lock(spinlock_t& l) {
  l.id = 7;
  l.line = Line{ZONE_BASE + 0x480, 0, LineKind::lock_word};
}

struct LockCase {
  ps_t arrival1 = 0, release0 = 0, granted1 = 0;
  uint64_t wait_ns = 0, contentions = 0;
};

// Task 0 takes the lock at 0 and holds it for 1 us; task 1 asks for it at 100 ns.
LockCase run_lock_case(mm::Machine& m) {
  VirtualEngine eng(m, test_model());
  spinlock_t l;
  init_lock(l);
  LockCase c;
  eng.run(2, [&](VirtualCpu& ex) {
    if (ex.task() == 0) {
      ex.lock(l, Site::rmqueue_bulk);
      ex.work(1000, Site::rmqueue_bulk);
      ex.unlock(l, Site::rmqueue_bulk);
      c.release0 = ex.clock();
    } else {
      ex.work(100, Site::rmqueue_bulk);
      c.arrival1 = ex.clock();
      ex.lock(l, Site::free_pcppages_bulk);
      c.granted1 = ex.clock();
      ex.unlock(l, Site::free_pcppages_bulk);
    }
  });
  c.wait_ns = eng.task(1).lock_stats()[l.id].wait.total;
  c.contentions = eng.task(1).lock_stats()[l.id].contentions + eng.task(0).lock_stats()[l.id].contentions;
  return c;
}

TEST(VirtualLocks, TwoVcpusContendingWaitExactlyTheHoldRemainderPlusHandoff) {
  auto m = test::machine(1, 2, 64ull << 20);
  const vt::MachineModel mdl = test_model();
  const LockCase c = run_lock_case(*m);
  // Task 0: the lock word comes from local DRAM, 1000 cycles of work, the release store hits L1.
  EXPECT_EQ(c.release0, mdl.latency(Outcome::dram_local) + 1000000 + mdl.latency(Outcome::l1));
  EXPECT_EQ(c.arrival1, 100000u);
  // Task 1's RMW took the lock word's line at 100 ns; the handoff takes it back to task 0's
  // unlock, to task 1's read, and upgrades it: three transfers on the socket.
  EXPECT_EQ(c.granted1, c.release0 + mdl.lock_handoff_ps(0, 0, 0));
  EXPECT_EQ(c.granted1, c.release0 + 3 * mdl.lock_line_same_ps);
  EXPECT_EQ(c.wait_ns, (c.granted1 - c.arrival1) / 1000);
  EXPECT_EQ(c.contentions, 1u);
}

TEST(VirtualLocks, CrossSocketHandoffCostsTheConfiguredDifferenceMore) {
  auto same = test::machine(1, 2, 64ull << 20);
  auto cross = test::machine(2, 1, 64ull << 20);
  const vt::MachineModel mdl = test_model();
  const LockCase a = run_lock_case(*same);
  const LockCase b = run_lock_case(*cross);
  const ps_t configured = 3 * (mdl.lock_line_cross_ps - mdl.lock_line_same_ps);
  EXPECT_EQ(configured, 171000u);  // (108 - 51) ns for each of the handoff's three transfers
  EXPECT_EQ(b.granted1 - a.granted1, configured);
  EXPECT_EQ((b.granted1 - b.arrival1) - (a.granted1 - a.arrival1), configured);
}

TEST(VirtualLocks, WaitersAreGrantedInVirtualArrivalOrder) {
  auto m = test::machine(1, 4, 64ull << 20);
  VirtualEngine eng(*m, test_model());
  spinlock_t l;
  init_lock(l);
  std::vector<unsigned> order;
  eng.run(4, [&](VirtualCpu& ex) {
    // Task 0 holds; tasks 3, 2, 1 arrive in that virtual order (host order is 1, 2, 3).
    ex.work(ex.task() == 0 ? 0 : 1000 - 100 * ex.task(), Site::unknown);
    ex.lock(l, Site::rmqueue_bulk);
    order.push_back(ex.task());
    ex.work(5000, Site::unknown);
    ex.unlock(l, Site::rmqueue_bulk);
  });
  EXPECT_EQ(order, (std::vector<unsigned>{0, 3, 2, 1}));
}

TEST(VirtualCausality, AnAccessEarlierInVirtualTimeSeesTheLineBeforeALaterWrite) {
  // One vCPU per socket (vCPUs 0 and 1 of one node would be SMT siblings sharing an L1).
  auto m = test::machine(2, 1, 64ull << 20);
  const vt::MachineModel mdl = test_model();
  const Line x{DATA_BASE + 0x10000, 0, LineKind::data};
  for (const ps_t load_at : {ps_t{500000}, ps_t{1500000}}) {
    VirtualEngine eng(*m, test_model());
    ps_t loaded = 0;
    eng.run(2, [&](VirtualCpu& ex) {
      if (ex.task() == 0) {  // runs first in host order, writes at 1 us
        ex.work(1000, Site::unknown);
        ex.access(x, AccessKind::store, Site::workload);
      } else {
        ex.work(static_cast<uint32_t>(load_at / 1000), Site::unknown);
        ex.access(x, AccessKind::load, Site::workload);
        loaded = ex.clock();
      }
    });
    const uint64_t hitm = eng.cache().stats().sum(cache::Slice{Outcome::hitm_remote, {}, {}, {}, {}});
    if (load_at < 1000000) {  // before the write: the line is still only in memory
      EXPECT_EQ(hitm, 0u);
      EXPECT_EQ(loaded, load_at + mdl.latency(Outcome::dram_remote));
    } else {  // after it: Modified in the other socket
      EXPECT_EQ(hitm, 1u);
      EXPECT_EQ(loaded, load_at + mdl.latency(Outcome::hitm_remote));
    }
  }
}

TEST(VirtualAccess, IndependentColdLinesOverlapUpToTheMlp) {
  auto m = test::machine(2, 1, 64ull << 20);
  const vt::MachineModel mdl = test_model();
  VirtualEngine eng(*m, test_model());
  ps_t strided = 0, single = 0;
  eng.run(1, [&](VirtualCpu& ex) {
    // 8 struct pages 4 KiB apart on node 1 (remote to vCPU 0): no prefetcher applies.
    ex.access_range(Line{VMEMMAP_BASE + 0x100000, 1, LineKind::struct_page}, 8, 4096, AccessKind::load, Site::check_new_pages);
    strided = ex.clock();
    ex.access(Line{VMEMMAP_BASE + 0x900000, 0, LineKind::struct_page}, AccessKind::load, Site::check_new_pages);
    single = ex.clock() - strided;
  });
  EXPECT_EQ(strided, 8 * (mdl.latency(Outcome::dram_remote) / mdl.mlp));
  EXPECT_EQ(single, mdl.latency(Outcome::dram_local));  // one dependent access: full latency
}

TEST(VirtualAccess, SequentialWalkGetsAdjacentLineAndStreamer) {
  auto m = test::machine(1, 1, 64ull << 20);
  const vt::MachineModel mdl = test_model();
  VirtualEngine eng(*m, test_model());
  ps_t walk = 0;
  eng.run(1, [&](VirtualCpu& ex) {
    ex.access_range(Line{VMEMMAP_BASE, 0, LineKind::struct_page}, 64, 64, AccessKind::load, Site::check_new_pages);
    walk = ex.clock();
  });
  // Even lines miss (the first two at MLP, the rest streamed); each odd line was brought in by
  // the adjacent-line prefetch and hits in the private cache.
  const cache::CacheStats& st = eng.cache().stats();
  const uint64_t dram = st.sum(cache::Slice{Outcome::dram_local, {}, {}, {}, {}});
  EXPECT_EQ(dram, 32u);
  const uint64_t hits = 64 - dram;
  const ps_t hit_ps = st.sum(cache::Slice{Outcome::l1, {}, {}, {}, {}}) == hits ? mdl.latency(Outcome::l1) : mdl.latency(Outcome::l2);
  EXPECT_EQ(walk, 2 * (mdl.latency(Outcome::dram_local) / mdl.mlp) + 30 * (mdl.latency(Outcome::dram_local) / mdl.stream_mlp) +
                      hits * (hit_ps / mdl.mlp));
}

// A DRAM miss pays its home controller's queueing delay under the clears running there: task 0 clears a huge page on node 0; task 1 misses to node 0
// while it runs and after it has ended, and to node 1, where nothing clears.
TEST(VirtualAccess, DramMissesPayTheLoadOfTheClearsOnTheirNode) {
  auto m = test::machine(2, 1, 64ull << 20);
  const vt::MachineModel mdl = test_model();
  VirtualEngine eng(*m, test_model());
  ps_t clear_end = 0, during = 0, node1 = 0, after = 0;
  eng.run(2, [&](VirtualCpu& ex) {
    if (ex.task() == 0) {
      ex.clear_huge_page(0);
      clear_end = ex.clock();
      return;
    }
    ps_t t = ex.clock();
    ex.access(Line{VMEMMAP_BASE + 0x10000, 0, LineKind::struct_page}, AccessKind::load, Site::check_new_pages);
    during = ex.clock() - t;
    t = ex.clock();
    ex.access(Line{VMEMMAP_BASE + 0x3000000, 1, LineKind::struct_page}, AccessKind::load, Site::check_new_pages);
    node1 = ex.clock() - t;
    ex.advance(clear_end);  // past the clear
    t = ex.clock();
    ex.access(Line{VMEMMAP_BASE + 0x20000, 0, LineKind::struct_page}, AccessKind::load, Site::check_new_pages);
    after = ex.clock() - t;
  });
  // The queueing delay of node 0's controller with one clearing thread on it.
  vt::MemoryTraffic one_clear(mdl);
  one_clear.add_clear(0, 0, vt::clear_lines_in_flight(mdl, mdl.clear_bw_bytes_per_s));
  const auto wait = static_cast<ps_t>(one_clear.wait_ps(0));
  ASSERT_GT(wait, 0u);
  // Task 1 runs on node 1 (the pinned policy): node 0's lines are remote to it.
  EXPECT_EQ(during, mdl.latency(Outcome::dram_remote) + wait);
  EXPECT_EQ(node1, mdl.latency(Outcome::dram_local)) << "node 1's memory is idle";
  EXPECT_EQ(after, mdl.latency(Outcome::dram_remote)) << "the clear has ended";
}

// gather_surplus_pages drops hugetlb_lock to allocate and, once it has the lock again,
// recomputes what it still needs from resv_huge_pages and free_huge_pages: another CPU may
// have changed the pool meanwhile. Task 0 (node 0) reserves 4 pages on an empty pool, so it
// allocates 4 surplus pages. Once it has the first, task 1 (node 1) puts a fresh page in the
// pool: free_huge_page enqueues it, as node 1 has no surplus pages (node 0's do not count,
// surplus_huge_pages_node[nid]). Back under the lock,
// needed = resv 0 + 4 - (free 1 + 4 allocated) = -1: 3 of task 0's pages join the pool and
// the fourth goes back to buddy, leaving 4 pages, all free and all reserved, 3 of them surplus.
TEST(VirtualHugetlb, ReservationRecountsThePoolAfterRetakingTheLock) {
  auto m = test::machine(2, 1, 256ull << 20);
  VirtualEngine eng(*m, test_model());
  int rc = -1;
  eng.run(2, [&](VirtualCpu& ex) {
    mm::Mm<VirtualCpu> mm(*m, ex);
    mm::Hugetlb<VirtualCpu> h(mm);
    if (ex.task() == 0) {
      h.set_overcommit(100);
      rc = h.hugetlb_acct_memory(4);
      return;
    }
    mm::Page* p = h.alloc_fresh_huge_page(mm::GFP_HIGHUSER_MOVABLE, 1, nullptr);
    ASSERT_NE(p, nullptr);
    while (m->hstate().surplus_huge_pages == 0) {  // until task 0 has its first surplus page
      ex.work(100, Site::unknown);
      ex.sync();
    }
    mm::set_page_count(p, 0);  // its last put
    h.free_huge_page(p);
  });
  ASSERT_EQ(rc, 0);
  EXPECT_EQ(test::events(*m, mm::HTLB_BUDDY_PGALLOC), 5u) << "task 1's page reached the pool while task 0 allocated";
  const mm::Hstate& hs = m->hstate();
  EXPECT_EQ(hs.free_huge_pages_node[0], 3u);
  EXPECT_EQ(hs.free_huge_pages_node[1], 1u);
  EXPECT_EQ(hs.nr_huge_pages, 4u);
  EXPECT_EQ(hs.free_huge_pages, 4u);
  EXPECT_EQ(hs.resv_huge_pages, 4u);
  EXPECT_EQ(hs.surplus_huge_pages, 3u);
  EXPECT_EQ(hs.surplus_huge_pages_node[1], 0u);
  test::expect_invariants(*m);
}

TEST(VirtualSched, ScheduleInsideASpinlockIsABug) {
  auto m = test::machine(1, 1, 64ull << 20);
  VirtualEngine eng(*m, test_model());
  spinlock_t l;
  init_lock(l);
  EXPECT_THROW(eng.run(1, [&](VirtualCpu& ex) {
    ex.lock(l, Site::rmqueue_bulk);
    ex.cond_resched(Site::gather_surplus_pages);
  }),
               ModelError);
}

TEST(VirtualSched, BarrierContinuesEveryTaskAtTheLatestArrival) {
  auto m = test::machine(2, 2, 64ull << 20);
  VirtualEngine eng(*m, test_model());
  std::vector<ps_t> after(4);
  eng.run(4, [&](VirtualCpu& ex) {
    ex.work(100 * (ex.task() + 1), Site::unknown);
    ex.barrier();
    after[ex.task()] = ex.clock();
  });
  EXPECT_EQ(after, (std::vector<ps_t>(4, 400000)));
}

// Whichever way a task is resumed (by the scheduler, or straight from a yielding task's stack
// by a causality yield), it runs only while its (clock, id) is the smallest: the points at
// which tasks pass their sync() form one increasing sequence. Locks mix in blocking, which
// goes through the scheduler.
TEST(VirtualCausality, TasksRunInClockOrderThroughDirectSwitchesAndLockWaits) {
  auto m = test::machine(2, 4, 64ull << 20);
  VirtualEngine eng(*m, test_model());
  spinlock_t l;
  init_lock(l);
  std::vector<std::pair<ps_t, unsigned>> seen;
  eng.run(8, [&](VirtualCpu& ex) {
    for (unsigned step = 0; step < 50; ++step) {
      ex.work(37 + 11 * ex.task() + step % 5, Site::unknown);
      ex.sync();
      seen.emplace_back(ex.clock(), ex.task());
      if (step % 7 == ex.task() % 7) {
        ex.lock(l, Site::rmqueue_bulk);
        ex.work(60, Site::rmqueue_bulk);
        ex.unlock(l, Site::rmqueue_bulk);
      }
    }
  });
  ASSERT_EQ(seen.size(), 8u * 50);
  for (size_t i = 1; i < seen.size(); ++i) ASSERT_LT(seen[i - 1], seen[i]) << "at " << i;
  EXPECT_GT(eng.causality_yields(), 0u);
  uint64_t contentions = 0;
  for (unsigned t = 0; t < 8; ++t) contentions += eng.task(t).lock_stats()[l.id].contentions;
  EXPECT_GT(contentions, 0u);
}

TEST(VirtualSched, ALockNeverReleasedIsADeadlock) {
  auto m = test::machine(1, 2, 64ull << 20);
  VirtualEngine eng(*m, test_model());
  spinlock_t l;
  init_lock(l);
  EXPECT_THROW(eng.run(2, [&](VirtualCpu& ex) { ex.lock(l, Site::rmqueue_bulk); }), ModelError);
}

// A run's fibers give their stacks back to the engine, and later runs take them again, also
// after a run that ended in an error and had its suspended fibers unwound.
TEST(VirtualRuns, LaterRunsReuseTheFiberStacks) {
  auto m = test::machine(2, 4, 64ull << 20);
  VirtualEngine eng(*m, test_model());
  unsigned finished = 0;
  const auto step = [&](VirtualCpu& ex) {
    ex.work(10 + ex.task(), Site::unknown);
    ex.sync();
    ++finished;
  };
  eng.run(4, step);
  EXPECT_EQ(eng.fiber_stacks_mapped(), 4u);
  eng.run(4, step);
  eng.run(2, step);
  EXPECT_EQ(eng.fiber_stacks_mapped(), 4u);
  eng.run(6, step);
  EXPECT_EQ(eng.fiber_stacks_mapped(), 6u);
  spinlock_t l;
  init_lock(l);
  EXPECT_THROW(eng.run(2, [&](VirtualCpu& ex) { ex.lock(l, Site::rmqueue_bulk); }), ModelError);
  eng.run(6, step);
  EXPECT_EQ(eng.fiber_stacks_mapped(), 6u);
  EXPECT_EQ(finished, 4u + 4 + 2 + 6 + 6);
}

}  // namespace
}  // namespace pagesim
