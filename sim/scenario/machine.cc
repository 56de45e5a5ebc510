// The `machine` section.
#include <fmt/format.h>

#include "pagesim/config/diagnostics.h"
#include "pagesim/mm/config.h"
#include "pagesim/mm/types.h"
#include "pagesim/config/units.h"
#include "sections.h"

namespace pagesim::scenario::detail {

namespace {

constexpr int64_t kBlockBytes = int64_t{mm::PAGE_SIZE} << (mm::MAX_ORDER - 1);  // 4M
constexpr int64_t kMaxZoneBytes = int64_t{1} << 46;                             // 64T
constexpr int64_t kMaxCpus = 4096;

// Zone sizes must be whole MAX_ORDER blocks: the buddy allocator's unit of memory.
int64_t read_block_size(const Node& n, const std::string& path, int64_t lo) {
  const int64_t bytes = read_size(n, path, lo, kMaxZoneBytes);
  if (bytes % kBlockBytes)
    fail(n.pos, path, fmt::format("expected a multiple of {} (one MAX_ORDER block), got {}", format_size(kBlockBytes), describe(n)));
  return bytes;
}

std::vector<std::string> zone_names() {
  std::vector<std::string> names;
  for (unsigned z = 0; z < mm::MAX_NR_ZONES; ++z) names.emplace_back(mm::zone_name(z));
  return names;
}

mm::NodeSpec read_node(const Node& n, const std::string& path, nlohmann::ordered_json& out) {
  const MapView m(n, path, {"cpus", "zones"});
  mm::NodeSpec node;
  node.cpus = m.has("cpus") ? static_cast<unsigned>(read_integer(*m.get("cpus"), m.path("cpus"), 1, kMaxCpus)) : 1;
  const std::vector<std::string> names = zone_names();
  const MapView zones(m.require("zones"), m.path("zones"), names);
  if (zones.node().entries.empty()) fail(zones.node().pos, m.path("zones"), "expected at least one zone, got none");
  out["cpus"] = node.cpus;
  nlohmann::ordered_json& zj = out["zones"];
  // Listed in zone order whatever order the file uses, as MachineSpec requires.
  for (unsigned z = 0; z < mm::MAX_NR_ZONES; ++z)
    if (const Node* zn = zones.get(names[z])) {
      const int64_t bytes = read_block_size(*zn, zones.path(names[z]), kBlockBytes);
      node.zones.push_back({static_cast<mm::zone_type>(z), static_cast<uint64_t>(bytes) / mm::PAGE_SIZE});
      zj[names[z]] = format_size(bytes);
    }
  return node;
}

}  // namespace

MachineSection read_machine(const Node& n) {
  const MapView m(n, "machine", {"nodes", "cpus_per_node", "memory_per_node", "low_zones", "min_free_kbytes"});
  MachineSection out;
  nlohmann::ordered_json& r = out.resolved;
  const Node* nodes = m.get("nodes");
  if (nodes && nodes->kind == Node::Kind::sequence) {
    for (const char* k : {"cpus_per_node", "memory_per_node", "low_zones"})
      if (m.has(k))
        fail(m.key_pos(k), m.path(k), "not allowed with an explicit list of nodes; give each node its own cpus and zones");
    if (nodes->items.empty()) fail(nodes->pos, m.path("nodes"), "expected at least one node, got an empty list");
    if (nodes->items.size() > mm::MAX_NUMNODES)
      fail(nodes->pos, m.path("nodes"), fmt::format("expected at most {} nodes, got {}", mm::MAX_NUMNODES, nodes->items.size()));
    r["nodes"] = nlohmann::ordered_json::array();
    for (size_t i = 0; i < nodes->items.size(); ++i) {
      nlohmann::ordered_json nj;
      out.spec.nodes.push_back(read_node(nodes->items[i], fmt::format("machine.nodes[{}]", i), nj));
      r["nodes"].push_back(std::move(nj));
    }
  } else {
    const unsigned nr = nodes ? static_cast<unsigned>(read_integer(*nodes, m.path("nodes"), 1, mm::MAX_NUMNODES)) : 1;
    const Node* cpn = m.get("cpus_per_node");
    const unsigned cpus = cpn ? static_cast<unsigned>(read_integer(*cpn, m.path("cpus_per_node"), 1, kMaxCpus / nr)) : 1;
    const bool low_zones = m.has("low_zones") && read_bool(*m.get("low_zones"), m.path("low_zones"));
    // With low zones node 0 also holds 16M of DMA and a DMA32 zone; 32M leaves Normal non-empty.
    const int64_t bytes = read_block_size(m.require("memory_per_node"), m.path("memory_per_node"), low_zones ? 8 * kBlockBytes : kBlockBytes);
    out.spec = mm::MachineSpec::uniform(nr, cpus, static_cast<uint64_t>(bytes), low_zones);
    r["nodes"] = nr;
    r["cpus_per_node"] = cpus;
    r["memory_per_node"] = format_size(bytes);
    r["low_zones"] = low_zones;
  }
  if (const Node* mfk = m.get("min_free_kbytes")) {
    // The knob's own parser defines what is valid, so the two spellings cannot drift apart.
    mm::KernelConfig scratch;
    out.min_free_kbytes = apply_knob(scratch, "min_free_kbytes", *mfk, m.path("min_free_kbytes"));
  }
  r["min_free_kbytes"] = out.min_free_kbytes == "auto" ? nlohmann::ordered_json("auto") : nlohmann::ordered_json(std::stoull(out.min_free_kbytes));
  if (const std::string err = out.spec.validate(); !err.empty()) fail(n.pos, "machine", err);
  return out;
}

}  // namespace pagesim::scenario::detail
