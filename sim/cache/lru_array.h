// Flat set-associative arrays with exact LRU, the storage of every cache level and of the
// snoop filter.
//
// `instances` independent caches of sets x ways entries live in one vector. Each set is
// kept in MRU-first order with its invalid entries at the tail (as cachegrind's cg_sim.c
// does): a hit moves the entry to the front, an insert shifts the set down and drops the
// last entry, which is the LRU victim or an invalid slot. Lookups stop at the first invalid
// entry. Internal to pagesim_cache.
#pragma once

#include <algorithm>
#include <bit>
#include <cassert>
#include <cstdint>
#include <memory>
#include <type_traits>

#include "pagesim/cache/geometry.h"
#include "pagesim/huge_region.h"
#include "way_match.h"

namespace pagesim::cache::internal {

// Maps a line to its set: plain bit selection (line mod sets), or, when `hashed`, the line
// XOR-folded by the index width first, so that power-of-two strides spread over the sets.
// Every lookup computes one (several per miss), so the private caches' case, unhashed with a
// power-of-two count, is a mask alone; the others fold (by 0 bits if unhashed: x ^ x ^ x ==
// x) and divide by masking if they can. Each call site serves one array, so the branches are
// predicted.
class SetIndex {
 public:
  SetIndex(uint32_t sets, bool hashed)
      : mask_(sets - 1), sets_(sets), pow2_(std::has_single_bit(sets)), plain_(pow2_ && !hashed),
        fold1_(hashed ? width(sets) : 0), fold2_(hashed ? std::min(63u, 2 * width(sets)) : 0) {}

  uint32_t operator()(uint64_t line) const {
    if (plain_) [[likely]]
      return static_cast<uint32_t>(line & mask_);
    const uint64_t x = line ^ (line >> fold1_) ^ (line >> fold2_);  // unhashed: fold by 0, x == line
    return static_cast<uint32_t>(pow2_ ? x & mask_ : x % sets_);
  }

 private:
  static unsigned width(uint32_t sets) { return std::max(1, static_cast<int>(std::bit_width(sets - 1))); }

  uint64_t mask_, sets_;
  bool pow2_;
  bool plain_;  // unhashed and a power of two: the private caches' case
  unsigned fold1_, fold2_;  // < 64: the index is at most 32 bits wide
};

// Host hint: starts loading every host line of [p, p + bytes). A set need not start on a host
// line, so it may straddle two or more.
// Always inlined, as must be every function whose only work is such hints: GCC can find a
// function of loads and prefetches const and delete a call to it whose result is unused,
// prefetches and all (it did to prefetch_victim's hint in a refactoring, silently).
[[gnu::always_inline]] inline void prefetch_span(const void* p, size_t bytes) {
  const char* c = static_cast<const char*>(p);
  __builtin_prefetch(c);
  __builtin_prefetch(c + bytes - 1);
  // Points 64 bytes apart touch every line in between (none for a span of two lines or less).
  for (const char* a = c + kLineBytes; a < c + bytes - 1; a += kLineBytes) __builtin_prefetch(a);
}

// Where an array's sets live in host memory: set `index` of instance `instance` starts at
// base + instance * instance_stride + index * set_stride. An array either owns a HugeRegion
// laid out set after set, or is placed in a region shared with other arrays, so that the sets
// one access looks at in several structures are neighbours (Impl::socket_sets).
struct SetPlacement {
  char* base = nullptr;
  size_t set_stride = 0;
  size_t instance_stride = 0;
};

// The sets of one array (instances x sets of `set_bytes` each), their index function and
// their memory, owned or placed. The robot's box needs tens of MB of sets, looked up at random;
// an owned region is a HugeRegion, since on 4 KiB pages nearly every lookup would also miss
// the host's TLB.
class SetStorage {
 public:
  // Owns zeroed memory unless `at.base` is set: then the sets are placed in zeroed memory that
  // outlives this object.
  SetStorage(unsigned instances, const CacheLevel& level, bool hashed, size_t set_bytes, SetPlacement at)
      : index_(level.sets, hashed), sets_(level.sets), nsets_(size_t{instances} * level.sets) {
    if (!at.base) {
      region_ = HugeRegion(nsets_ * set_bytes, "cache model");
      at = {region_.data(), set_bytes, set_bytes * level.sets};
    }
    at_ = at;
  }

