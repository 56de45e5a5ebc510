// The clearing primitives of clear_pages.h.
#include "pagesim/vt/clear_pages.h"

#include <algorithm>
#include <cstring>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace pagesim::vt {

namespace {

constexpr uint64_t kPage = 4096;

// x86's clear_page_erms / clear_pages: `rep stosb` of zeroes.
void stosb(char* p, uint64_t bytes) {
#if defined(__x86_64__)
  asm volatile("rep stosb" : "+D"(p), "+c"(bytes) : "a"(0) : "memory");
#else
  std::memset(p, 0, bytes);
#endif
}

void movnti(char* p, uint64_t bytes) {
#if defined(__x86_64__)
  auto* w = reinterpret_cast<long long*>(p);
  const uint64_t words = bytes / 32 * 4;  // whole 32-byte groups; the tail below
  for (uint64_t i = 0; i < words; i += 4) {
    _mm_stream_si64(w + i, 0);
    _mm_stream_si64(w + i + 1, 0);
    _mm_stream_si64(w + i + 2, 0);
    _mm_stream_si64(w + i + 3, 0);
  }
  _mm_sfence();
  std::memset(p + words * 8, 0, bytes - words * 8);
#else
  std::memset(p, 0, bytes);
#endif
}

}  // namespace

std::optional<ClearMode> parse_clear_mode(std::string_view s) {
  for (ClearMode m : {ClearMode::per_subpage, ClearMode::multi_page, ClearMode::nontemporal, ClearMode::memset})
    if (clear_mode_name(m) == s) return m;
  return std::nullopt;
}

std::string_view clear_mode_name(ClearMode m) {
  switch (m) {
    case ClearMode::per_subpage: return "per_subpage";
    case ClearMode::multi_page: return "multi_page";
    case ClearMode::nontemporal: return "nontemporal";
    case ClearMode::memset: return "memset";
  }
  return "?";
}

void clear_extent(char* p, uint64_t bytes, uint64_t huge_bytes, ClearMode mode, uint64_t target) {
  switch (mode) {
    case ClearMode::per_subpage:
      for (uint64_t off = 0; off < bytes; off += huge_bytes)
        process_huge_page_order((huge_bytes + kPage - 1) / kPage, target,  // a scaled extent may end mid-page
                                [&](uint64_t i) { stosb(p + off + i * kPage, std::min(kPage, huge_bytes - i * kPage)); });
      break;
    case ClearMode::multi_page:
      for (uint64_t off = 0; off < bytes; off += huge_bytes) stosb(p + off, huge_bytes);
      break;
    case ClearMode::nontemporal: movnti(p, bytes); break;
    case ClearMode::memset: std::memset(p, 0, bytes); break;
  }
  asm volatile("" : : "r"(p) : "memory");  // the stores happen
}

}  // namespace pagesim::vt
