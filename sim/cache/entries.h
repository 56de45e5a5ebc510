// The entries stored in the LruArrays: cache tags and snoop-filter entries. Internal.
#pragma once

#include <cstdint>

#include "pagesim/cache/cache_model.h"

namespace pagesim::cache::internal {

// A cache tag: (line << 2) | state, 8 bytes, so that a 12-way set is 96 contiguous bytes.
// State I (0) is the empty entry; lines are below 2^62.
class TagEntry {
 public:
  TagEntry() = default;
  TagEntry(uint64_t line, LineState st) : v_(line << 2 | static_cast<uint64_t>(st)) {}

  bool valid() const { return v_ != 0; }
  uint64_t line() const { return v_ >> 2; }
  LineState state() const { return static_cast<LineState>(v_ & 3); }
  void set_state(LineState st) { v_ = (v_ & ~uint64_t{3}) | static_cast<uint64_t>(st); }

 private:
  uint64_t v_ = 0;
};

// A snoop-filter entry: which cores of the socket hold the line in their private caches.
// No sharers means empty.
struct SfEntry {
  uint64_t tag = 0;
  uint64_t sharers = 0;  // bit i: core i of the socket

  bool valid() const { return sharers != 0; }
  uint64_t line() const { return tag; }
};

}  // namespace pagesim::cache::internal