  size_t sets() const { return nsets_; }  // of all instances
  unsigned instance_of_set(size_t s) const { return static_cast<unsigned>(s / sets_); }
  // The index of `line`'s set, in every instance.
  uint32_t index(uint64_t line) const { return index_(line); }
  // Set `index` of `instance`.
  char* at(unsigned instance, uint32_t index) const {
    return at_.base + instance * at_.instance_stride + size_t{index} * at_.set_stride;
  }
  // Set `line` indexes to in `instance`.
  char* set(unsigned instance, uint64_t line) const { return at(instance, index_(line)); }
  // The flat number of set `index` of `instance` (as flat() numbers them).
  size_t flat_index(unsigned instance, uint32_t index) const { return size_t{instance} * sets_ + index; }
  // Flat set s: instance s / sets, index s % sets.
  char* flat(size_t s) const { return at_.base + s / sets_ * at_.instance_stride + s % sets_ * at_.set_stride; }

 private:
  SetIndex index_;
  uint32_t sets_;
  size_t nsets_;
  HugeRegion region_;  // empty when placed in shared memory
  SetPlacement at_;
};

// Entry requirements: 4 bytes, trivially copyable; all-zero bytes are the default (invalid)
// entry; valid() and id(); Entry::key(id) and Entry::kKeyMask, with which a valid entry e of
// line `id` is the one whose bytes b have (b & kKeyMask) == key(id), and no empty one does.
// Sets are picked by the line number, entries matched by the line's id.
template <class Entry>
class LruArray {
  static_assert(std::is_trivially_copyable_v<Entry> && sizeof(Entry) == sizeof(uint32_t));

 public:
  // Bytes of one set.
  static size_t set_bytes(const CacheLevel& level) { return size_t{level.ways} * sizeof(Entry); }

  // instances x sets x ways entries, in memory of their own or placed (SetStorage).
  LruArray(unsigned instances, const CacheLevel& level, bool hashed, SetPlacement at = {})
      : sets_(instances, level, hashed, set_bytes(level), at), ways_(level.ways) {}
  LruArray(const LruArray&) = delete;
  LruArray& operator=(const LruArray&) = delete;

  unsigned ways() const { return ways_; }
  size_t size() const { return sets_.sets() * ways_; }
  // Flat entry i: way i % ways of set i / ways, sets numbered instance by instance.
  const Entry& at(size_t i) const { return raw(i / ways_)[i % ways_]; }
  // Which instance flat entry i belongs to.
  unsigned instance_of(size_t i) const { return sets_.instance_of_set(i / ways_); }
  // Whether flat entry i's set is the one `line` indexes to.
  bool in_set(size_t i, uint64_t line) const { return set(instance_of(i), line) == raw(i / ways_); }

  Entry* set(unsigned instance, uint64_t line) const { return reinterpret_cast<Entry*>(sets_.set(instance, line)); }
  // The same in two steps, for a caller that looks at several instances.
  uint32_t index(uint64_t line) const { return sets_.index(line); }
  Entry* set_at(unsigned instance, uint32_t index) const { return reinterpret_cast<Entry*>(sets_.at(instance, index)); }

  // The way holding the line with id `id` in set `s`, or -1.
  [[gnu::always_inline]] int find(const Entry* s, uint32_t id) const { return first_way(raw_ways(s), ways_, Entry::key(id), Entry::kKeyMask); }

  // The entry an insert into set s would push out (invalid if the set has room): the last
  // way, since invalid entries are kept at the tail.
  Entry victim_of(const Entry* s) const { return s[ways_ - 1]; }

  // Host hint: starts loading set s.
  [[gnu::always_inline]] void prefetch_set(const Entry* s) const { prefetch_span(s, ways_ * sizeof(Entry)); }

  // Makes way w the most recently used.
  [[gnu::always_inline]] void touch(Entry* s, int w) {
    const Entry e = s[w];
    shift_up_one(s, static_cast<unsigned>(w));
    s[0] = e;
  }

  // Inserts e as the most recently used; returns the entry pushed out (invalid if the set
  // had room). e's line must not be in the set.
  [[gnu::always_inline]] Entry insert(Entry* s, const Entry& e) {
    const unsigned last = way_to_give_up(raw_ways(s), ways_);
    const Entry victim = s[last];
    shift_up_one(s, last);
    s[0] = e;
    return victim;
  }

  // Removes way w, keeping the order of the others.
  [[gnu::always_inline]] void erase(Entry* s, int w) {
    shift_down_one(s + w, ways_ - 1 - static_cast<unsigned>(w));
    s[ways_ - 1] = Entry{};
  }

  void clear() {
    for (size_t s = 0; s < sets_.sets(); ++s) std::fill_n(raw(s), ways_, Entry{});
  }

 private:
  static const uint32_t* raw_ways(const Entry* s) { return reinterpret_cast<const uint32_t*>(s); }
  Entry* raw(size_t s) const { return reinterpret_cast<Entry*>(sets_.flat(s)); }

  SetStorage sets_;
  uint32_t ways_;
};

}  // namespace pagesim::cache::internal
