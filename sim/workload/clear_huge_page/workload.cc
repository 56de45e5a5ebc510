// clear_huge_page: seed 000's clearing modes and seed 002's parallel clearing. On the host
// engines every CPU clears its share of a real huge-page buffer (host_buffer.h) in the mode
// of vt/clear_pages.h, `passes` times, then memsets it as the reference; on the virtual engine `threads`
// vCPUs clear it through the memory model (one thread's clear bandwidth in the mode, each socket's DRAM
// bandwidth shared by the clears on it: docs/machine-model.md), with its pages on the clearing
// vCPU's node or spread over `page_nodes` nodes.
#include <fmt/format.h>

#include <algorithm>
#include <optional>
#include <vector>

#include "host_buffer.h"
#include "pagesim/error.h"
#include "pagesim/mm/memmap.h"
#include "pagesim/result/samples.h"
#include "pagesim/vt/clear_pages.h"
#include "pagesim/workload/host_cpus.h"
#include "pagesim/workload/registry.h"

namespace pagesim::workload {

namespace {

constexpr run::Metric kClearGbs{"clear_gbs", "GB/s", run::kAllEngines,
                                "bytes / time of a clearing pass (host engines: the median of the passes)", true};
constexpr run::Metric kClearGbsStddevPct{"clear_gbs_stddev_pct", "%", run::kUniprocessor | run::kNative,
                                         "stddev of the passes' GB/s, % of their mean", true};
constexpr run::Metric kClearMinS{"clear_min_s", "s", run::kUniprocessor | run::kNative,
                                 "the fastest pass's time (seed 002 reports the minimum over its runs)", true};
constexpr run::Metric kMemsetGbs{"memset_gbs", "GB/s", run::kUniprocessor | run::kNative,
                                 "the same passes with memset on the same buffer: the reference", true};
constexpr run::Metric kClearVsMemset{"clear_vs_memset", "", run::kUniprocessor | run::kNative, "clear_gbs / memset_gbs", true};
constexpr run::Metric kBytesCleared{"bytes_cleared", "B", run::kAllEngines,
                                    "bytes per pass (size in whole huge pages; on the host engines, whole huge pages per CPU)", false,
                                    true};

using vt::ClearMode, vt::clear_extent, vt::clear_mode_name;

struct ClearSetup {
  ClearMode mode;
  uint64_t huge_bytes, bytes;
  unsigned passes;
  unsigned threads;     // the CPUs that clear: the first ones
  unsigned page_nodes;  // 0: each page on its clearer's node; else spread over nodes 0..page_nodes-1
  bool largest = false;  // size 0: as many bytes as the host's hugetlb pool gives, up to `bytes`
};

uint64_t huge_bytes_of(const config::Params& p) { return p.string("page_size") == "1G" ? 1ull << 30 : 2ull << 20; }
unsigned threads_of(const config::Params& p, unsigned cpus) {
  return p.integer("threads") ? static_cast<unsigned>(p.integer("threads")) : cpus;
}
// Host CPUs clear contiguous shares of whole huge pages; the virtual tasks take 2 MiB chunks in
// turn, so whole huge pages suffice there.
uint64_t size_unit(const config::Params& p, unsigned cpus, bool host) {
  return host ? huge_bytes_of(p) * threads_of(p, cpus) : huge_bytes_of(p);
}

// What the machine rules out: `cpus` is the machine's, `nodes` its NUMA nodes; `host` says the
// engine clears real memory, where every CPU clears and the pages are first-touched.
std::optional<ParamProblem> machine_problem(const config::Params& p, unsigned cpus, unsigned nodes, bool host) {
  const unsigned threads = threads_of(p, cpus);
  const auto page_nodes = static_cast<unsigned>(p.integer("page_nodes"));
  if (threads > cpus || (host && threads != cpus))
    return ParamProblem{"threads", fmt::format("{} threads on {} CPUs ({})", threads, cpus,
                                               host ? "the host engines clear on every CPU: give 0" : "at most one per vCPU")};
  if (page_nodes > nodes || (host && page_nodes))
    return ParamProblem{"page_nodes", fmt::format("{} nodes on a machine of {} ({})", page_nodes, nodes,
                                                  host ? "the host engines first-touch their pages: give 0" : "at most its nodes")};
  const uint64_t unit = size_unit(p, cpus, host);
  if (!p.integer("size") && !host)
    return ParamProblem{"size", "0 asks for the largest buffer the host can back, which only the host engines clear"};
  if (p.integer("size") && static_cast<uint64_t>(p.integer("size")) < unit)
    return ParamProblem{"size", host ? fmt::format("{} MiB is below one {} MiB page per CPU ({} CPUs)", p.integer("size") >> 20,
                                                   huge_bytes_of(p) >> 20, threads)
                                     : fmt::format("{} MiB is below one {} MiB page", p.integer("size") >> 20, huge_bytes_of(p) >> 20)};
  return std::nullopt;
}

ClearSetup read_setup(const config::Params& p, unsigned cpus, unsigned nodes, bool host, bool short_mode,
                      const std::string& source) {
  if (const std::optional<ParamProblem> bad = machine_problem(p, cpus, nodes, host))  // the loader checked it first
    throw InputError(fmt::format("{}: workload.params.{}: {}", source, bad->param, bad->message));
  ClearSetup s;
  s.mode = *vt::parse_clear_mode(p.string("mode"));
  s.huge_bytes = huge_bytes_of(p);
  s.bytes = static_cast<uint64_t>(p.integer("size"));
  s.passes = static_cast<unsigned>(p.integer("passes"));
  s.threads = threads_of(p, cpus);
  s.page_nodes = static_cast<unsigned>(p.integer("page_nodes"));
  const uint64_t unit = size_unit(p, cpus, host);
  if (!s.bytes)  // the largest: 3/4 of what the host has available, as far as its pool gives pages
    s.bytes = std::max(unit, mm::HostMemory::probe().mem_available_bytes / 4 * 3), s.largest = true;
  if (short_mode) s.bytes = s.huge_bytes * s.threads, s.passes = std::min(s.passes, 2u);
  s.bytes = s.bytes / unit * unit;
  return s;
}

// Every CPU clears its share in `mode`, `passes` times; GB/s of each pass (all bytes over the
// span from the first start to the last end). The last pass stays the run's measured phase.
template <class D>
std::vector<double> host_passes(D& d, const ClearSetup& s, char* buf, ClearMode mode) {
  std::vector<double> gbs;
  for (unsigned pass = 0; pass < s.passes; ++pass) {
    on_host_cpus(d, [&](unsigned cpu, unsigned n) { clear_extent(buf + cpu * (s.bytes / n), s.bytes / n, s.huge_bytes, mode); });
    gbs.push_back(static_cast<double>(s.bytes) / (d.elapsed_s() * 1e9));
  }
  return gbs;
}

// With s.largest, s.bytes becomes what the buffer got.
template <class D>
void run_host(D& d, ClearSetup& s) {
  HostHugeBuffer buf(s.bytes, s.huge_bytes, s.largest ? s.huge_bytes * s.threads : 0);
  s.bytes = buf.bytes();
  clear_extent(buf.data(), s.bytes, s.huge_bytes, ClearMode::memset);  // the faults, untimed
  const std::vector<double> reference = host_passes(d, s, buf.data(), ClearMode::memset);
  const std::vector<double> clear = host_passes(d, s, buf.data(), s.mode);
  run::RunResult& r = d.result();
  auto& m = r.metrics;
  kClearGbs.set(m, run::median_of(clear));
  kClearGbsStddevPct.set(m, run::stddev_pct_of(clear));
  kClearMinS.set(m, static_cast<double>(s.bytes) / (*std::max_element(clear.begin(), clear.end()) * 1e9));  // seed 002's figure
  kMemsetGbs.set(m, run::median_of(reference));
  kClearVsMemset.set(m, kClearGbs.get(m) / kMemsetGbs.get(m));
  r.notes.push_back(fmt::format("clear_huge_page buffer: {}", buf.backing()));
}

// The virtual engine: `threads` tasks (on the first vCPUs, node 0's first, under the default
// pinned policy) clear the buffer 2 MiB at a time, as the memory model charges clear_huge_page.
// Chunk i goes to task i % threads, so the tasks advance through the huge pages together, as
// ktask splits each gigantic page among its workers (seed 002). A chunk is homed on its
// clearer's node (first touch) with page_nodes 0; else the pages fill nodes 0..page_nodes-1 in
// order, an equal part each, as the default policy falls back to the next node once one is full.
void run_modelled(engine::VirtualDriver& d, const ClearSetup& s) {
  const unsigned n = s.threads;
  constexpr uint64_t kChunk = 2ull << 20;
  const uint64_t chunks = s.bytes / kChunk, pages = s.bytes / s.huge_bytes;
  d.run_tasks(n, [&](VirtualCpu& ex) {
    d.barrier(ex);
    if (ex.task() == 0) d.mark_start(d.now(ex));
    for (uint64_t i = ex.task(); i < chunks; i += n) {
      const uint64_t page = i * kChunk / s.huge_bytes;
      ex.clear_huge_page(s.page_nodes ? static_cast<unsigned>(page * s.page_nodes / pages) : ex.node(), s.mode);
    }
    d.barrier(ex);
    if (ex.task() == 0) d.mark_end(d.now(ex));
  });
  run::RunResult& r = d.result();
  kClearGbs.set(r.metrics, static_cast<double>(s.bytes) / (d.elapsed_s() * 1e9));
  if (s.mode == ClearMode::nontemporal || s.mode == ClearMode::memset)
    r.notes.push_back(fmt::format("clear_huge_page: the machine file gives per-subpage and multi-page clear rates; mode {} "
                                  "is cleared at the per-subpage one",
                                  clear_mode_name(s.mode)));
  if (s.mode == ClearMode::multi_page && s.huge_bytes > kChunk)
    r.notes.push_back("clear_huge_page: multi-page clearing of 1 GiB pages at the machine file's rate, which is of 2 MiB pages "
                      "(seed 000 measured 1 GiB extents faster still)");
}

class ClearHugePage : public ProgramOf<ClearHugePage> {
 public:
  using ProgramOf::ProgramOf;

