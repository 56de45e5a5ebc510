// /proc/zoneinfo, read back: the zones' sizes, watermarks and per-cpu pagesets that a replay
// sizes its machine from (zoneinfo_show_print in mm/vmstat.c writes this format).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace pagesim::replay {

struct PagesetInfo {  // one "cpu: N" block under "pagesets"
  unsigned cpu = 0;
  long count = 0, high = 0, batch = 0;
  long high_min = -1, high_max = -1;  // 6.7+ (-1: the kernel does not print them)
};

struct ZoneInfo {
  unsigned node = 0;
  std::string name;  // "DMA", "DMA32", "Normal", "Movable", "Device"
  uint64_t free = 0, min = 0, low = 0, high = 0;
  uint64_t spanned = 0, present = 0, managed = 0;
  uint64_t start_pfn = 0;
  std::vector<PagesetInfo> pagesets;
  unsigned line = 0;  // the "Node N, zone NAME" line

  bool populated() const { return managed != 0; }
  bool spans(uint64_t pfn) const { return pfn >= start_pfn && pfn < start_pfn + spanned; }
  const PagesetInfo* pageset(unsigned cpu) const;
};

struct ZoneInfoFile {
  std::string source;
  std::vector<ZoneInfo> zones;  // in file order
  // The zone that spans pfn, or nullptr.
  const ZoneInfo* zone_of(uint64_t pfn) const;
};

// Throws InputError "FILE:LINE:COL: ..." for a line it cannot read, or when no zone is found.
ZoneInfoFile parse_zoneinfo(const std::string& text, std::string source);
ZoneInfoFile read_zoneinfo(const std::string& path);

}  // namespace pagesim::replay
