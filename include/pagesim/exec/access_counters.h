// Per-CPU counts of modelled line accesses, by call site, kind, line kind and lock context.
// Plain integers: one instance per CPU, merged at the end (operator+=).
#pragma once

#include <cstdint>
#include <vector>

#include "pagesim/exec/exec.h"

namespace pagesim {

enum class LockContext : uint8_t { none, zone_lock, hugetlb_lock, irq_off, kCount };
inline constexpr unsigned kNumLockContexts = static_cast<unsigned>(LockContext::kCount);

struct AccessRecord {
  uint64_t line;
  Site site;
  AccessKind kind;
  LineKind line_kind;
  uint16_t node;
  static AccessRecord of(const Line& l, Site site, AccessKind kind) { return {l.line(), site, kind, l.kind, l.node}; }
  friend bool operator==(const AccessRecord&, const AccessRecord&) = default;
};

struct AccessCounters {
  uint64_t total = 0;
  uint64_t by_site[kNumSites] = {};
  uint64_t by_kind[4] = {};
  uint64_t by_line_kind[kNumLineKinds] = {};
  // struct-page lines by the innermost lock held when they were touched.
  uint64_t struct_page_by_context[kNumLockContexts] = {};
  // struct-page lines by site: the "1 vs 2^order per check" measure.
  uint64_t struct_page_by_site[kNumSites] = {};
  uint64_t hold_lines = 0;  // artificial holds, in line-read equivalents

  void add(const Line& line, AccessKind kind, Site site, LockContext ctx, uint64_t n = 1) {
    total += n;
    by_site[static_cast<unsigned>(site)] += n;
    by_kind[static_cast<unsigned>(kind)] += n;
    by_line_kind[static_cast<unsigned>(line.kind)] += n;
    if (line.kind == LineKind::struct_page) {
      struct_page_by_context[static_cast<unsigned>(ctx)] += n;
      struct_page_by_site[static_cast<unsigned>(site)] += n;
    }
  }
  AccessCounters& operator+=(const AccessCounters& o);
};

std::string_view lock_context_name(LockContext c);

}  // namespace pagesim