  template <class D>
  void on(D& d) const {
    const unsigned cpus = is_uniprocessor<D> ? 1 : d.nr_cpus();
    ClearSetup s = read_setup(params(), cpus, d.machine().nr_nodes(), !is_virtual<D>, d.short_mode(), d.source());
    if constexpr (is_virtual<D>)
      run_modelled(d, s);
    else
      run_host(d, s);
    kBytesCleared.set(d.result().metrics, static_cast<double>(s.bytes));
  }
};

}  // namespace

WorkloadInfo clear_huge_page_workload() {
  using config::ParamType;
  using run::kAllEngines;
  WorkloadInfo w{
      "clear_huge_page",
      "seeds 000 and 002: every CPU clears its share of a huge-page buffer (per subpage, multi-page, non-temporal or "
      "memset); real memory on the host engines, the memory model on the virtual engine",
      {
          {"mode", ParamType::choice, std::string("per_subpage"), {}, {}, {"per_subpage", "multi_page", "nontemporal", "memset"},
           "how a huge page is cleared (vt/clear_pages.h)"},
          {"page_size", ParamType::choice, std::string("2M"), {}, {}, {"2M", "1G"}, "the huge page size"},
          {"size", ParamType::size, int64_t{1} << 30, 0, 1e15, {},
           "bytes cleared per pass, over all CPUs (0, host engines: the largest the host backs with huge pages, "
           "at most 3/4 of MemAvailable)"},
          {"passes", ParamType::integer, int64_t{5}, 1, 1000, {}, "timed passes on the host engines (their median and fastest are reported)"},
          {"threads", ParamType::integer, int64_t{0}, 0, 4096, {},
           "CPUs that clear, the first ones (0: all; the host engines clear on every CPU)"},
          {"page_nodes", ParamType::integer, int64_t{0}, 0, 64, {},
           "virtual engine: 0 homes each page on its clearer's node; N fills nodes 0..N-1 in page order, an equal part each"},
      },
      run::metric_infos(kClearGbs, kClearGbsStddevPct, kClearMinS, kMemsetGbs, kClearVsMemset, kBytesCleared),
      make_program<ClearHugePage>,
      kAllEngines,
      [](const config::Params& p, const mm::MachineSpec& m, const std::string& engine, const std::string&) {
        return machine_problem(p, engine == "uniprocessor" ? 1 : m.nr_cpus(), static_cast<unsigned>(m.nodes.size()),
                               engine != "virtual");
      },
      [](const config::Params& p, const vt::MachineModel& m, const std::string& source) {
        vt::require_clear_rate(m, *vt::parse_clear_mode(p.string("mode")), source + ": workload.params.mode");
      },
  };
  w.headline = "clear_gbs";
  return w;
}

}  // namespace pagesim::workload
