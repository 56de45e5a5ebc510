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

namespace pagesim::cache::internal {

// Maps a line to its set: plain bit selection (line mod sets), or, when `hashed`, the line
// XOR-folded by the index width first, so that power-of-two strides spread over the sets.
class SetIndex {
 public:
  SetIndex(uint32_t sets, bool hashed)
      : sets_(sets), mask_(sets - 1), pow2_(std::has_single_bit(sets)), hashed_(hashed),
        width_(std::max(1, static_cast<int>(std::bit_width(sets - 1)))) {}

  uint32_t operator()(uint64_t line) const {
    const uint64_t x = hashed_ ? line ^ (line >> width_) ^ (line >> (2 * width_)) : line;
    return static_cast<uint32_t>(pow2_ ? x & mask_ : x % sets_);
  }

 private:
  uint64_t sets_, mask_;
  bool pow2_, hashed_;
  int width_;
};

// Entry requirements: trivially copyable; all-zero bytes are the default (invalid) entry;
// valid() and line(). The entries live in a HugeRegion: the robot's box needs ~50 MB of them,
// looked up at random, and on 4 KiB pages nearly every lookup would also miss the host's TLB.
template <class Entry>
class LruArray {
  static_assert(std::is_trivially_copyable_v<Entry>);

 public:
  LruArray(unsigned instances, const CacheLevel& level, bool hashed)
      : index_(level.sets, hashed), sets_(level.sets), ways_(level.ways),
        size_(size_t{instances} * level.sets * level.ways),
        region_(size_ * sizeof(Entry), "cache model"),
        entries_(reinterpret_cast<Entry*>(region_.data())) {
    std::uninitialized_value_construct_n(entries_, size_);  // no-op on the zeroed region
  }
  LruArray(const LruArray&) = delete;
  LruArray& operator=(const LruArray&) = delete;

  unsigned ways() const { return ways_; }
  size_t size() const { return size_; }
  const Entry& at(size_t i) const { return entries_[i]; }
  // Which instance and set flat entry i belongs to.
  unsigned instance_of(size_t i) const { return static_cast<unsigned>(i / ways_ / sets_); }

  Entry* set(unsigned instance, uint64_t line) {
    return &entries_[(size_t{instance} * sets_ + index_(line)) * ways_];
  }
  const Entry* set(unsigned instance, uint64_t line) const {
    return &entries_[(size_t{instance} * sets_ + index_(line)) * ways_];
  }

  // The way holding `line` in set `s`, or -1.
  int find(const Entry* s, uint64_t line) const {
    for (unsigned w = 0; w < ways_; ++w) {
      if (!s[w].valid()) return -1;
      if (s[w].line() == line) return static_cast<int>(w);
    }
    return -1;
  }

  // Makes way w the most recently used.
  void touch(Entry* s, int w) {
    const Entry e = s[w];
    shift_down(s, static_cast<unsigned>(w));
    s[0] = e;
  }

  // Inserts e as the most recently used; returns the entry pushed out (invalid if the set
  // had room). e's line must not be in the set.
  Entry insert(Entry* s, const Entry& e) {
    unsigned last = ways_ - 1;  // the slot that is given up: the first empty one, or the LRU
    for (unsigned w = 0; w < last; ++w)
      if (!s[w].valid()) {
        last = w;
        break;
      }
    const Entry victim = s[last];
    shift_down(s, last);
    s[0] = e;
    return victim;
  }

  // Removes way w, keeping the order of the others.
  void erase(Entry* s, int w) {
    unsigned i = static_cast<unsigned>(w);
    for (; i + 1 < ways_ && s[i + 1].valid(); ++i) s[i] = s[i + 1];
    s[i] = Entry{};
  }

  void clear() { std::fill_n(entries_, size_, Entry{}); }

 private:
  // s[0..n) moves to s[1..n]. Plain loops: the sets are a few dozen bytes, below the size
  // where a memmove call pays off.
  static void shift_down(Entry* s, unsigned n) {
    for (unsigned i = n; i > 0; --i) s[i] = s[i - 1];
  }

  SetIndex index_;
  uint32_t sets_, ways_;
  size_t size_;
  HugeRegion region_;
  Entry* entries_;
};

}  // namespace pagesim::cache::internal
