// The snoop filters' storage: per set, the line keys in exact-LRU order, then the keys'
// sharer masks. Internal to pagesim_cache.
//
// A lookup reads only the keys: a 12-way set is 12 x 4-byte keys plus 12 one-byte slot
// numbers, one 64-byte host line, followed by the set's 12 masks. The 8-byte sharer masks stay
// where they are when the keys move (each key carries the slot of its mask), so an LRU update
// shifts 60 bytes and writes one mask. Same policy as LruArray: MRU first, invalid keys at
// the tail, an insert drops the last key.
#pragma once

#include <cstdint>
#include <cstring>

#include "lru_array.h"
#include "pagesim/cache/geometry.h"
#include "pagesim/huge_region.h"
#include "way_match.h"

namespace pagesim::cache::internal {

class SfArray {
 public:
  // One set: ways keys (the line's id; 0 is empty), then ways slot numbers, then the set's masks.
  struct Set {
    uint32_t* keys;
    uint8_t* slots;
    uint64_t* masks;  // indexed by slot
  };
  // An entry as a value: the victim of an insert, or an entry read for the invariants.
  struct Entry {
    uint32_t line_id = 0;
    uint64_t sharers = 0;  // bit i: core i of the socket; 0 for no entry
    bool valid() const { return sharers != 0; }
    uint32_t id() const { return line_id; }
  };

  // Bytes of one set: keys and slots rounded up to whole host lines, then the masks.
  static size_t set_bytes(const CacheLevel& level) {
    return keys_bytes(level.ways) + size_t{level.ways} * sizeof(uint64_t);
  }

  // Precondition: level.ways <= 255 (CacheGeometry::validate checks it). Memory as
  // SetStorage: its own, or placed at `at`.
  SfArray(unsigned instances, const CacheLevel& level, bool hashed, SetPlacement at = {})
      : sets_(instances, level, hashed, set_bytes(level), at), ways_(level.ways) {
    for (size_t s = 0; s < sets_.sets(); ++s) reset_slots(raw(s));
  }
  SfArray(const SfArray&) = delete;
  SfArray& operator=(const SfArray&) = delete;

  unsigned ways() const { return ways_; }
  size_t size() const { return sets_.sets() * ways_; }  // entries
  unsigned instance_of(size_t i) const { return sets_.instance_of_set(i / ways_); }
  // Flat entry i (set i / ways, way i % ways), for the invariant walk.
  Entry at(size_t i) const {
    const Set s = raw(i / ways_);
    const unsigned w = static_cast<unsigned>(i % ways_);
    return s.keys[w] ? Entry{s.keys[w], s.masks[s.slots[w]]} : Entry{};
  }

  Set set(unsigned instance, uint64_t line) const { return make(sets_.set(instance, line)); }
  // The same in two steps, for a caller that looks at several instances.
  uint32_t index(uint64_t line) const { return sets_.index(line); }
  Set set_at(unsigned instance, uint32_t index) const { return make(sets_.at(instance, index)); }
  // Whether flat entry i's set is the one `line` indexes to.
  bool in_set(size_t i, uint64_t line) const {
    return set(instance_of(i), line).keys == raw(i / ways_).keys;
  }

  [[gnu::always_inline]] int find(const Set& s, uint32_t id) const { return first_way(s.keys, ways_, id, ~uint32_t{0}); }

  static uint64_t& sharers(const Set& s, int w) { return s.masks[s.slots[w]]; }

  // Makes way w the most recently used.
  [[gnu::always_inline]] void touch(const Set& s, int w) const {
    const uint32_t k = s.keys[w];
    const uint8_t slot = s.slots[w];
    shift_down(s, static_cast<unsigned>(w));
    s.keys[0] = k;
    s.slots[0] = slot;
  }

  // Inserts line `id` with `sharers` as the most recently used; returns the entry pushed out
  // (invalid if the set had room). The line must not be in the set.
  [[gnu::always_inline]] Entry insert(const Set& s, uint32_t id, uint64_t sharers) const {
    const unsigned last = way_to_give_up(s.keys, ways_);
    const uint8_t slot = s.slots[last];
    const Entry victim = s.keys[last] ? Entry{s.keys[last], s.masks[slot]} : Entry{};
    shift_down(s, last);
    s.keys[0] = id;
    s.slots[0] = slot;
    s.masks[slot] = sharers;
    return victim;
  }

  // Removes way w, keeping the order of the others; its slot moves to the last way. The slots
  // of empty ways are a free list in any order: their masks are all zero.
  [[gnu::always_inline]] void erase(const Set& s, int w) const {
    const unsigned n = ways_ - 1 - static_cast<unsigned>(w);
    const uint8_t slot = s.slots[w];
    shift_down_one(s.keys + w, n);
    shift_down_one(s.slots + w, n);
    s.keys[ways_ - 1] = 0;
    s.slots[ways_ - 1] = slot;
    s.masks[slot] = 0;
  }

  void clear() {
    for (size_t s = 0; s < sets_.sets(); ++s) {
      const Set set = raw(s);
      std::memset(set.keys, 0, ways_ * sizeof(uint32_t));
      std::memset(set.masks, 0, ways_ * sizeof(uint64_t));
      reset_slots(set);
    }
  }

 private:
  static size_t keys_bytes(unsigned ways) { return (size_t{ways} * 5 + 63) / 64 * 64; }
  Set make(char* base) const {
    return {reinterpret_cast<uint32_t*>(base), reinterpret_cast<uint8_t*>(base + ways_ * sizeof(uint32_t)),
            reinterpret_cast<uint64_t*>(base + keys_bytes(ways_))};
  }
  Set raw(size_t s) const { return make(sets_.flat(s)); }
  void reset_slots(const Set& s) const {
    for (unsigned w = 0; w < ways_; ++w) s.slots[w] = static_cast<uint8_t>(w);
  }
  // Ways [0, n) move to [1, n].
  [[gnu::always_inline]] void shift_down(const Set& s, unsigned n) const {
    shift_up_one(s.keys, n);
    shift_up_one(s.slots, n);
  }

  SetStorage sets_;
  uint32_t ways_;
};

}  // namespace pagesim::cache::internal
