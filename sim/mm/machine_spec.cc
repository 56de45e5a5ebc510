#include "pagesim/mm/machine_spec.h"

#include <fmt/format.h>

namespace pagesim::mm {

unsigned MachineSpec::nr_cpus() const {
  unsigned n = 0;
  for (const NodeSpec& node : nodes) n += node.cpus;
  return n;
}

uint64_t MachineSpec::total_pages() const {
  uint64_t n = 0;
  for (const NodeSpec& node : nodes)
    for (const ZoneSpec& z : node.zones) n += z.pages;
  return n;
}

std::string MachineSpec::validate() const {
  constexpr uint64_t kBlock = uint64_t{1} << (MAX_ORDER - 1);
  if (nodes.empty()) return "machine.nodes: at least one node is needed";
  if (nodes.size() > MAX_NUMNODES) return fmt::format("machine.nodes: at most {} nodes", MAX_NUMNODES);
  for (size_t n = 0; n < nodes.size(); ++n) {
    const NodeSpec& node = nodes[n];
    if (node.cpus == 0 || node.cpus > 4096) return fmt::format("machine: node {} needs 1 to 4096 CPUs", n);
    if (node.zones.empty()) return fmt::format("machine: node {} has no memory", n);
    int last = -1;
    for (const ZoneSpec& z : node.zones) {
      if (static_cast<int>(z.type) <= last) return fmt::format("machine: node {} zones must be in ascending order, each once", n);
      last = z.type;
      if (z.pages == 0 || z.pages % kBlock)
        return fmt::format("machine: node {} zone {} size must be a positive multiple of 4M (MAX_ORDER block)", n,
                           zone_name(z.type));
    }
  }
  if (nr_cpus() > 4096) return "machine: at most 4096 CPUs";
  return {};
}

MachineSpec MachineSpec::uniform(unsigned nodes, unsigned cpus_per_node, uint64_t bytes_per_node, bool low_zones) {
  MachineSpec spec;
  for (unsigned n = 0; n < nodes; ++n) {
    NodeSpec node;
    node.cpus = cpus_per_node;
    uint64_t pages = bytes_per_node / PAGE_SIZE;
    if (low_zones && n == 0) {
      const uint64_t dma = (16ull << 20) / PAGE_SIZE;
      const uint64_t dma32 = std::min<uint64_t>((4ull << 30) / PAGE_SIZE - dma, pages / 4) / 1024 * 1024;
      node.zones.push_back({ZONE_DMA, dma});
      node.zones.push_back({ZONE_DMA32, dma32});
      pages -= dma + dma32;
    }
    node.zones.push_back({ZONE_NORMAL, pages});
    spec.nodes.push_back(node);
  }
  return spec;
}

}  // namespace pagesim::mm
