#include "pagesim/report/procfs.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>

namespace pagesim::report {

namespace {

using mm::Zone;

// zone_page_state_snapshot: the atomic counter plus every CPU's unfolded diff.
long zone_stat(const Zone& z, mm::zone_stat_item item) {
  long v = z.zone_page_state(item);
  for (unsigned c = 0; c < z.nr_cpus; ++c) v += z.cpu[c].vm_stat_diff[item];
  return std::max(v, 0L);  // the kernel clamps negative snapshots to 0 too
}

uint64_t zone_events(const Zone& z, mm::vm_event_item item) {
  uint64_t n = 0;
  for (unsigned c = 0; c < z.nr_cpus; ++c) n += z.cpu[c].events[item];
  return n;
}

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

// The NUMA event items of zoneinfo and vmstat, in the kernel's order. The model has no
// interleave policy, so numa_interleave is honestly 0.
struct NumaItem {
  const char* name;
  int event;  // -1: not counted by the model, always 0
};
constexpr NumaItem kNumaItems[] = {
    {"numa_hit", mm::NUMA_HIT},     {"numa_miss", mm::NUMA_MISS},   {"numa_foreign", mm::NUMA_FOREIGN},
    {"numa_interleave", -1},        {"numa_local", mm::NUMA_LOCAL}, {"numa_other", mm::NUMA_OTHER},
};

uint64_t numa_value(const Zone& z, const NumaItem& item) {
  return item.event < 0 ? 0 : zone_events(z, static_cast<mm::vm_event_item>(item.event));
}

void zoneinfo_zone(std::string& out, const mm::Machine& m, const Zone& z) {
  out += fmt::format("Node {}, zone {:>8}", z.node, z.name());
  out += fmt::format(
      "\n  pages free     {}"
      "\n        boost    {}"
      "\n        min      {}"
      "\n        low      {}"
      "\n        high     {}"
      "\n        spanned  {}"
      "\n        present  {}"
      "\n        managed  {}"
      "\n        cma      {}",
      zone_stat(z, mm::NR_FREE_PAGES), z.watermark_boost, z.min_wmark_pages(), z.low_wmark_pages(),
      z.high_wmark_pages(), z.spanned_pages, z.present_pages, z.managed_pages, 0 /* no CMA areas */);
  out += fmt::format("\n        protection: ({}", z.lowmem_reserve[0]);
  for (unsigned i = 1; i < mm::MAX_NR_ZONES; ++i) out += fmt::format(", {}", z.lowmem_reserve[i]);
  out += ')';
  if (!z.populated()) {
    out += '\n';
    return;
  }
  // Zone stat items the model keeps: NR_FREE_PAGES and NR_FREE_CMA_PAGES. The LRU, mlock,
  // bounce and zsmalloc items are not modelled and are left out.
  out += fmt::format("\n      {:<12} {}", "nr_free_pages", zone_stat(z, mm::NR_FREE_PAGES));
  out += fmt::format("\n      {:<12} {}", "nr_free_cma", zone_stat(z, mm::NR_FREE_CMA_PAGES));
  for (const NumaItem& item : kNumaItems) out += fmt::format("\n      {:<12} {}", item.name, numa_value(z, item));
  out += "\n  pagesets";
  // Since 6.7 (the pcp->high auto-tuning series) each pageset also prints its high_min and
  // high_max, and the labels are padded to them.
  const bool tuned_high = m.config().behaviour.pcp_high_autotune;
  for (unsigned c = 0; c < m.nr_cpus(); ++c) {
    const mm::PerCpuPages& pcp = z.pcp(c);
    if (tuned_high)
      out += fmt::format(
          "\n    cpu: {}"
          "\n              count:    {}"
          "\n              high:     {}"
          "\n              batch:    {}"
          "\n              high_min: {}"
          "\n              high_max: {}",
          c, pcp.count, pcp.high, pcp.batch, pcp.high_min, pcp.high_max);
    else
      out += fmt::format(
          "\n    cpu: {}"
          "\n              count: {}"
          "\n              high:  {}"
          "\n              batch: {}",
          c, pcp.count, pcp.high, pcp.batch);
    out += fmt::format("\n  vm stats threshold: {}", z.cpu[c].stat_threshold);
  }
  // kswapd is not modelled, so it never fails: node_unreclaimable is 0.
  out += fmt::format(
      "\n  node_unreclaimable:  {}"
      "\n  start_pfn:           {}\n",
      0, z.zone_start_pfn);
}

// pagetypeinfo_showfree_print caps the list walk at 100000 entries.
std::string free_count(unsigned long n) {
  constexpr unsigned long kCap = 100000;
  return n >= kCap ? fmt::format(">{:6} ", kCap) : fmt::format("{:6} ", n);
}

void pagetypeinfo_node(std::string& out, const mm::Machine& m, const mm::Node& node) {
  out += fmt::format("Page block order: {}\n", mm::pageblock_order);
  out += fmt::format("Pages per block:  {}\n\n", mm::pageblock_nr_pages);
  out += fmt::format("{:<43} ", "Free pages count per migrate type at order");
  for (unsigned o = 0; o < mm::MAX_ORDER; ++o) out += fmt::format("{:6} ", o);
  out += '\n';
  for (const Zone& z : node.zones) {
    if (!z.populated()) continue;
    for (unsigned mt = 0; mt < mm::MIGRATE_TYPES; ++mt) {
      out += fmt::format("Node {:4}, zone {:>8}, type {:>12} ", z.node, z.name(), mm::migratetype_name(mt));
      for (unsigned o = 0; o < mm::MAX_ORDER; ++o) out += free_count(z.free_area[o].nr_blocks[mt]);
      out += '\n';
    }
  }
  out += fmt::format("\n{:<23}", "Number of blocks type ");
  for (unsigned mt = 0; mt < mm::MIGRATE_TYPES; ++mt) out += fmt::format("{:>12} ", mm::migratetype_name(mt));
  out += '\n';
  for (const Zone& z : node.zones) {
    if (!z.populated()) continue;
    uint64_t count[mm::MIGRATE_TYPES] = {};
    for (mm::pfn_t pfn = z.zone_start_pfn; pfn < z.zone_end_pfn(); pfn += mm::pageblock_nr_pages) {
      const unsigned mt = m.get_pageblock_migratetype(pfn);
      if (mt < mm::MIGRATE_TYPES) count[mt]++;
    }
    out += fmt::format("Node {}, zone {:>8} ", z.node, z.name());
    for (unsigned mt = 0; mt < mm::MIGRATE_TYPES; ++mt) out += fmt::format("{:12} ", count[mt]);
    out += '\n';
  }
}

// --- lock_stat ---

// snprint_time: nanoseconds as microseconds with two decimals, rounded as the kernel does.
std::string lock_time(uint64_t ns) {
  const uint64_t nr = ns + 5;
  return fmt::format("{}.{:02}", nr / 1000, (nr % 1000) / 10);
}

constexpr unsigned kLockStatWidth = 40 + 1 + 12 * (14 + 1);
constexpr unsigned kLockstatPoints = 4;  // LOCKSTAT_POINTS

std::string seq_line(char c, unsigned offset, unsigned length) {
  return std::string(offset, ' ') + std::string(length, c) + "\n";
}

// One lock class: the instances' counters merged as lockdep keeps them per class.
struct LockClassStat {
  std::string name;
  uint64_t contentions = 0, acquisitions = 0, bounces = 0;
  uint64_t wait_total = 0, wait_min = 0, wait_max = 0;
  uint64_t hold_total = 0, hold_min = 0, hold_max = 0;
  std::map<std::string, uint64_t> points;
};

// Merges min over instances that have samples (0 stays "no sample", as in struct lock_time).
void merge_min(uint64_t& into, uint64_t v, uint64_t samples) {
  if (samples && (into == 0 || v < into)) into = v;
}

std::vector<LockClassStat> lock_classes(const std::vector<run::LockStat>& locks) {
  std::vector<LockClassStat> classes;
  for (const run::LockStat& l : locks) {
    auto it = std::find_if(classes.begin(), classes.end(), [&](const LockClassStat& c) { return c.name == l.name; });
    if (it == classes.end()) it = classes.insert(classes.end(), LockClassStat{l.name});
    it->contentions += l.contentions;
    it->acquisitions += l.acquisitions;
    it->bounces += l.bounces;
    it->wait_total += l.wait_ns_total;
    it->hold_total += l.hold_ns_total;
    it->wait_max = std::max(it->wait_max, l.wait_ns_max);
    it->hold_max = std::max(it->hold_max, l.hold_ns_max);
    merge_min(it->wait_min, l.wait_ns_min, l.contentions);
    merge_min(it->hold_min, l.hold_ns_min, l.acquisitions);
    for (const auto& [site, n] : l.contention_points) it->points[site] += n;
  }
  // lock_stat_cmp: most contended first. stable_sort keeps the input order among equals.
  std::stable_sort(classes.begin(), classes.end(),
                   [](const LockClassStat& a, const LockClassStat& b) { return a.contentions > b.contentions; });
  return classes;
}

// seq_lock_time: count, min, max, total, avg.
std::string lock_times(uint64_t nr, uint64_t min, uint64_t max, uint64_t total) {
  return fmt::format("{:14} {:>14} {:>14} {:>14} {:>14}", nr, lock_time(min), lock_time(max), lock_time(total),
                     lock_time(nr ? total / nr : 0));
}

void lock_stat_class(std::string& out, const LockClassStat& c) {
  if (c.acquisitions == 0) return;  // seq_stats prints nothing for a class never held
  const std::string name = c.name.substr(0, 37);  // snprintf(name, 38, ...)
  // A contended spinlock was last taken on another CPU, so every contention is a con-bounce.
  out += fmt::format("{:>40}:{:14} ", name, c.contentions);
  out += lock_times(c.contentions, c.wait_min, c.wait_max, c.wait_total);
  out += fmt::format(" {:14} ", c.bounces);
  out += lock_times(c.acquisitions, c.hold_min, c.hold_max, c.hold_total);
  out += '\n';
  if (c.contentions == 0) return;
  // The first LOCKSTAT_POINTS contention points; the model keeps counts, not first-seen order,
  // so the busiest come first.
  std::vector<std::pair<std::string, uint64_t>> points(c.points.begin(), c.points.end());
  std::stable_sort(points.begin(), points.end(), [](const auto& a, const auto& b) { return a.second > b.second; });
  if (points.size() > kLockstatPoints) points.resize(kLockstatPoints);
  if (points.empty()) return;
  out += seq_line('-', 40 - static_cast<unsigned>(name.size()), static_cast<unsigned>(name.size()));
  for (const auto& [site, n] : points)
    out += fmt::format("{:>40} {:14} {:>29} {}+0x0/0x0\n", name, n, "[<0000000000000000>]", site);
  // The kernel closes the block after the contending points, which the model does not track;
  // the separator is kept so that parsers that split on it still work.
  out += '\n';
  out += seq_line('.', 0, kLockStatWidth);
  out += '\n';
}

}  // namespace

std::string buddyinfo(const mm::Machine& m) {
  std::string out;
  for (const Zone* z : m.populated_zones()) {
    out += fmt::format("Node {}, zone {:>8} ", z->node, z->name());
    for (unsigned o = 0; o < mm::MAX_ORDER; ++o) out += fmt::format("{:6} ", z->free_area[o].nr_free);
    out += "\n";
  }
  return out;
}

std::string zoneinfo(const mm::Machine& m) {
  std::string out;
  for (unsigned n = 0; n < m.nr_nodes(); ++n)
    for (const Zone& z : m.node(n).zones) zoneinfo_zone(out, m, z);
  return out;
}

std::vector<std::pair<std::string, uint64_t>> vmstat_items(const mm::Machine& m) {
  const std::vector<Zone*>& zones = m.populated_zones();
  auto sum_stat = [&](mm::zone_stat_item item) {
    uint64_t v = 0;
    for (const Zone* z : zones) v += static_cast<uint64_t>(zone_stat(*z, item));
    return v;
  };
  auto sum_events = [&](mm::vm_event_item item) {
    uint64_t v = 0;
    for (const Zone* z : zones) v += zone_events(*z, item);
    return v;
  };
  std::vector<std::pair<std::string, uint64_t>> items;
  items.emplace_back("nr_free_pages", sum_stat(mm::NR_FREE_PAGES));
  items.emplace_back("nr_free_cma", sum_stat(mm::NR_FREE_CMA_PAGES));
  for (const NumaItem& item : kNumaItems) {
    uint64_t v = 0;
    for (const Zone* z : zones) v += numa_value(*z, item);
    items.emplace_back(item.name, v);
  }
  // TEXTS_FOR_ZONES("pgalloc"): one per zone type, populated or not.
  for (unsigned zt = 0; zt < mm::MAX_NR_ZONES; ++zt) {
    uint64_t v = 0;
    for (const Zone* z : zones)
      if (z->idx == zt) v += zone_events(*z, mm::PGALLOC);
    items.emplace_back("pgalloc_" + lower(mm::zone_name(zt)), v);
  }
  items.emplace_back("pgfree", sum_events(mm::PGFREE));
  items.emplace_back(std::string(mm::vm_event_name(mm::HTLB_BUDDY_PGALLOC)), sum_events(mm::HTLB_BUDDY_PGALLOC));
  items.emplace_back(std::string(mm::vm_event_name(mm::HTLB_BUDDY_PGALLOC_FAIL)), sum_events(mm::HTLB_BUDDY_PGALLOC_FAIL));
  for (unsigned i = 0; i < mm::NR_VM_EVENT_ITEMS; ++i)
    if (!mm::vm_event_in_kernel(i))
      items.emplace_back(std::string(kSimulatorOnly) + std::string(mm::vm_event_name(i)), sum_events(static_cast<mm::vm_event_item>(i)));
  return items;
}

std::string vmstat(const mm::Machine& m) {
  std::string out;
  for (const auto& [name, value] : vmstat_items(m)) out += fmt::format("{} {}\n", name, value);
  return out;
}

std::string pagetypeinfo(const mm::Machine& m) {
  std::string out;
  for (unsigned n = 0; n < m.nr_nodes(); ++n) {
    const mm::Node& node = m.node(n);
    const bool has_memory = std::any_of(std::begin(node.zones), std::end(node.zones), [](const Zone& z) { return z.populated(); });
    if (has_memory) pagetypeinfo_node(out, m, node);  // memoryless nodes print nothing
  }
  return out;
}

std::string lock_stat(const std::vector<run::LockStat>& locks) {
  std::string out = "lock_stat version 0.4\n";
  out += seq_line('-', 0, kLockStatWidth);
  out += fmt::format("{:>40} {:>14} {:>14} {:>14} {:>14} {:>14} {:>14} {:>14} {:>14} {:>14} {:>14} {:>14} {:>14}\n",
                     "class name", "con-bounces", "contentions", "waittime-min", "waittime-max", "waittime-total",
                     "waittime-avg", "acq-bounces", "acquisitions", "holdtime-min", "holdtime-max", "holdtime-total",
                     "holdtime-avg");
  out += seq_line('-', 0, kLockStatWidth);
  out += '\n';
  for (const LockClassStat& c : lock_classes(locks)) lock_stat_class(out, c);
  return out;
}

run::ProcSnapshot snapshot(const mm::Machine& m, const std::vector<run::LockStat>& locks) {
  return run::ProcSnapshot{buddyinfo(m), zoneinfo(m), vmstat(m), pagetypeinfo(m), lock_stat(locks)};
}

}  // namespace pagesim::report
