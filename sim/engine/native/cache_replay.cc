#include "cache_replay.h"

#include <fmt/format.h>

#include <algorithm>
#include <queue>

#include "pagesim/cache/cache_model.h"
#include "pagesim/mm/zone.h"
#include "../summaries.h"

namespace pagesim::engine {

// The regions from the top of the address space down: .data sits above the vmemmap.
std::string line_name(uint64_t line) {
  const uint64_t addr = line << 6;
  if (addr >= GLOBAL_BASE) return fmt::format(".data+{:#x} (vm_zone_stat/hstate/hugetlb_lock)", addr - GLOBAL_BASE);
  if (addr >= VMEMMAP_BASE) return fmt::format("struct page pfn {:#x}", (addr - VMEMMAP_BASE) / 64);
  if (addr >= PERCPU_BASE) return fmt::format("per-cpu area of cpu {}", (addr - PERCPU_BASE) / mm::kPercpuAreaStride);
  if (addr >= ZONE_BASE) {
    const uint64_t zone = (addr - ZONE_BASE) / mm::kZoneStride, off = (addr - ZONE_BASE) % mm::kZoneStride;
    const char* field = off >= mm::kZoneVmStatOff ? "vm_stat" : off >= mm::kZoneLockOff - 8 ? "lock" : off >= mm::kZoneFreeAreaOff ? "free_area" : "watermarks";
    return fmt::format("zone node{}/{} {}", zone / mm::MAX_NR_ZONES, mm::zone_name(zone % mm::MAX_NR_ZONES), field);
  }
  return fmt::format("line {:#x}", line);
}

void replay_native_logs(const mm::Machine& m, const std::vector<const std::vector<LoggedAccess>*>& logs, run::CacheSummary& out) {
  unsigned cores = 1;
  for (const mm::NodeSpec& n : m.spec().nodes) cores = std::max(cores, n.cpus);
  cache::CacheGeometry g;
  g.sockets = m.nr_nodes();
  g.cores_per_socket = cores;
  g.threads_per_core = 1;
  if (std::string err = g.validate(); !err.empty()) {
    out.model = "cache model unavailable for this machine shape: " + err;
    return;
  }
  cache::CacheModel model(g);
  // Model CPU of machine CPU c: its node's socket, its index within the node.
  std::vector<unsigned> model_cpu(m.nr_cpus());
  std::vector<unsigned> seen(m.nr_nodes(), 0);
  for (unsigned c = 0; c < m.nr_cpus(); ++c) model_cpu[c] = m.cpu_to_node(c) * cores + seen[m.cpu_to_node(c)]++;

  // k-way merge by (epoch, cpu); within a CPU the log order stands.
  using Head = std::pair<uint64_t, unsigned>;  // epoch, cpu
  std::priority_queue<Head, std::vector<Head>, std::greater<>> heap;
  std::vector<size_t> pos(logs.size(), 0);
  for (unsigned c = 0; c < logs.size(); ++c)
    if (!logs[c]->empty()) heap.push({(*logs[c])[0].epoch, c});
  while (!heap.empty()) {
    const unsigned c = heap.top().second;
    heap.pop();
    const LoggedAccess& a = (*logs[c])[pos[c]];
    const cache::Attribution attr{a.site, a.ctx, a.line_kind};
    for (uint32_t i = 0; i < a.n; ++i)
      model.access(model_cpu[c], (a.addr + uint64_t{i} * a.stride) >> 6, a.node, a.kind, attr);
    if (++pos[c] < logs[c]->size()) heap.push({(*logs[c])[pos[c]].epoch, c});
  }

  const cache::CacheStats& st = model.stats();
  out.model = fmt::format("software cache model: {} socket{} x {} core{}, L1d 48K, L2 1.25M, LLC 48M per socket "
                          "(Ice Lake-SP sizes); logs replayed after the run",
                          g.sockets, g.sockets == 1 ? "" : "s", g.cores_per_socket, g.cores_per_socket == 1 ? "" : "s");
  summarize_cache_model(st, out);
  // Named by line, not by rank, so that the comparison puts the same line side by side.
  for (const cache::ContendedLine& l : st.top_lines(5, line_name)) out.counters["c2c: " + l.name] = l.counts.total();
}

}  // namespace pagesim::engine
