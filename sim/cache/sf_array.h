// The snoop filters' storage: per set, the line keys in exact-LRU order and one sharer byte per
// key, in one host line; the masks of lines with several sharers live apart. Internal to
// pagesim_cache.
//
// A 12-way set is 12 x 4-byte keys and 12 sharer bytes: 60 bytes, one 64-byte host line. A
// line held by one core, nearly every line of a struct-page walk, has that core's number as
// its byte, so a lookup, an LRU move and a fill touch that host line alone. A line held by two
// or more cores has a byte naming one of its set's mask slots: the near slot, a 32-bit mask in
// the spare bytes after the sharer bytes (4 of them with 12 ways), for the first such line of
// the set whose sharers are all below core 32; else a slot in an array of its own that only
// such lines touch (a lock word, a list head, a shared counter). Same policy as LruArray: MRU
// first, invalid keys at the tail, an insert drops the last key.
#pragma once

#include <bit>
#include <cassert>
#include <cstdint>
#include <cstring>
#include <string>

#include "lru_array.h"
#include "pagesim/cache/geometry.h"
#include "pagesim/huge_region.h"
#include "way_match.h"

namespace pagesim::cache::internal {

class SfArray {
 public:
  // One set: ways keys (the line's id; 0 is empty), then ways sharer bytes, then the near
  // slot if the set's host lines have 4 bytes to spare; and the set's far mask slots, apart. A
  // sharer byte below kMaxCoresPerSocket is the one core holding the line; kMaxCoresPerSocket
  // + k names far slot k, and kNearSlot the near slot, whose mask has two bits or more. A free
  // slot's mask is 0.
  struct Set {
    uint32_t* keys;
    uint8_t* who;     // ways sharer bytes, then the near slot
    uint64_t* masks;  // ways far slots
  };
  static constexpr uint8_t kNearSlot = 255;
  // An entry as a value: the victim of an insert, or an entry read for the invariants.
  struct Entry {
    uint32_t line_id = 0;
    uint64_t sharers = 0;  // bit i: core i of the socket; 0 for no entry
    bool valid() const { return sharers != 0; }
    uint32_t id() const { return line_id; }
  };

  // Bytes of one set's keys and sharer bytes, rounded up to whole host lines.
  static size_t set_bytes(const CacheLevel& level) { return (size_t{level.ways} * 5 + 63) / 64 * 64; }
  // Whether those host lines leave room for the near slot.
  static bool has_near_slot(const CacheLevel& level) { return set_bytes(level) - size_t{level.ways} * 5 >= sizeof(uint32_t); }

  // Precondition: level.ways <= kMaxSnoopFilterWays (CacheGeometry::validate checks it). The
  // keys and sharer bytes in memory as SetStorage's, their own or placed at `at`; the mask
  // slots in a region of their own, mapped lazily, as few sets ever use theirs.
  SfArray(unsigned instances, const CacheLevel& level, bool hashed, SetPlacement at = {})
      : sets_(instances, level, hashed, set_bytes(level), at),
        masks_(sets_.sets() * level.ways * sizeof(uint64_t), "cache model", true),
        ways_(level.ways), near_(has_near_slot(level)) {}
  SfArray(const SfArray&) = delete;
  SfArray& operator=(const SfArray&) = delete;

  unsigned ways() const { return ways_; }
  size_t size() const { return sets_.sets() * ways_; }  // entries
  unsigned instance_of(size_t i) const { return sets_.instance_of_set(i / ways_); }
  // Flat entry i (set i / ways, way i % ways), for the invariant walk.
  Entry at(size_t i) const {
    const Set s = raw(i / ways_);
    const unsigned w = static_cast<unsigned>(i % ways_);
    return s.keys[w] ? Entry{s.keys[w], sharers(s, static_cast<int>(w))} : Entry{};
  }
  // Why flat set s's sharer bytes and mask slots disagree, or empty if they agree: each slot
  // is named by at most one valid way, every named slot has two bits or more, and every other
  // slot is 0.
  std::string check_set(size_t s) const;

  Set set(unsigned instance, uint64_t line) const { return set_at(instance, sets_.index(line)); }
  // The same in two steps, for a caller that looks at several instances.
  uint32_t index(uint64_t line) const { return sets_.index(line); }
  Set set_at(unsigned instance, uint32_t index) const {
    return make(sets_.at(instance, index), sets_.flat_index(instance, index));
  }
  // Whether flat entry i's set is the one `line` indexes to.
  bool in_set(size_t i, uint64_t line) const {
    return set(instance_of(i), line).keys == raw(i / ways_).keys;
  }

  [[gnu::always_inline]] int find(const Set& s, uint32_t id) const { return first_way(s.keys, ways_, id, ~uint32_t{0}); }

  // The cores holding way w's line.
  [[gnu::always_inline]] uint64_t sharers(const Set& s, int w) const {
    const uint8_t b = s.who[w];
    if (b < kMaxCoresPerSocket) [[likely]]
      return uint64_t{1} << b;
    return b == kNearSlot ? near_mask(s) : s.masks[b - kMaxCoresPerSocket];
  }
  // Sets way w's sharers to m (not 0: an entry without sharers is erased instead). A line
  // that gains a second sharer takes a free mask slot, the near one if it can; one that is
  // down to one frees it.
  void set_sharers(const Set& s, int w, uint64_t m) const {
    assert(m != 0);
    uint8_t& b = s.who[w];
    if (std::has_single_bit(m)) {
      release(s, b);
      b = static_cast<uint8_t>(std::countr_zero(m));
      return;
    }
    const bool fits_near = (m >> 32) == 0;
    if (b == kNearSlot && !fits_near) {
      release(s, b);
      b = free_slot(s, false);  // a far one: b still names the near slot, so none is taken twice
    } else if (b < kMaxCoresPerSocket) {
      b = free_slot(s, fits_near);
    }
    if (b == kNearSlot)
      set_near_mask(s, static_cast<uint32_t>(m));
    else
      s.masks[b - kMaxCoresPerSocket] = m;
  }

