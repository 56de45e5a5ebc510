// memmap_init: seed 004 (parallel struct-page initialisation, memset as a prefetch) on
// pagesim's own memmap. The struct pages of `size` of simulated memory (64 bytes per 4 KiB
// page) are initialised in fresh, already faulted host memory, every CPU its share (the seed's
// per-node deferred init threads), in one of three ways:
//   memset         the whole share zeroed at once, as memblock zeroed the vmemmap before the seed;
//   fields         __init_single_page field by field (init_single_page), no memset;
//   memset_fields  each struct page memset (mm_zero_struct_page) and then set field by field:
//                  the seed's change, where the memset of a line acts as a prefetch for the
//                  stores that follow it.
// Reported as seconds per TiB of simulated memory, the seed's unit. Host engines only.
#include <fmt/format.h>

#include <cstring>

#include "pagesim/huge_region.h"
#include "pagesim/mm/page.h"
#include "pagesim/workload/host_cpus.h"
#include "pagesim/workload/registry.h"

namespace pagesim::workload {

namespace {

constexpr run::Metric kInitS{"init_s", "s", run::kUniprocessor | run::kNative,
                             "the initialisation's wall time (all CPUs, first start to last end)", true};
constexpr run::Metric kSPerTib{"s_per_tib", "s", run::kUniprocessor | run::kNative,
                               "init_s scaled to 1 TiB of simulated memory, the seed's unit", true};
constexpr run::Metric kStructPages{"struct_pages", "", run::kUniprocessor | run::kNative, "struct pages initialised", false, true};

void init_share(mm::Page* pages, uint64_t n, const std::string& method, unsigned nid) {
  if (method == "memset") {
    std::memset(static_cast<void*>(pages), 0, n * sizeof(mm::Page));
  } else {
    const bool zero_first = method == "memset_fields";
    for (uint64_t i = 0; i < n; ++i) {
      if (zero_first) std::memset(static_cast<void*>(pages + i), 0, sizeof(mm::Page));  // mm_zero_struct_page
      mm::init_single_page(pages + i, nid, mm::ZONE_NORMAL);
    }
  }
  asm volatile("" : : "r"(pages) : "memory");
}

class MemmapInit : public ProgramOf<MemmapInit> {
 public:
  using ProgramOf::ProgramOf;

  template <class D>
  void on(D& d) const {
    const std::string method = params().string("method");
    uint64_t bytes = static_cast<uint64_t>(params().integer("size"));
    if (d.short_mode()) bytes = std::min<uint64_t>(bytes, 4ull << 30);
    const uint64_t nr_pages = bytes / mm::PAGE_SIZE;
    HugeRegion memmap(nr_pages * sizeof(mm::Page), "memmap_init");
    for (uint64_t off = 0; off < memmap.bytes(); off += 4096) memmap.data()[off] = 1;  // faulted, untimed
    auto* pages = reinterpret_cast<mm::Page*>(memmap.data());
    on_host_cpus(d, [&](unsigned cpu, unsigned n) {
      const uint64_t share = nr_pages / n, first = cpu * share, count = cpu + 1 == n ? nr_pages - first : share;
      init_share(pages + first, count, method, d.machine().cpu_to_node(cpu));
    });
    auto& m = d.result().metrics;
    kInitS.set(m, d.elapsed_s());
    kSPerTib.set(m, d.elapsed_s() * static_cast<double>(1ull << 40) / static_cast<double>(nr_pages * mm::PAGE_SIZE));
    kStructPages.set(m, static_cast<double>(nr_pages));
  }
};

}  // namespace

WorkloadInfo memmap_init_workload() {
  using config::ParamType;
  using run::kNative, run::kUniprocessor;
  WorkloadInfo w{
      "memmap_init",
      "seed 004: initialise the struct pages of SIZE of memory (memset, field by field, or both), every CPU its share; "
      "seconds per TiB (host engines only)",
      {
          {"method", ParamType::choice, std::string("fields"), {}, {}, {"memset", "fields", "memset_fields"},
           "bulk memset only, __init_single_page field by field, or each struct page memset then set field by field"},
          {"size", ParamType::size, int64_t{64} << 30, int64_t{1} << 30, 1e15, {}, "simulated memory whose struct pages are initialised"},
      },
      run::metric_infos(kInitS, kSPerTib, kStructPages),
      make_program<MemmapInit>,
  };
  w.engines = kUniprocessor | kNative;
  w.headline = "s_per_tib";
  return w;
}

}  // namespace pagesim::workload
