// The simulated machine's shape: nodes, their zones and CPUs.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "pagesim/mm/types.h"

namespace pagesim::mm {

struct ZoneSpec {
  zone_type type = ZONE_NORMAL;
  uint64_t pages = 0;  // present pages; a multiple of MAX_ORDER_NR_PAGES (4 MiB)
};

struct NodeSpec {
  unsigned cpus = 1;
  std::vector<ZoneSpec> zones;  // ascending zone types
};

struct MachineSpec {
  std::vector<NodeSpec> nodes;

  unsigned nr_cpus() const;
  uint64_t total_pages() const;
  // Checks alignment, ordering and limits; returns an error message or empty.
  std::string validate() const;

  // n nodes, each `cpus` CPUs and one Normal zone of `bytes`; node 0 may also get DMA/DMA32.
  static MachineSpec uniform(unsigned nodes, unsigned cpus_per_node, uint64_t bytes_per_node,
                             bool low_zones = false);
};

}  // namespace pagesim::mm
