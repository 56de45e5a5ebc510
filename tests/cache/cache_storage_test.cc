// The cache model's storage helpers (sim/cache, internal): the SIMD way matcher and LRU moves,
// an LRU set's erase, the snoop filter's slot-indirect masks, and the line renumbering.
#include <cstring>
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "entries.h"
#include "line_ids.h"
#include "lru_array.h"
#include "pagesim/error.h"
#include "sf_array.h"
#include "way_match.h"

namespace pagesim::cache::internal {
namespace {

// What match_ways must return, way by way.
uint64_t match_ways_slowly(const uint32_t* ways, unsigned n, uint32_t key, uint32_t mask) {
  uint64_t hits = 0;
  for (unsigned w = 0; w < n; ++w)
    if ((ways[w] & mask) == key) hits |= uint64_t{1} << w;
  return hits;
}

TEST(MatchWays, AgreesWithAWayByWayScanForEveryWidth) {
  std::vector<uint32_t> ways(64 + 15);  // match_ways may read 60 bytes past the last way
  for (unsigned n = 1; n <= 64; ++n) {
    for (unsigned i = 0; i < ways.size(); ++i) ways[i] = (i * 7 + n) % 5 << 2 | (i & 3);  // keys 0..16, states 0..3
    for (uint32_t key = 0; key <= 16; key += 4) {
      EXPECT_EQ(match_ways(ways.data(), n, key, ~uint32_t{3}), match_ways_slowly(ways.data(), n, key, ~uint32_t{3}))
          << "n " << n << " key " << key;
      EXPECT_EQ(match_ways(ways.data(), n, key, ~uint32_t{0}), match_ways_slowly(ways.data(), n, key, ~uint32_t{0}))
          << "n " << n << " key " << key;
    }
  }
  // Ways past n never match, even when they hold the key.
  ways.assign(ways.size(), 8);
  EXPECT_EQ(match_ways(ways.data(), 5, 8, ~uint32_t{0}), 0x1fu);
  EXPECT_EQ(match_ways(ways.data(), 12, 8, ~uint32_t{0}), 0xfffu);  // three compares, the third's lanes twice
  EXPECT_EQ(first_way(ways.data(), 0, 8, ~uint32_t{0}), -1);
}

template <class T>
void expect_shifts_match_a_loop() {
  for (unsigned n = 0; n <= 40; ++n) {
    std::vector<T> fast(48), slow(48);
    for (unsigned i = 0; i < fast.size(); ++i) fast[i] = slow[i] = static_cast<T>(i * 37 + 1);
    shift_up_one(fast.data(), n);
    for (unsigned i = n; i > 0; --i) slow[i] = slow[i - 1];
    EXPECT_EQ(fast, slow) << "up, n " << n << " item " << sizeof(T) << " bytes";
    shift_down_one(fast.data(), n);
    for (unsigned i = 0; i < n; ++i) slow[i] = slow[i + 1];
    EXPECT_EQ(fast, slow) << "down, n " << n << " item " << sizeof(T) << " bytes";
  }
}

TEST(ShiftOne, MovesExactlyNItemsEitherWayForEveryWidth) {
  expect_shifts_match_a_loop<uint32_t>();  // tags and snoop-filter keys
  expect_shifts_match_a_loop<uint8_t>();   // snoop-filter slots
}

TEST(LruArray, EraseKeepsTheOrderAndEmptiesTheTail) {
  LruArray<TagEntry> a(1, CacheLevel{1, 20}, false);
  TagEntry* s = a.set(0, 0);
  for (uint32_t id = 1; id <= 7; ++id) EXPECT_FALSE(a.insert(s, TagEntry(id, LineState::S)).valid());
  // MRU first: 7 6 5 4 3 2 1. Erase 5, then the LRU line 1, then the MRU line 7.
  for (uint32_t id : {5u, 1u, 7u}) a.erase(s, a.find(s, id));
  const uint32_t left[] = {6, 4, 3, 2};
  for (unsigned w = 0; w < 20; ++w) {
    EXPECT_EQ(s[w].valid(), w < 4) << "way " << w;
    if (w < 4) {
      EXPECT_EQ(s[w].id(), left[w]) << "way " << w;
    }
  }
}

TEST(SfArray, SharersFollowTheirLinesThroughLruMoves) {
  SfArray a(1, CacheLevel{1, 4}, false);
  const SfArray::Set s = a.set(0, 0);
  for (uint32_t id = 1; id <= 4; ++id) EXPECT_FALSE(a.insert(s, id, id).valid());
  // Line 3 gains sharers 0 and 5, then loses 3: a mask slot, kept while it has two.
  a.set_sharers(s, a.find(s, 3), 0b101001);
  a.set_sharers(s, a.find(s, 3), 0b100001);
  // MRU first: 4 3 2 1. Touch 2, erase 3: 2 4 1, and 3's slot is free again.
  a.touch(s, a.find(s, 2));
  EXPECT_EQ(a.sharers(s, a.find(s, 3)), 0b100001u);
  a.erase(s, a.find(s, 3));
  EXPECT_EQ(a.find(s, 2), 0);
  EXPECT_EQ(a.find(s, 4), 1);
  EXPECT_EQ(a.find(s, 1), 2);
  EXPECT_EQ(a.find(s, 3), -1);
  EXPECT_EQ(a.check_set(0), "");
  for (uint32_t id : {1u, 2u, 4u}) EXPECT_EQ(a.sharers(s, a.find(s, id)), uint64_t{1} << id) << id;
  // The freed way takes 5; line 1 gets a second sharer; then 6 pushes out the LRU line, 1,
  // with its mask, and frees the slot.
  EXPECT_FALSE(a.insert(s, 5, 5).valid());
  a.set_sharers(s, a.find(s, 1), (uint64_t{1} << 63) | 0b10);
  const SfArray::Entry victim = a.insert(s, 6, 6);
  EXPECT_EQ(victim.id(), 1u);
  EXPECT_EQ(victim.sharers, (uint64_t{1} << 63) | 0b10);
  EXPECT_EQ(a.check_set(0), "");
  for (uint32_t id : {2u, 4u, 5u, 6u}) EXPECT_EQ(a.sharers(s, a.find(s, id)), uint64_t{1} << id) << id;
}

TEST(SfArray, EveryWayCanHoldASharedLineAtOnce) {
  SfArray a(1, CacheLevel{1, 12}, false);
  const SfArray::Set s = a.set(0, 0);
  for (uint32_t id = 1; id <= 12; ++id) {
    a.insert(s, id, 0);
    a.set_sharers(s, 0, uint64_t{id} << 1 | 1);  // core 0 and the bits of id
  }
  EXPECT_EQ(a.check_set(0), "");
  for (uint32_t id = 1; id <= 12; ++id) EXPECT_EQ(a.sharers(s, a.find(s, id)), uint64_t{id} << 1 | 1) << id;
  // Back to one sharer each: every slot is free again, and a corrupted one is reported.
  for (uint32_t id = 1; id <= 12; ++id) a.set_sharers(s, a.find(s, id), uint64_t{1} << 40);
  EXPECT_EQ(a.check_set(0), "");
  s.masks[3] = 1;
  EXPECT_EQ(a.check_set(0), "slot 3 is named by no way but not free");
  s.masks[3] = 0;
  // Two lines in one slot, near or far; then clear() frees every slot.
  a.set_sharers(s, 0, 0b11);    // the near slot
  a.set_sharers(s, 1, 0b101);   // far slot 0
  a.set_sharers(s, 2, 0b1001);  // far slot 1
  EXPECT_EQ(a.check_set(0), "");
  const uint8_t near = s.who[0], far0 = s.who[1], far1 = s.who[2];
  EXPECT_EQ(near, SfArray::kNearSlot);
  EXPECT_EQ(far0, kMaxCoresPerSocket);
  s.who[1] = near;
  EXPECT_EQ(a.check_set(0), "way 1 names the near slot wrongly");
  s.who[1] = far0;
  s.who[2] = far0;
  EXPECT_EQ(a.check_set(0), "way 2 names slot 0 wrongly");
  s.who[2] = far1;
  a.clear();
  EXPECT_EQ(a.check_set(0), "");
  for (unsigned k = 0; k < 12; ++k) EXPECT_EQ(s.masks[k], 0u) << k;
  EXPECT_EQ(a.near_mask(s), 0u);
}

// The near slot, in the keys' host line, serves the set's first shared line whose sharers are
// below core 32; a mask that does not fit goes to a far slot, and so does a near line's mask
// that grows past core 31, freeing the near slot.
TEST(SfArray, TheNearSlotServesOneSharedLinePerSet) {
  EXPECT_TRUE(SfArray::has_near_slot(CacheLevel{1, 12}));   // 60 bytes of 64
  EXPECT_FALSE(SfArray::has_near_slot(CacheLevel{1, 64}));  // 320 bytes, 5 whole lines
  SfArray a(1, CacheLevel{1, 12}, false);
  const SfArray::Set s = a.set(0, 0);
  for (uint32_t id = 1; id <= 3; ++id) a.insert(s, id, 0);  // MRU first: 3 2 1
  a.set_sharers(s, a.find(s, 1), (uint64_t{1} << 40) | 1);   // does not fit: far
  a.set_sharers(s, a.find(s, 2), 0b110);                     // near
  a.set_sharers(s, a.find(s, 3), 0b1010);                    // near taken: far
  EXPECT_EQ(s.who[a.find(s, 2)], SfArray::kNearSlot);
  EXPECT_EQ(a.near_mask(s), 0b110u);
  EXPECT_EQ(a.check_set(0), "");
  // LRU moves carry the byte, not the mask: line 2 keeps the near slot wherever it goes.
  a.touch(s, a.find(s, 1));
  EXPECT_EQ(a.sharers(s, a.find(s, 2)), 0b110u);
  // Line 2 grows past core 31: a far slot, and the near one is free until a line asks for a
  // slot (line 3 keeps the far slot it has).
  a.set_sharers(s, a.find(s, 2), (uint64_t{1} << 33) | 0b110);
  EXPECT_GE(s.who[a.find(s, 2)], kMaxCoresPerSocket);
  EXPECT_NE(s.who[a.find(s, 2)], SfArray::kNearSlot);
  EXPECT_EQ(a.near_mask(s), 0u);
  EXPECT_EQ(a.sharers(s, a.find(s, 2)), (uint64_t{1} << 33) | 0b110);
  EXPECT_EQ(a.check_set(0), "");
  a.insert(s, 4, 5);
  a.set_sharers(s, a.find(s, 4), 0b100001);  // takes the freed near slot
  EXPECT_EQ(s.who[a.find(s, 4)], SfArray::kNearSlot);
  // Erasing the near line frees the slot; a stray near mask is reported.
  a.erase(s, a.find(s, 4));
  EXPECT_EQ(a.near_mask(s), 0u);
  EXPECT_EQ(a.check_set(0), "");
  const uint32_t stray = 0b11;
  std::memcpy(s.who + 12, &stray, sizeof stray);
  EXPECT_EQ(a.check_set(0), "the near slot is named by no way but not free");
}

TEST(LineIds, RenumbersFifteenRegionsAndRefusesASixteenth) {
  LineIds ids;
  const uint64_t kRegion = uint64_t{1} << LineIds::kChunkBits;
  for (uint64_t r = 0; r < LineIds::kChunks; ++r) {
    const uint64_t line = (0x3ffffa8000000000ull >> 6) + r * 7 * kRegion + r;  // spread over 2^62
    const uint32_t id = ids.id(line);
    EXPECT_NE(id, 0u);
    EXPECT_LT(id, uint32_t{1} << LineIds::kIdBits);
    EXPECT_EQ(ids.line(id), line);
    EXPECT_EQ(ids.find(line), id);
    EXPECT_EQ(ids.id(line + 1), id + 1);  // neighbours stay neighbours
  }
  EXPECT_FALSE(ids.find(5).has_value());
  EXPECT_THROW(ids.id(5), ModelError);
}

}  // namespace
}  // namespace pagesim::cache::internal
