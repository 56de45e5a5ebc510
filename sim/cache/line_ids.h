// LineIds: the model's 64-bit line numbers renumbered into 30-bit ids. Internal.
//
// Lines are kernel-like addresses >> 6 (the vmemmap alone needs 58 bits), but the lines a run
// touches sit in a few dense regions: the vmemmap, struct zones, per-cpu areas, .data, user
// data. Ids let a cache tag fit 4 bytes instead of 8 (docs/performance.md, "Compact state").
// Sets are still indexed by the real line, so renumbering changes no outcome.
//
// Lines are grouped in chunks of 2^26 (4 GiB of address space, the struct pages of 256 GiB);
// a chunk gets the next of 15 id ranges the first time one of its lines is seen, so ids are
// never 0 and an all-zero tag is free to mean "empty". Deterministic: the ids depend only on
// the order in which chunks are first seen.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "pagesim/error.h"

namespace pagesim::cache::internal {

class LineIds {
 public:
  static constexpr unsigned kChunkBits = 26;
  static constexpr unsigned kChunks = 15;
  static constexpr unsigned kIdBits = 30;  // ids are in [1 << kChunkBits, (kChunks + 1) << kChunkBits)
  static constexpr uint64_t kOffsetMask = (uint64_t{1} << kChunkBits) - 1;

  // The id of `line`, giving its chunk an id range if it has none yet.
  // Throws ModelError if a 16th chunk is needed. Inline for the walk's common case: the chunk
  // of the previous call.
  uint32_t id(uint64_t line) {
    if ((line >> kChunkBits) == chunk_[last_] && n_) [[likely]]
      return make(last_, line);
    return id_in_other_chunk(line);  // out of line: it builds the error message
  }

  // The id of `line` if its chunk has one (else the line was never cached).
  std::optional<uint32_t> find(uint64_t line) const {
    const unsigned i = index_of(line >> kChunkBits);
    if (i == n_) return std::nullopt;
    return make(i, line);
  }

  uint64_t line(uint32_t id) const { return chunk_[(id >> kChunkBits) - 1] << kChunkBits | (id & kOffsetMask); }

 private:
  [[gnu::noinline]] uint32_t id_in_other_chunk(uint64_t line) {
    const uint64_t c = line >> kChunkBits;
    unsigned i = index_of(c);
    if (i == n_) {
      if (n_ == kChunks)
        throw ModelError("cache model: line " + std::to_string(line) + " is in a 16th region of 2^26 lines; " +
                         "the model numbers at most 15 such regions");
      chunk_[n_++] = c;
    }
    last_ = i;
    return make(i, line);
  }

  // Chunk c's place in chunk_, or n_.
  unsigned index_of(uint64_t c) const {
    unsigned i = 0;
    while (i < n_ && chunk_[i] != c) ++i;
    return i;
  }
  static uint32_t make(unsigned chunk, uint64_t line) {
    return static_cast<uint32_t>((chunk + 1) << kChunkBits | (line & kOffsetMask));
  }

  uint64_t chunk_[kChunks] = {};
  unsigned n_ = 0;
  unsigned last_ = 0;  // the chunk of the previous id() call: walks stay in one
};

}  // namespace pagesim::cache::internal
