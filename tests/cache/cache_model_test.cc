// The cache model against hand-computed sequences on CacheGeometry::tiny():
//   2 sockets x 2 cores x 2 threads, socket-major numbering:
//     cpus 0,1 -> socket 0 core 0    cpus 2,3 -> socket 0 core 1
//     cpus 4,5 -> socket 1 core 0    cpus 6,7 -> socket 1 core 1
//   L1d 4 sets x 2 ways (set = line % 4), L2 8 x 4 (line % 8), LLC 16 x 4 (line % 16).
#include "pagesim/cache/cache_model.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "pagesim/error.h"

namespace pagesim::cache {
namespace {

using AK = AccessKind;
using O = Outcome;
using LS = LineState;

// splitmix64: a fixed generator, so random tests are the same everywhere.
struct Rng {
  uint64_t s;
  uint64_t next() {
    uint64_t z = (s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }
  uint64_t below(uint64_t n) { return next() % n; }
};

class CacheModelTest : public ::testing::Test {
 protected:
  CacheModel m{CacheGeometry::tiny()};

  O load(unsigned cpu, uint64_t line, uint16_t home = 0) { return m.access(cpu, line, home, AK::load); }
  O store(unsigned cpu, uint64_t line, uint16_t home = 0) { return m.access(cpu, line, home, AK::store); }
  void TearDown() override { EXPECT_EQ(m.check_invariants(), ""); }
};

// ---------------------------------------------------------------- geometry

TEST(CacheGeometry, IceLakeDefaults) {
  const CacheGeometry g = CacheGeometry::icelake_8358();
  EXPECT_EQ(g.validate(), "");
  EXPECT_EQ(g.cpus(), 128u);
  EXPECT_EQ(g.l1d, (CacheLevel{64, 12}));
  EXPECT_EQ(g.l1d.bytes(), 48u << 10);
  EXPECT_EQ(g.l2, (CacheLevel{1024, 20}));
  EXPECT_EQ(g.l2.bytes(), 1280u << 10);
  EXPECT_EQ(g.llc, (CacheLevel{65536, 12}));
  EXPECT_EQ(g.llc.bytes(), 48ull << 20);
}

TEST(CacheGeometry, SocketMajorNumberingKeepsSiblingsAdjacent) {
  const CacheGeometry g = CacheGeometry::icelake_8358();
  EXPECT_EQ(g.place(0), (CpuPlace{0, 0, 0}));
  EXPECT_EQ(g.place(1), (CpuPlace{0, 0, 1}));
  EXPECT_EQ(g.place(63), (CpuPlace{0, 31, 1}));
  EXPECT_EQ(g.place(64), (CpuPlace{1, 0, 0}));
  EXPECT_EQ(g.place(127), (CpuPlace{1, 31, 1}));
}

TEST(CacheGeometry, LinuxX86NumberingPutsSiblingsInTheUpperHalf) {
  CacheGeometry g = CacheGeometry::icelake_8358();
  g.numbering = CpuNumbering::linux_x86;
  EXPECT_EQ(g.place(0), (CpuPlace{0, 0, 0}));
  EXPECT_EQ(g.place(31), (CpuPlace{0, 31, 0}));
  EXPECT_EQ(g.place(32), (CpuPlace{1, 0, 0}));
  EXPECT_EQ(g.place(64), (CpuPlace{0, 0, 1}));
  EXPECT_EQ(g.place(127), (CpuPlace{1, 31, 1}));
}

TEST(CacheGeometry, RejectsUnusableShapes) {
  CacheGeometry g = CacheGeometry::tiny();
  g.cores_per_socket = 65;
  EXPECT_NE(g.validate(), "");
  EXPECT_THROW(CacheModel{g}, InputError);
  g = CacheGeometry::tiny();
  g.sockets = 9;
  EXPECT_NE(g.validate(), "");
  g = CacheGeometry::tiny();
  g.l2.ways = 0;
  EXPECT_NE(g.validate(), "");
}

TEST_F(CacheModelTest, RejectsOutOfRangeArguments) {
  EXPECT_THROW(load(8, 0), ModelError);
  EXPECT_THROW(load(0, 0, 2), ModelError);
  EXPECT_THROW(load(0, uint64_t{1} << 62), ModelError);
}

// ---------------------------------------------------------------- private caches

TEST_F(CacheModelTest, FirstTouchComesFromDramThenHitsL1) {
  EXPECT_EQ(load(0, 1), O::dram_local);
  EXPECT_EQ(load(0, 1), O::l1);
  EXPECT_EQ(m.private_state(0, 1), LS::E);
  EXPECT_EQ(store(0, 1), O::l1);  // E -> M is silent
  EXPECT_EQ(m.private_state(0, 1), LS::M);
  EXPECT_EQ(m.stats().events.upgrades, 0u);
}

TEST_F(CacheModelTest, L1IsTrueLruWithinASet) {
  // Lines 0, 4 and 8 share L1 set 0 (2 ways).
  load(0, 0);
  load(0, 4);
  EXPECT_EQ(load(0, 0), O::l1);  // 0 becomes MRU, 4 LRU
  load(0, 8);                    // evicts 4
  EXPECT_TRUE(m.in_l1(0, 0));
  EXPECT_FALSE(m.in_l1(0, 4));
  EXPECT_TRUE(m.in_l1(0, 8));
  EXPECT_EQ(load(0, 0), O::l1);  // 0 MRU again, 8 LRU
  EXPECT_EQ(load(0, 4), O::l2);  // still in L2; refilling L1 evicts 8
  EXPECT_FALSE(m.in_l1(0, 8));
  EXPECT_TRUE(m.in_l1(0, 0));
  EXPECT_EQ(m.stats().events.l1_evictions, 2u);
}

TEST_F(CacheModelTest, WaysLinesFitInL2ButWaysPlusOneThrash) {
  // Lines 0, 8, 16, 24 (and 32) all map to L2 set 0, which has 4 ways.
  const std::vector<uint64_t> four = {0, 8, 16, 24};
  for (uint64_t l : four) EXPECT_EQ(load(0, l), O::dram_local);
  for (uint64_t l : four) EXPECT_EQ(load(0, l), O::l2) << l;  // L1 (2 ways) keeps only two

  CacheModel m5(CacheGeometry::tiny());
  const std::vector<uint64_t> five = {0, 8, 16, 24, 32};
  for (uint64_t l : five) EXPECT_EQ(m5.access(0, l, 0, AK::load), O::dram_local);
  // LRU order in L2 means each access evicts the very line needed next: all conflict misses,
  // served by the LLC that the L2 victims went to.
  for (int pass = 0; pass < 2; ++pass)
    for (uint64_t l : five) EXPECT_EQ(m5.access(0, l, 0, AK::load), O::llc_local) << l;
  EXPECT_EQ(m5.stats().events.l2_evictions, 11u);
  EXPECT_EQ(m5.check_invariants(), "");
}

TEST_F(CacheModelTest, LinesDemoteFromL1ToL2ToLlc) {
  load(0, 0);
  load(0, 4);
  load(0, 8);  // L1 set 0 now {8, 4}: 0 demoted to L2
  EXPECT_FALSE(m.in_l1(0, 0));
  EXPECT_TRUE(m.in_l2(0, 0));
  EXPECT_EQ(m.llc_state(0, 0), LS::I);
  for (uint64_t l : {16, 24, 32}) load(0, l);  // L2 set 0 was {8, 0}: 0 is now its LRU victim
  EXPECT_FALSE(m.in_l2(0, 0));
  EXPECT_EQ(m.llc_state(0, 0), LS::S);  // a clean victim fill into the non-inclusive LLC
  EXPECT_EQ(m.sharers(0, 0), 0u);
  // The LLC held the only copy: the core takes it over exclusively and the LLC lets it go.
  EXPECT_EQ(load(0, 0), O::llc_local);
  EXPECT_EQ(m.private_state(0, 0), LS::E);
  EXPECT_EQ(m.llc_state(0, 0), LS::I);
}

TEST_F(CacheModelTest, DirtyL1VictimLeavesItsStateInL2) {
  load(0, 0);   // E in L1 and L2
  store(0, 0);  // M in L1 and L2 (silent: no other copy)
  EXPECT_EQ(m.check_invariants(), "");  // I4: the L2 copy took the store's state at once
  load(0, 4);
  load(0, 8);   // 0 leaves L1
  EXPECT_FALSE(m.in_l1(0, 0));
  EXPECT_EQ(m.private_state(0, 0), LS::M);
  EXPECT_EQ(load(2, 0), O::hitm_local);
}

TEST(CacheModel, L2EvictionBackInvalidatesL1) {
  // L2 with fewer sets than L1, so a line can be L2's victim while still in L1.
  CacheGeometry g = CacheGeometry::tiny();
  g.l1d = {8, 2};
  g.l2 = {2, 4};
  CacheModel m(g);
  m.access(0, 0, 0, AK::store);  // M; L1 set 0, L2 set 0
  for (uint64_t l : {2, 4, 6}) m.access(0, l, 0, AK::load);
  EXPECT_TRUE(m.in_l1(0, 0));
  m.access(0, 8, 0, AK::load);  // L2 set 0 evicts its LRU, line 0
  EXPECT_FALSE(m.in_l2(0, 0));
  EXPECT_FALSE(m.in_l1(0, 0));                 // inclusion
  EXPECT_EQ(m.llc_state(0, 0), LineState::M);  // the dirty data went to the LLC
  EXPECT_EQ(m.check_invariants(), "");
}

TEST_F(CacheModelTest, SmtSiblingsShareTheirCoresCaches) {
  EXPECT_EQ(store(0, 300), O::dram_local);
  EXPECT_EQ(load(1, 300), O::l1);
  EXPECT_EQ(store(1, 300), O::l1);
  EXPECT_EQ(m.sharers(0, 300), 0b1u);
  EXPECT_EQ(m.stats().events.invalidations, 0u);
  EXPECT_EQ(load(2, 300), O::hitm_local);  // the other core of the socket is not a sibling
}

// ---------------------------------------------------------------- coherence

TEST_F(CacheModelTest, LoadOfALineModifiedInAnotherCoreIsAHitmThatDowngradesIt) {
  EXPECT_EQ(store(2, 200), O::dram_local);
  EXPECT_EQ(load(0, 200), O::hitm_local);
  EXPECT_EQ(m.private_state(0, 200), LS::S);
  EXPECT_EQ(m.private_state(2, 200), LS::S);
  EXPECT_EQ(m.sharers(0, 200), 0b11u);
  EXPECT_EQ(load(0, 200), O::l1);
  EXPECT_EQ(load(2, 200), O::l1);
  EXPECT_EQ(m.stats().events.downgrades, 1u);
  EXPECT_EQ(load(4, 200), O::llc_remote);  // clean copies in the other socket
}

TEST_F(CacheModelTest, CleanExclusiveCopyInAPeerIsServedInSocket) {
  EXPECT_EQ(load(2, 210), O::dram_local);
  EXPECT_EQ(load(0, 210), O::llc_local);
  EXPECT_EQ(m.private_state(2, 210), LS::S);
  EXPECT_EQ(m.private_state(0, 210), LS::S);
}

TEST_F(CacheModelTest, RemoteWriteInvalidatesReaderWhoThenHitsRemoteModified) {
  EXPECT_EQ(load(0, 100), O::dram_local);
  EXPECT_EQ(load(4, 100), O::llc_remote);  // cpu 0's E copy is demoted
  EXPECT_EQ(m.private_state(0, 100), LS::S);
  EXPECT_EQ(store(4, 100), O::llc_remote);  // an upgrade whose invalidation crosses sockets
  EXPECT_EQ(m.private_state(0, 100), LS::I);
  EXPECT_EQ(m.private_state(4, 100), LS::M);
  EXPECT_EQ(m.stats().events.upgrades, 1u);
  EXPECT_EQ(m.stats().events.invalidations, 1u);
  EXPECT_EQ(load(0, 100), O::hitm_remote);
}

TEST_F(CacheModelTest, LocalWriteInvalidatesReaderWhoThenHitsLocalModified) {
  load(0, 110);
  EXPECT_EQ(load(2, 110), O::llc_local);
  EXPECT_EQ(store(2, 110), O::llc_local);  // an upgrade inside the socket
  EXPECT_EQ(m.private_state(0, 110), LS::I);
  EXPECT_EQ(m.sharers(0, 110), 0b10u);
  EXPECT_EQ(load(0, 110), O::hitm_local);
}

TEST_F(CacheModelTest, WriteInvalidatesEveryOtherCopy) {
  load(0, 120);
  load(2, 120);
  load(4, 120);
  load(6, 120);  // four Shared copies, two per socket
  // cpu 1 is cpu 0's sibling: its core holds the line Shared in L1, so this is an upgrade
  // whose invalidations cross to socket 1.
  EXPECT_EQ(m.access(1, 120, 0, AK::rmw), O::llc_remote);
  EXPECT_EQ(m.stats().events.invalidations, 3u);
  EXPECT_EQ(m.sharers(1, 120), 0u);
  EXPECT_EQ(m.sharers(0, 120), 0b1u);
  EXPECT_EQ(m.private_state(1, 120), LS::M);
  // A write miss on a line Modified in the other socket: a remote HITM, one more invalidation.
  EXPECT_EQ(store(6, 120), O::hitm_remote);
  EXPECT_EQ(m.private_state(0, 120), LS::I);
  EXPECT_EQ(m.stats().contention(120)->invalidations, 4u);
  EXPECT_EQ(m.stats().contention(120)->hitm_remote, 1u);
}

TEST_F(CacheModelTest, UpgradeOutcomeSaysWhereTheInvalidationsWent) {
  load(0, 130);
  load(2, 130);
  EXPECT_EQ(store(0, 130), O::llc_local);
  load(4, 140);
  load(0, 140);
  EXPECT_EQ(store(0, 140), O::llc_remote);
}

TEST_F(CacheModelTest, DirtyLineInRemoteLlcIsARemoteHitm) {
  store(4, 0, 1);  // socket 1 owns line 0 Modified
  for (uint64_t l : {8, 16, 24, 32}) load(4, l, 1);  // push it from L2 into socket 1's LLC
  EXPECT_EQ(m.llc_state(1, 0), LS::M);
  EXPECT_EQ(load(0, 0, 1), O::hitm_remote);
  EXPECT_EQ(m.llc_state(1, 0), LS::S);  // cleaned by the transfer
  EXPECT_EQ(m.private_state(0, 0), LS::S);
}

TEST_F(CacheModelTest, DramLocalityFollowsTheHomeNode) {
  EXPECT_EQ(load(0, 1, 0), O::dram_local);
  EXPECT_EQ(load(0, 2, 1), O::dram_remote);
  EXPECT_EQ(load(4, 3, 1), O::dram_local);
  EXPECT_EQ(load(4, 5, 0), O::dram_remote);
  EXPECT_EQ(m.stats().sum({.home = Home::remote}), 2u);
  EXPECT_EQ(m.stats().sum({.outcome = O::dram_remote}), 2u);
}

TEST_F(CacheModelTest, PrefetchFillsButIsNeverADemandMiss) {
  EXPECT_EQ(m.access(0, 400, 0, AK::prefetch), O::prefetch);
  EXPECT_EQ(load(0, 400), O::l1);
  EXPECT_EQ(m.stats().sum({.outcome = O::dram_local}), 0u);
  EXPECT_EQ(m.stats().sum({.outcome = O::prefetch}), 1u);
  EXPECT_EQ(m.stats().events.prefetch_served[static_cast<unsigned>(O::dram_local)], 1u);
  store(2, 410);
  EXPECT_EQ(m.access(0, 410, 0, AK::prefetch), O::prefetch);  // reads like a load
  EXPECT_EQ(m.private_state(2, 410), LS::S);
  EXPECT_EQ(m.stats().sum({.outcome = O::hitm_local}), 0u);
}

TEST(CacheModel, SnoopFilterEvictionBackInvalidates) {
  CacheGeometry g = CacheGeometry::tiny();
  g.snoop_filter = {1, 2};
  CacheModel m(g);
  m.access(0, 0, 0, AK::load);
  m.access(2, 1, 0, AK::load);
  m.access(2, 0, 0, AK::load);  // refreshes 0: line 1 is now the filter's LRU
  m.access(0, 2, 0, AK::load);  // no room: line 1 is evicted, core 1's copy with it
  EXPECT_EQ(m.stats().events.sf_evictions, 1u);
  EXPECT_EQ(m.stats().events.back_invalidations, 1u);
  EXPECT_FALSE(m.in_l2(2, 1));
  EXPECT_EQ(m.llc_state(0, 1), LineState::S);
  EXPECT_EQ(m.access(2, 1, 0, AK::load), Outcome::llc_local);
  EXPECT_EQ(m.check_invariants(), "");
}

// MESI keeps dirty data dirty wherever it moves. A core that takes over the socket's only LLC
// copy of a Modified line holds it Modified (another core's load is then a HITM); a snoop
// filter eviction that back-invalidates a Modified private copy writes it into the LLC
// dirty (a load from the other socket is then a remote HITM).
TEST(CacheModel, DirtyLinesStayModifiedThroughTakeoverAndBackInvalidation) {
  {
    CacheGeometry g = CacheGeometry::tiny();
    g.l1d = {8, 2};
    g.l2 = {2, 4};  // as in L2EvictionBackInvalidatesL1: line 0 leaves L2 while dirty
    CacheModel m(g);
    m.access(0, 0, 0, AK::store);
    for (uint64_t l : {2, 4, 6, 8}) m.access(0, l, 0, AK::load);
    ASSERT_EQ(m.llc_state(0, 0), LineState::M);
    EXPECT_EQ(m.access(0, 0, 0, AK::load), Outcome::llc_local);
    EXPECT_EQ(m.llc_state(0, 0), LineState::I) << "the core took the only copy over";
    EXPECT_EQ(m.private_state(0, 0), LineState::M);
    EXPECT_EQ(m.access(2, 0, 0, AK::load), Outcome::hitm_local);
    EXPECT_EQ(m.check_invariants(), "");
  }
  {
    CacheGeometry g = CacheGeometry::tiny();
    g.snoop_filter = {1, 2};
    CacheModel m(g);
    m.access(0, 0, 0, AK::load);
    m.access(2, 1, 0, AK::store);  // Modified in core 1
    m.access(2, 0, 0, AK::load);   // line 1 is now the filter's LRU
    m.access(0, 2, 0, AK::load);   // evicts line 1's entry: core 1's dirty copy goes to the LLC
    ASSERT_EQ(m.stats().events.back_invalidations, 1u);
    EXPECT_EQ(m.llc_state(0, 1), LineState::M);
    EXPECT_EQ(m.access(4, 1, 0, AK::load), Outcome::hitm_remote);
    EXPECT_EQ(m.check_invariants(), "");
  }
}

// ---------------------------------------------------------------- bulk operations

TEST_F(CacheModelTest, FlushAllEmptiesCachesAndKeepsStats) {
  store(0, 1);
  load(4, 2, 1);
  m.flush_all();
  EXPECT_EQ(m.private_state(0, 1), LS::I);
  EXPECT_EQ(m.sharers(0, 1), 0u);
  EXPECT_EQ(load(0, 1), O::dram_local);
  EXPECT_EQ(load(4, 2, 1), O::dram_local);
  EXPECT_EQ(m.stats().sum({.outcome = O::dram_local}), 4u);
}

TEST_F(CacheModelTest, EvictRangeDropsOnlyThoseLines) {
  for (uint64_t l = 0; l < 6; ++l) load(0, l);
  load(4, 3);
  m.evict_range(2, 3);
  EXPECT_EQ(load(0, 1), O::l1);
  for (uint64_t l = 2; l < 5; ++l) EXPECT_EQ(load(0, l), O::dram_local) << l;
  EXPECT_EQ(load(0, 5), O::l1);
}

// ---------------------------------------------------------------- statistics

TEST_F(CacheModelTest, StatisticsFollowTheAttribution) {
  const Attribution under_lock{Site::rmqueue_bulk, LockContext::zone_lock, LineKind::struct_page};
  m.access(0, 7, 1, AK::load, under_lock);
  m.access(2, 7, 1, AK::store, under_lock);
  m.access(0, 7, 1, AK::load, {Site::rmqueue_pcplist, LockContext::irq_off, LineKind::struct_page});
  const CacheStats& s = m.stats();
  EXPECT_EQ(s.count(O::dram_remote, LineKind::struct_page, Site::rmqueue_bulk, LockContext::zone_lock, Home::remote), 1u);
  EXPECT_EQ(s.count(O::llc_local, LineKind::struct_page, Site::rmqueue_bulk, LockContext::zone_lock, Home::remote), 1u);
  EXPECT_EQ(s.sum({.ctx = LockContext::zone_lock}), 2u);
  EXPECT_EQ(s.sum({.outcome = O::hitm_local, .site = Site::rmqueue_pcplist}), 1u);
  EXPECT_EQ(s.invalidations_sent({.site = Site::rmqueue_bulk}), 1u);
  EXPECT_EQ(s.sum(), 3u);
}

TEST_F(CacheModelTest, TopLinesOrderByContentionThenLine) {
  auto ping = [&](uint64_t line, int times) {
    for (int i = 0; i < times; ++i) {
      store(0, line);
      load(2, line);  // one HITM each round; the next store invalidates one copy
    }
  };
  ping(50, 2);  // 2 HITMs + 1 invalidation = 3
  ping(30, 2);  // 3
  ping(90, 1);  // 1
  std::vector<uint64_t> named;
  auto top = m.stats().top_lines(2, [&](uint64_t l) {
    named.push_back(l);
    return "line " + std::to_string(l);
  });
  ASSERT_EQ(top.size(), 2u);
  EXPECT_EQ(top[0].line, 30u);
  EXPECT_EQ(top[1].line, 50u);
  EXPECT_EQ(top[0].name, "line 30");
  EXPECT_EQ(top[0].counts.hitm_local, 2u);
  EXPECT_EQ(top[0].counts.invalidations, 1u);
  EXPECT_EQ(named, (std::vector<uint64_t>{30, 50}));
  EXPECT_EQ(m.stats().top_lines(10).size(), 3u);
}

// A model that drops per-line contention serves and counts every access as one that keeps it;
// only top_lines() and contention() are empty, also after take_stats() and merge().
TEST(CacheModelPerLine, DroppingPerLineContentionChangesNoOtherCount) {
  CacheModel kept(CacheGeometry::tiny());
  CacheModel dropped(CacheGeometry::tiny(), PerLineContention::dropped);
  Rng rng{7};
  for (int i = 0; i < 20000; ++i) {
    const unsigned cpu = static_cast<unsigned>(rng.below(8));
    const uint64_t line = rng.below(48);
    const AK kind = rng.below(3) ? AK::load : AK::store;
    ASSERT_EQ(kept.access(cpu, line, line % 2, kind), dropped.access(cpu, line, line % 2, kind)) << i;
  }
  ASSERT_GT(kept.stats().events.invalidations, 0u);
  ASSERT_FALSE(kept.stats().top_lines(1).empty());
  EXPECT_EQ(dropped.stats().sum(), kept.stats().sum());
  EXPECT_EQ(dropped.stats().events, kept.stats().events);
  EXPECT_EQ(dropped.stats().invalidations_sent(), kept.stats().invalidations_sent());
  EXPECT_TRUE(dropped.stats().top_lines(10).empty());
  EXPECT_EQ(dropped.stats().contention(kept.stats().top_lines(1)[0].line), nullptr);

  CacheStats taken = dropped.take_stats();
  EXPECT_EQ(dropped.stats().per_line(), PerLineContention::dropped);
  taken.merge(kept.stats());
  EXPECT_EQ(taken.sum(), 2 * kept.stats().sum());
  EXPECT_TRUE(taken.top_lines(10).empty());
}

TEST_F(CacheModelTest, MergeAddsEverything) {
  store(0, 1);
  load(4, 1);
  const CacheStats a = m.stats();
  CacheStats twice = a;
  twice.merge(a);
  EXPECT_EQ(twice.sum(), 2 * a.sum());
  EXPECT_EQ(twice.events.downgrades, 2 * a.events.downgrades);
  EXPECT_EQ(twice.contention(1)->hitm_remote, 2u);
  CacheStats empty;
  empty += a;
  EXPECT_EQ(empty, a);
  EXPECT_EQ(m.take_stats(), a);
  EXPECT_EQ(m.stats().sum(), 0u);
  EXPECT_EQ(load(4, 1), O::l1);  // contents survive take_stats
}

// ---------------------------------------------------------------- replay

TimedAccess at(uint64_t tsc, uint64_t line, AK kind) {
  return {.tsc = tsc, .line = line, .node = 0, .kind = kind};
}

TEST(CacheReplay, MergesLogsByTimestampNotByCpu) {
  std::vector<std::vector<TimedAccess>> logs(8);
  logs[0] = {at(10, 500, AK::store)};
  logs[4] = {at(5, 500, AK::load)};
  CacheModel m(CacheGeometry::tiny());
  m.replay(logs);  // cpu 4 reads first, then cpu 0's write invalidates it
  EXPECT_EQ(m.stats().sum({.outcome = O::dram_remote}), 1u);
  EXPECT_EQ(m.stats().sum({.outcome = O::llc_remote}), 1u);

  logs[4][0].tsc = 20;
  CacheModel later(CacheGeometry::tiny());
  later.replay(logs);  // now cpu 0 writes first and cpu 4 hits it Modified
  EXPECT_EQ(later.stats().sum({.outcome = O::dram_local}), 1u);
  EXPECT_EQ(later.stats().sum({.outcome = O::hitm_remote}), 1u);
}

TEST(CacheReplay, EqualTimestampsGoToTheLowerCpuFirst) {
  std::vector<std::vector<TimedAccess>> logs(8);
  logs[0] = {at(7, 9, AK::store)};
  logs[6] = {at(7, 9, AK::store)};
  CacheModel m(CacheGeometry::tiny());
  m.replay(logs);
  EXPECT_EQ(m.private_state(6, 9), LineState::M);
  EXPECT_EQ(m.stats().sum({.outcome = O::hitm_remote}), 1u);
}

TEST(CacheReplay, InterleavesRunsExactlyAsDirectAccesses) {
  std::vector<std::vector<TimedAccess>> logs(8);
  logs[0] = {at(1, 9, AK::store), at(2, 9, AK::store), at(3, 9, AK::store), at(10, 9, AK::store)};
  logs[4] = {at(4, 9, AK::store), at(5, 9, AK::store)};
  CacheModel replayed(CacheGeometry::tiny());
  replayed.replay(logs);
  CacheModel direct(CacheGeometry::tiny());
  for (unsigned cpu : {0, 0, 0, 4, 4, 0}) direct.access(cpu, 9, 0, AK::store);
  EXPECT_EQ(replayed.stats(), direct.stats());
  EXPECT_EQ(replayed.stats().sum({.outcome = O::hitm_remote}), 2u);
  EXPECT_EQ(replayed.stats().sum({.outcome = O::l1}), 3u);
}

TEST(CacheReplay, RejectsMoreLogsThanCpus) {
  CacheModel m(CacheGeometry::tiny());
  std::vector<std::vector<TimedAccess>> logs(9);
  EXPECT_THROW(m.replay(logs), ModelError);
}

std::vector<std::vector<TimedAccess>> random_logs(uint64_t seed, unsigned cpus, size_t n) {
  Rng rng{seed};
  std::vector<std::vector<TimedAccess>> logs(cpus);
  for (unsigned c = 0; c < cpus; ++c) {
    uint64_t tsc = 0;
    for (size_t i = 0; i < n; ++i) {
      tsc += 1 + rng.below(4);  // collisions across CPUs exercise the tie rule
      logs[c].push_back({.tsc = tsc,
                         .line = rng.below(96),
                         .node = static_cast<uint16_t>(rng.below(2)),
                         .kind = static_cast<AK>(rng.below(4)),
                         .site = static_cast<Site>(rng.below(kNumSites)),
                         .ctx = static_cast<LockContext>(rng.below(kNumLockContexts)),
                         .line_kind = static_cast<LineKind>(rng.below(kNumLineKinds))});
    }
  }
  return logs;
}

TEST(CacheReplay, IsDeterministic) {
  const auto logs = random_logs(42, 8, 3000);
  CacheModel a(CacheGeometry::tiny()), b(CacheGeometry::tiny());
  a.replay(logs);
  b.replay(logs);
  EXPECT_EQ(a.stats(), b.stats());
  EXPECT_EQ(a.stats().sum(), 8u * 3000);
  const auto ta = a.stats().top_lines(5), tb = b.stats().top_lines(5);
  ASSERT_EQ(ta.size(), tb.size());
  for (size_t i = 0; i < ta.size(); ++i) EXPECT_EQ(ta[i].line, tb[i].line);
  EXPECT_GT(a.stats().sum({.outcome = O::hitm_remote}), 0u);
  EXPECT_EQ(a.check_invariants(), "");
}

// ---------------------------------------------------------------- invariants under load

TEST(CacheModel, InvariantsHoldUnderRandomTrafficWithATinySnoopFilter) {
  CacheGeometry g = CacheGeometry::tiny();
  g.snoop_filter = {4, 2};  // far smaller than the private caches: constant back-invalidation
  g.hash_shared_index = true;
  CacheModel m(g);
  Rng rng{7};
  for (int i = 0; i < 20000; ++i) {
    m.access(static_cast<unsigned>(rng.below(8)), rng.below(200), static_cast<uint16_t>(rng.below(2)),
             static_cast<AK>(rng.below(4)));
    if (i % 500 == 0) {
      ASSERT_EQ(m.check_invariants(), "") << "after access " << i;
    }
  }
  EXPECT_GT(m.stats().events.back_invalidations, 0u);
  EXPECT_GT(m.stats().events.llc_evictions, 0u);
  EXPECT_EQ(m.check_invariants(), "");
}

TEST(CacheModel, LinesOfDifferentRegionsWithTheSameOffsetStayApart) {
  CacheModel m(CacheGeometry::icelake_8358());
  const uint64_t kRegion = uint64_t{1} << 26;  // the model renumbers lines region by region
  std::vector<uint64_t> lines;
  for (uint64_t r = 0; r < 15; ++r) lines.push_back((r * 3 + 1) * kRegion + 77);  // one L1 and L2 set
  for (uint64_t line : lines) EXPECT_EQ(m.access(0, line, 0, AK::load), O::dram_local);
  for (uint64_t line : lines) EXPECT_EQ(m.private_state(0, line), LS::E) << line;
  // A store elsewhere to one of them takes only that one away from cpu 0.
  EXPECT_EQ(m.access(64, lines[3], 0, AK::store), O::llc_remote);  // cpu 64: socket 1
  for (uint64_t line : lines) EXPECT_EQ(m.private_state(0, line), line == lines[3] ? LS::I : LS::E) << line;
  EXPECT_EQ(m.check_invariants(), "");
  // A 16th region is refused; a line of a region never seen is in no cache.
  EXPECT_EQ(m.private_state(0, 100 * kRegion), LS::I);
  EXPECT_EQ(m.llc_state(0, 100 * kRegion), LS::I);
  EXPECT_THROW(m.access(0, 100 * kRegion, 0, AK::load), ModelError);
}

TEST(CacheModel, InvariantsHoldOnTheIceLakeGeometry) {
  CacheModel m(CacheGeometry::icelake_8358());
  Rng rng{11};
  for (int i = 0; i < 50000; ++i)
    m.access(static_cast<unsigned>(rng.below(128)), rng.below(1u << 14),
             static_cast<uint16_t>(rng.below(2)), static_cast<AK>(rng.below(4)));
  EXPECT_EQ(m.check_invariants(), "");
  EXPECT_GT(m.stats().sum({.outcome = O::hitm_local}), 0u);
  EXPECT_GT(m.stats().sum({.outcome = O::hitm_remote}), 0u);
}

TEST(CacheModel, PrefetchHintsChangeNothing) {
  // Two models, the same traffic (struct-page-like walks by random CPUs); one is given the
  // host hints before every access, some of them out of range.
  CacheModel hinted(CacheGeometry::icelake_8358()), plain(CacheGeometry::icelake_8358());
  Rng rng{5};
  for (int walk = 0; walk < 400; ++walk) {
    const auto cpu = static_cast<unsigned>(rng.below(4));  // two cores
    const uint64_t first = rng.below(1u << 16) * 1024;     // L2 sets 0-63 only: victims galore
    const auto kind = static_cast<AK>(rng.below(3));
    for (uint64_t i = 0; i < 64; ++i) {
      hinted.prefetch_sets(cpu, first + i + 8);
      hinted.prefetch_victim(cpu, first + i + 4);
      hinted.prefetch_victim(1000, first + i);  // no such CPU: ignored
      ASSERT_EQ(hinted.access(cpu, first + i, 0, kind), plain.access(cpu, first + i, 0, kind)) << walk << " " << i;
    }
  }
  EXPECT_TRUE(hinted.stats() == plain.stats());
  EXPECT_GT(plain.stats().events.l2_evictions, 0u);
  EXPECT_EQ(hinted.check_invariants(), "");
}

}  // namespace
}  // namespace pagesim::cache
