// match_ways: which ways of a set hold a key, sixteen per step; shift_up_one and
// shift_down_one: the LRU moves, sixteen bytes at a time. Internal.
//
// A set lookup used to compare way by way, with a branch per way whose outcome depends on the
// data: on a miss path that looks at a dozen sets, that was most of the model's instructions
// and a branch misprediction per set. With 4-byte tags, SSE2 (x86-64's baseline) compares
// four ways per instruction, and the answer is a bit mask.
#pragma once

#include <bit>
#include <cstdint>
#include <cstring>
#include <type_traits>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace pagesim::cache::internal {

// Bit w is set for each way w < n with (ways[w] & mask) == key. n <= 64. Compares sixteen
// ways per step, so it may read up to 60 bytes past ways[n - 1]: callers' sets sit in a
// HugeRegion, which has at least a page of mapped memory after its last set.
[[gnu::always_inline]] inline uint64_t match_ways(const uint32_t* ways, unsigned n, uint32_t key, uint32_t mask) {
  uint64_t hits = 0;
#if defined(__SSE2__)
  const __m128i k = _mm_set1_epi32(static_cast<int>(key)), m = _mm_set1_epi32(static_cast<int>(mask));
  auto eq4 = [&](const uint32_t* w) {
    return _mm_cmpeq_epi32(_mm_and_si128(_mm_loadu_si128(reinterpret_cast<const __m128i*>(w)), m), k);
  };
  // Four compares (each lane 0 or -1) narrowed to sixteen bytes: one movemask per step.
  auto narrow = [](__m128i a, __m128i b, __m128i c, __m128i d) {
    return static_cast<uint32_t>(_mm_movemask_epi8(_mm_packs_epi16(_mm_packs_epi32(a, b), _mm_packs_epi32(c, d))));
  };
  auto eq16 = [&](const uint32_t* w) { return narrow(eq4(w), eq4(w + 4), eq4(w + 8), eq4(w + 12)); };
  // Sets of up to 12 ways (L1, LLC and snoop filter of the shipped machines): three compares,
  // the third's lanes twice, and no read of the next set's first host line.
  if (n <= 12) {
    const __m128i c = eq4(ways + 8);
    return narrow(eq4(ways), eq4(ways + 4), c, c) & ((uint32_t{1} << n) - 1);
  }
  // Sets of up to 16 ways: one step, no loop.
  if (n <= 16) return eq16(ways) & ((uint32_t{1} << n) - 1);
  unsigned w = 0;
  for (; w + 16 <= n; w += 16) hits |= uint64_t{eq16(ways + w)} << w;
  // A rest of up to four ways (the robot's 20-way L2) is one compare, not a step of four.
  if (w < n) {
    const uint32_t rest = n - w <= 4 ? static_cast<uint32_t>(_mm_movemask_ps(_mm_castsi128_ps(eq4(ways + w))))
                                     : eq16(ways + w);
    hits |= uint64_t{rest} << w;
  }
  return n < 64 ? hits & ((uint64_t{1} << n) - 1) : hits;
#else
  for (unsigned w = 0; w < n; ++w) hits |= uint64_t{(ways[w] & mask) == key} << w;
  return hits;
#endif
}

// The first way w < n with (ways[w] & mask) == key, or -1.
[[gnu::always_inline]] inline int first_way(const uint32_t* ways, unsigned n, uint32_t key, uint32_t mask) {
  if (n && (ways[0] & mask) == key) return 0;  // the MRU way: a line touched again soon
  const uint64_t hits = match_ways(ways, n, key, mask);
  return hits ? std::countr_zero(hits) : -1;
}

// The way an insert into an MRU-first set of n ways (0 = empty, kept at the tail) gives up:
// the first empty one, or the last, which is the LRU. A full set, the usual case once a run
// is warm, needs no scan.
[[gnu::always_inline]] inline unsigned way_to_give_up(const uint32_t* ways, unsigned n) {
  if (ways[n - 1] != 0) return n - 1;
  const int empty = first_way(ways, n - 1, 0, ~uint32_t{0});
  return empty < 0 ? n - 1 : static_cast<unsigned>(empty);
}

// One fixed-size block of an LRU move: if the `Bytes / sizeof(T)` entries below s[i] (for
// shift_up_one) or from s[i] on (for shift_down_one) are still to move, moves them by one and
// steps i past them. The tails of the moves are such steps, at most one of each size, not
// loops: clang turned an entry-by-entry loop into a call to memmove (the snoop filter's sharer
// bytes) or a vectorised loop with run-time checks.
template <unsigned Bytes, class T>
[[gnu::always_inline]] inline void block_up(T* s, unsigned& i) {
  constexpr unsigned k = Bytes / sizeof(T);
  if constexpr (k > 0) {
    if (i >= k) {
      unsigned char v[Bytes];
      std::memcpy(v, static_cast<const void*>(s + i - k), Bytes);
      std::memcpy(static_cast<void*>(s + i - k + 1), v, Bytes);
      i -= k;
    }
  }
}

template <unsigned Bytes, class T>
[[gnu::always_inline]] inline void block_down(T* s, unsigned& i, unsigned n) {
  constexpr unsigned k = Bytes / sizeof(T);
  if constexpr (k > 0) {
    if (i + k <= n) {
      unsigned char v[Bytes];
      std::memcpy(v, static_cast<const void*>(s + i + 1), Bytes);
      std::memcpy(static_cast<void*>(s + i), v, Bytes);
      i += k;
    }
  }
}

// Moves s[0, n) to s[1, n], as an LRU set does to make room at its front: 16 bytes at a time
// from the top (each block is read before the one below it is overwritten), then one block
// each of 8, 4, 2 and 1 bytes. T is a trivially copyable tag, key or slot number.
template <class T>
[[gnu::always_inline]] inline void shift_up_one(T* s, unsigned n) {
  static_assert(std::is_trivially_copyable_v<T> && 16 % sizeof(T) == 0);
  constexpr unsigned k16 = 16 / sizeof(T);
  unsigned i = n;
#if defined(__SSE2__)
  for (; i >= k16; i -= k16) {
    const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s + i - k16));
    _mm_storeu_si128(reinterpret_cast<__m128i*>(s + i - k16 + 1), v);
  }
#else
  while (i >= k16) block_up<16>(s, i);
#endif
  block_up<8>(s, i);
  block_up<4>(s, i);
  block_up<2>(s, i);
  block_up<1>(s, i);
}

// Moves s[1, n + 1) to s[0, n), as an LRU set does to close the gap an erased way leaves: 16
// bytes at a time from the bottom (a store covers only entries already read), then one block
// each of 8, 4, 2 and 1 bytes. No test per entry: the empty entries at a set's tail move like
// the others.
template <class T>
[[gnu::always_inline]] inline void shift_down_one(T* s, unsigned n) {
  static_assert(std::is_trivially_copyable_v<T> && 16 % sizeof(T) == 0);
  constexpr unsigned k16 = 16 / sizeof(T);
  unsigned i = 0;
#if defined(__SSE2__)
  for (; i + k16 <= n; i += k16) {
    const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s + i + 1));
    _mm_storeu_si128(reinterpret_cast<__m128i*>(s + i), v);
  }
#else
  while (i + k16 <= n) block_down<16>(s, i, n);
#endif
  block_down<8>(s, i, n);
  block_down<4>(s, i, n);
  block_down<2>(s, i, n);
  block_down<1>(s, i, n);
}

}  // namespace pagesim::cache::internal
