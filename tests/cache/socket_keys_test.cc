// Two-byte socket keys (sim/cache/socket_keys.h): a key and its set index give back the id,
// and a model that stores them gives the same outcomes, counters and state as one with
// four-byte keys on the robot's geometry.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "line_ids.h"
#include "lru_array.h"
#include "pagesim/cache/cache_model.h"
#include "socket_keys.h"

namespace pagesim::cache::internal {
namespace {

// splitmix64: the same numbers everywhere.
struct Rng {
  uint64_t s;
  uint64_t next() {
    uint64_t z = (s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }
};

// Chunks of 2^26 lines far apart, as the memmap, a data region and a lock page are.
constexpr uint64_t kChunkBases[] = {0x3ffffa8000000000ull >> 6, uint64_t{5} << 26, uint64_t{1} << 40};

// A line in chunk c whose hashed 2^16-set index is `set`: its top bits are free, and its low 16
// bits undo the fold (SetIndex: line ^ line >> 16 ^ line >> 32).
uint64_t line_in_set(unsigned c, uint64_t top, uint32_t set) {
  const uint64_t hi = (kChunkBases[c] >> 16) + top;
  return hi << 16 | ((set ^ hi ^ (hi >> 16)) & 0xffff);
}

TEST(SocketKeys, AKeyAndItsSetGiveBackTheId) {
  const CacheGeometry g = CacheGeometry::icelake_8358();
  LineIds ids;
  const SocketKeys keys = SocketKeys::fitted(g, &ids, true);
  ASSERT_TRUE(keys.two_bytes());
  const SetIndex index(g.llc.sets, g.hash_shared_index);
  Rng rng{7};
  for (int i = 0; i < 100000; ++i) {
    const unsigned c = static_cast<unsigned>(rng.next() % 3);
    const uint64_t line = kChunkBases[c] + (rng.next() & ((uint64_t{1} << 26) - 1));
    const uint32_t id = ids.id(line);
    const uint32_t key = keys.key(id);
    ASSERT_LT(key, 1u << 14) << line;
    ASSERT_GT(key, 0u) << line;
    ASSERT_EQ(keys.id(key, index(line)), id) << line;
  }
}

TEST(SocketKeys, FourBytesWhereTwoCannotNameALine) {
  LineIds ids;
  CacheGeometry g = CacheGeometry::icelake_8358();
  EXPECT_FALSE(SocketKeys::fitted(g, &ids, false).two_bytes());
  EXPECT_FALSE(SocketKeys::fitted(CacheGeometry::tiny(), &ids, true).two_bytes());  // 16 sets
  g.llc.sets = g.snoop_filter.sets = 1u << 15;  // a 15-bit key and a state need 17 bits
  EXPECT_FALSE(SocketKeys::fitted(g, &ids, true).two_bytes());
  g = CacheGeometry::icelake_8358();
  g.hash_shared_index = false;  // fitted() asks for the folded index
  EXPECT_FALSE(SocketKeys::fitted(g, &ids, true).two_bytes());
  g = CacheGeometry::icelake_8358();
  g.llc.sets = g.snoop_filter.sets = 1u << 17;
  EXPECT_TRUE(SocketKeys::fitted(g, &ids, true).two_bytes());
}

// Random loads, stores, RMWs and prefetches by 128 CPUs on 256 lines in 4 LLC sets of 3
// chunks: the sets overflow (LLC evictions, snoop-filter back-invalidations), and lines gain
// and lose sharers. Both models must agree on every outcome and end in the same state.
TEST(SocketKeys, TwoByteKeysChangeNoOutcome) {
#if defined(__SANITIZE_ADDRESS__)
  constexpr int kAccesses = 20000;
#else
  constexpr int kAccesses = 200000;
#endif
  const CacheGeometry g = CacheGeometry::icelake_8358();
  CacheModel two(g, PerLineContention::kept, true), four(g, PerLineContention::kept, false);
  std::vector<uint64_t> lines;
  for (uint64_t top = 0; top < 64; ++top)
    for (uint32_t set : {3u, 4096u, 40000u, 65535u}) lines.push_back(line_in_set(static_cast<unsigned>(top % 3), top, set));
  Rng rng{11};
  for (int i = 0; i < kAccesses; ++i) {
    const unsigned cpu = static_cast<unsigned>(rng.next() % g.cpus());
    const uint64_t line = lines[rng.next() % lines.size()];
    const uint16_t home = static_cast<uint16_t>(rng.next() % 2);
    const unsigned r = static_cast<unsigned>(rng.next() % 20);
    const AccessKind kind = r < 12 ? AccessKind::load : r < 17 ? AccessKind::store : r < 19 ? AccessKind::rmw : AccessKind::prefetch;
    ASSERT_EQ(two.access(cpu, line, home, kind), four.access(cpu, line, home, kind)) << "access " << i;
  }
  EXPECT_EQ(two.check_invariants(), "");
  EXPECT_EQ(four.check_invariants(), "");
  const auto& a = two.stats().events;
  const auto& b = four.stats().events;
  EXPECT_EQ(a.llc_evictions, b.llc_evictions);
  EXPECT_GT(a.llc_evictions, 0u);
  EXPECT_EQ(a.sf_evictions, b.sf_evictions);
  EXPECT_GT(a.sf_evictions, 0u);
  EXPECT_EQ(a.back_invalidations, b.back_invalidations);
  EXPECT_EQ(a.invalidations, b.invalidations);
  EXPECT_EQ(a.downgrades, b.downgrades);
  for (uint64_t line : lines)
    for (unsigned s = 0; s < g.sockets; ++s) {
      EXPECT_EQ(two.llc_state(s, line), four.llc_state(s, line)) << line;
      EXPECT_EQ(two.sharers(s, line), four.sharers(s, line)) << line;
    }
}

}  // namespace
}  // namespace pagesim::cache::internal
