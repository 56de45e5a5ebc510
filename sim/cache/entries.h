// The cache tags stored in the LruArrays, and the line handle the protocol passes around.
// Internal.
#pragma once

#include <cstdint>

#include "line_ids.h"
#include "pagesim/cache/cache_model.h"

namespace pagesim::cache::internal {

// A line as the protocol handles it: its number (which picks the sets) and its id (what the
// tags store).
struct Ln {
  uint64_t line;
  uint32_t id;
};

// A cache tag: (id << 2) | state, 4 bytes, so that a 12-way set is 48 contiguous bytes.
// All-zero is the empty entry (ids are never 0).
class TagEntry {
 public:
  // What match_ways compares: the tag without its state.
  static constexpr uint32_t kKeyMask = ~uint32_t{3};
  static uint32_t key(uint32_t id) { return id << 2; }

  TagEntry() = default;
  TagEntry(uint32_t id, LineState st) : v_(key(id) | static_cast<uint32_t>(st)) {}

  bool valid() const { return v_ != 0; }
  uint32_t id() const { return v_ >> 2; }
  LineState state() const { return static_cast<LineState>(v_ & 3); }
  void set_state(LineState st) { v_ = (v_ & ~uint32_t{3}) | static_cast<uint32_t>(st); }

 private:
  static_assert(LineIds::kIdBits <= 30);
  uint32_t v_ = 0;
};

}  // namespace pagesim::cache::internal