  // Way w's line is now held by `left` alone: those sharers, or, if none, no entry. Inline:
  // every L2 eviction ends here (sf_remove), nearly always with no sharer left.
  [[gnu::always_inline]] void retain(const Set& s, int w, uint64_t left) const {
    if (left)
      set_sharers(s, w, left);
    else
      erase(s, w);
  }

  // Makes way w the most recently used.
  [[gnu::always_inline]] void touch(const Set& s, int w) const {
    const uint32_t k = s.keys[w];
    const uint8_t b = s.who[w];
    shift_down(s, static_cast<unsigned>(w));
    s.keys[0] = k;
    s.who[0] = b;
  }

  // Inserts line `id` held by the one core `core` as the most recently used; returns the entry
  // pushed out (invalid if the set had room). The line must not be in the set.
  [[gnu::always_inline]] Entry insert(const Set& s, uint32_t id, unsigned core) const {
    assert(core < kMaxCoresPerSocket);
    const unsigned last = way_to_give_up(s.keys, ways_);
    Entry victim{};
    if (s.keys[last]) {
      victim = {s.keys[last], sharers(s, static_cast<int>(last))};
      release(s, s.who[last]);
    }
    shift_down(s, last);
    s.keys[0] = id;
    s.who[0] = static_cast<uint8_t>(core);
    return victim;
  }

  // Removes way w, keeping the order of the others, and frees its mask slot if it has one.
  [[gnu::always_inline]] void erase(const Set& s, int w) const {
    const unsigned n = ways_ - 1 - static_cast<unsigned>(w);
    release(s, s.who[w]);
    shift_down_one(s.keys + w, n);
    shift_down_one(s.who + w, n);
    s.keys[ways_ - 1] = 0;
    s.who[ways_ - 1] = 0;
  }

  void clear() {
    for (size_t s = 0; s < sets_.sets(); ++s) {
      const Set set = raw(s);
      for (unsigned w = 0; w < ways_; ++w) release(set, set.who[w]);  // no page of unused slots
      std::memset(set.keys, 0, ways_ * sizeof(uint32_t));
      std::memset(set.who, 0, ways_);
    }
  }

  // The near slot's mask (0 if free), for the invariant walk and tests.
  uint32_t near_mask(const Set& s) const {
    uint32_t m;
    std::memcpy(&m, s.who + ways_, sizeof m);
    return m;
  }

 private:
  Set make(char* base, size_t flat_set) const {
    return {reinterpret_cast<uint32_t*>(base), reinterpret_cast<uint8_t*>(base + ways_ * sizeof(uint32_t)),
            reinterpret_cast<uint64_t*>(masks_.data()) + flat_set * ways_};
  }
  Set raw(size_t s) const { return make(sets_.flat(s), s); }
  void set_near_mask(const Set& s, uint32_t m) const { std::memcpy(s.who + ways_, &m, sizeof m); }
  // Frees the mask slot sharer byte b names, if it names one.
  [[gnu::always_inline]] void release(const Set& s, uint8_t b) const {
    if (b >= kMaxCoresPerSocket) [[unlikely]] {
      if (b == kNearSlot)
        set_near_mask(s, 0);
      else
        s.masks[b - kMaxCoresPerSocket] = 0;
    }
  }
  // The sharer byte of a slot no way names, found from the sharer bytes alone: the near slot
  // if it has one and the mask `fits_near`, else a far one (its host line is then only
  // written, and a store miss does not stall). A far one exists: only ways with two sharers
  // or more hold a slot, and the way asking for one does not. Empty ways have a byte below
  // kMaxCoresPerSocket (erase and clear write 0).
  uint8_t free_slot(const Set& s, bool fits_near) const {
    static_assert(kMaxSnoopFilterWays <= 64 && kMaxCoresPerSocket + kMaxSnoopFilterWays <= kNearSlot);
    uint64_t named = 0;
    bool near_named = false;
    for (unsigned w = 0; w < ways_; ++w) {
      const unsigned b = s.who[w];
      if (b == kNearSlot)
        near_named = true;
      else if (b >= kMaxCoresPerSocket)
        named |= uint64_t{1} << (b - kMaxCoresPerSocket);
    }
    if (near_ && fits_near && !near_named) return kNearSlot;
    const auto k = static_cast<unsigned>(std::countr_one(named));
    assert(k < ways_ && s.masks[k] == 0);
    return static_cast<uint8_t>(kMaxCoresPerSocket + k);
  }
  // Ways [0, n) move to [1, n].
  [[gnu::always_inline]] void shift_down(const Set& s, unsigned n) const {
    shift_up_one(s.keys, n);
    shift_up_one(s.who, n);
  }

  SetStorage sets_;
  HugeRegion masks_;  // sets x ways far mask slots, flat set after flat set
  uint32_t ways_;
  bool near_;         // the sets have a near slot
};

}  // namespace pagesim::cache::internal
