// The LLCs' storage: LruArray's sets and policy, with tags of four bytes ((id << 2) | state,
// as TagEntry) or two ((key << 2) | state, SocketKeys), chosen when the model is built. Every
// operation takes and gives whole ids; the width is a branch the host predicts. Internal.
#pragma once

#include <cstdint>
#include <cstring>

#include "entries.h"
#include "lru_array.h"
#include "socket_keys.h"
#include "way_match.h"

namespace pagesim::cache::internal {

class LlcArray {
 public:
  // One set: its bytes, and its index (a two-byte tag needs it to give back its id).
  struct Set {
    char* p;
    uint32_t index;
  };

  static size_t set_bytes(const CacheLevel& level, bool two_bytes) { return size_t{level.ways} * (two_bytes ? 2 : 4); }

  // `keys` must outlive the array. Memory as SetStorage's: its own, or placed at `at`.
  LlcArray(unsigned instances, const CacheLevel& level, bool hashed, const SocketKeys& keys, SetPlacement at = {})
      : sets_(instances, level, hashed, set_bytes(level, keys.two_bytes()), at),
        keys_(&keys),
        ways_(level.ways),
        sets_per_instance_(level.sets),
        narrow_(keys.two_bytes()) {}
  LlcArray(const LlcArray&) = delete;
  LlcArray& operator=(const LlcArray&) = delete;

  unsigned ways() const { return ways_; }
  size_t size() const { return sets_.sets() * ways_; }
  unsigned instance_of(size_t i) const { return sets_.instance_of_set(i / ways_); }
  // Flat entry i, with its whole id (invalid if empty).
  TagEntry at(size_t i) const {
    const size_t s = i / ways_;
    const Set set{sets_.flat(s), static_cast<uint32_t>(s % sets_per_instance_)};
    const int w = static_cast<int>(i % ways_);
    const uint32_t t = raw(set, w);
    return t ? TagEntry(keys_->id(t >> 2, set.index), state(set, w)) : TagEntry{};
  }
  bool in_set(size_t i, uint64_t line) const { return set(instance_of(i), line).p == sets_.flat(i / ways_); }

  uint32_t index(uint64_t line) const { return sets_.index(line); }
  Set set(unsigned instance, uint64_t line) const { return set_at(instance, sets_.index(line)); }
  Set set_at(unsigned instance, uint32_t index) const { return {sets_.at(instance, index), index}; }

  // The way holding line `id`, or -1.
  [[gnu::always_inline]] int find(const Set& s, uint32_t id) const {
    const uint32_t key = keys_->key(id) << 2;
    if (narrow_) return first_way<uint16_t>(w16(s), ways_, static_cast<uint16_t>(key), static_cast<uint16_t>(~3u));
    return first_way<uint32_t>(w32(s), ways_, key, ~uint32_t{3});
  }
  LineState state(const Set& s, int w) const { return static_cast<LineState>(raw(s, w) & 3); }
  void set_state(const Set& s, int w, LineState st) const {
    const uint32_t t = (raw(s, w) & ~uint32_t{3}) | static_cast<uint32_t>(st);
    if (narrow_)
      w16(s)[w] = static_cast<uint16_t>(t);
    else
      w32(s)[w] = t;
  }

  // Makes way w the most recently used.
  [[gnu::always_inline]] void touch(const Set& s, int w) const {
    if (narrow_) return touch(w16(s), w);
    touch(w32(s), w);
  }
  // Inserts line `id` in state st as the most recently used; returns the state of the entry
  // pushed out, I if the set had room. The line must not be in the set.
  [[gnu::always_inline]] LineState insert(const Set& s, uint32_t id, LineState st) const {
    const uint32_t t = keys_->key(id) << 2 | static_cast<uint32_t>(st);
    if (narrow_) return insert(w16(s), static_cast<uint16_t>(t));
    return insert(w32(s), t);
  }
  // Removes way w, keeping the order of the others.
  [[gnu::always_inline]] void erase(const Set& s, int w) const {
    if (narrow_) return erase(w16(s), w);
    erase(w32(s), w);
  }

  void clear() {
    for (size_t s = 0; s < sets_.sets(); ++s) std::memset(sets_.flat(s), 0, ways_ * (narrow_ ? 2 : 4));
  }

 private:
  static uint16_t* w16(const Set& s) { return reinterpret_cast<uint16_t*>(s.p); }
  static uint32_t* w32(const Set& s) { return reinterpret_cast<uint32_t*>(s.p); }
  uint32_t raw(const Set& s, int w) const { return narrow_ ? w16(s)[w] : w32(s)[w]; }

  template <class W>
  [[gnu::always_inline]] static void touch(W* s, int w) {
    const W t = s[w];
    shift_up_one(s, static_cast<unsigned>(w));
    s[0] = t;
  }
  template <class W>
  [[gnu::always_inline]] LineState insert(W* s, W t) const {
    const unsigned last = way_to_give_up<W>(s, ways_);
    const W victim = s[last];
    shift_up_one(s, last);
    s[0] = t;
    return victim ? static_cast<LineState>(victim & 3) : LineState::I;
  }
  template <class W>
  [[gnu::always_inline]] void erase(W* s, int w) const {
    shift_down_one(s + w, ways_ - 1 - static_cast<unsigned>(w));
    s[ways_ - 1] = 0;
  }

  SetStorage sets_;
  const SocketKeys* keys_;
  uint32_t ways_;
  uint32_t sets_per_instance_;
  bool narrow_;  // two-byte tags
};

}  // namespace pagesim::cache::internal
