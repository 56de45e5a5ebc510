// What the LLCs' tags and the snoop filters' keys store of a line: its id, or, where the
// geometry allows, the id's top bits alone, so that a socket's LLC and filter sets of one
// index share one host line (docs/cache-model.md, "State layout"). Internal.
#pragma once

#include <bit>
#include <cstdint>

#include "line_ids.h"
#include "pagesim/cache/geometry.h"

namespace pagesim::cache::internal {

class SocketKeys {
 public:
  // Four-byte keys: the id itself.
  SocketKeys() = default;

  // Two-byte keys if `g`'s LLC and snoop filter index alike into 2^b hashed sets, 16 <= b <=
  // 26 (the robot's box: b = 16), and `allowed`; else four-byte ones. Then a set's index and
  // the id's bits from b up determine the line: the index is the low b bits of
  // line ^ line >> b ^ line >> 2b (SetIndex), whose two shifted terms the top bits give.
  // LineIds ids keep a line's low 26 bits, so the key, id >> b, is at most 30 - b <= 14 bits:
  // a two-byte LLC tag has room for its 2-bit state, and a key is never 0 (ids >= 2^26).
  static SocketKeys fitted(const CacheGeometry& g, const LineIds* ids, bool allowed) {
    const uint32_t sets = g.llc.sets;
    const unsigned b = static_cast<unsigned>(std::bit_width(sets - 1));
    if (!allowed || sets != g.snoop_filter.sets || !g.hash_shared_index || !std::has_single_bit(sets) || b < 16 ||
        b > LineIds::kChunkBits)
      return {};
    SocketKeys k;
    k.ids_ = ids;
    k.shift_ = b;
    return k;
  }

  bool two_bytes() const { return ids_ != nullptr; }
  uint32_t key(uint32_t id) const { return id >> shift_; }
  // The id of the line whose key is `key` in set `index`.
  uint32_t id(uint32_t key, uint32_t index) const {
    if (!ids_) return key;
    const uint32_t top = key << shift_;
    const uint64_t line = ids_->line(top);  // its bits from shift_ up are the line's
    const uint64_t mask = (uint64_t{1} << shift_) - 1;
    return top | static_cast<uint32_t>((index ^ (line >> shift_) ^ (line >> 2 * shift_)) & mask);
  }

 private:
  const LineIds* ids_ = nullptr;
  unsigned shift_ = 0;
};

}  // namespace pagesim::cache::internal
