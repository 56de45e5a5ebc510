// The virtual-time engine's throughput in modelled accesses per host second (issue 5's goal:
// 20 M/s). Each case runs real model code on fibers and reports `accesses/s` (modelled
// accesses, i.e. cache-model calls, per second of host time).
#include <benchmark/benchmark.h>

#include "pagesim/engine/virtual/virtual.h"
#include "pagesim/mm/config.h"
#include "pagesim/mm/page_alloc.h"
#include "pagesim/vt/machine_model.h"

namespace pagesim {
namespace {

mm::Machine& machine_2x64() {
  static mm::Machine m(mm::MachineSpec::uniform(2, 64, 1ull << 30), *mm::preset_config("v5.17+mel"), mm::HostMemory{});
  return m;
}

// order-9 allocations and frees through pcp list 13 on `vcpus` vCPUs: refill walks, compound
// prep, free_pages_prepare, buddy merges, under the contended zone lock.
void BM_ThpAllocFree(benchmark::State& state) {
  const auto vcpus = static_cast<unsigned>(state.range(0));
  mm::Machine m(mm::MachineSpec::uniform(2, vcpus / 2, 1ull << 30), *mm::preset_config("v5.17+mel"), mm::HostMemory{});
  VirtualEngine eng(m, vt::load_machine_model(vt::default_machine_file()));
  uint64_t accesses = 0;
  for (auto _ : state) {
    eng.run(vcpus, [&](VirtualCpu& ex) {
      mm::Mm<VirtualCpu> mm(m, ex);
      for (int i = 0; i < 8; ++i) {
        mm::Page* p = mm.alloc_pages_node(ex.node(), mm::GFP_HIGHUSER_MOVABLE | mm::__GFP_COMP, 9);
        if (p) mm.__free_pages(p, 9);
      }
      mm.drain_local_pages();
    });
  }
  for (unsigned t = 0; t < vcpus; ++t) accesses += eng.task(t).model_accesses();
  state.counters["accesses/s"] = benchmark::Counter(static_cast<double>(accesses), benchmark::Counter::kIsRate);
}
BENCHMARK(BM_ThpAllocFree)->Arg(2)->Arg(128)->Unit(benchmark::kMillisecond);

// One vCPU walking struct pages (access_range), the engine's cheapest path per line.
void BM_StructPageWalk(benchmark::State& state) {
  mm::Machine& m = machine_2x64();
  VirtualEngine eng(m, vt::load_machine_model(vt::default_machine_file()));
  for (auto _ : state)
    eng.run(1, [&](VirtualCpu& ex) {
      for (uint64_t i = 0; i < 64; ++i)  // 64 order-9 blocks' struct pages, 512 lines each
        ex.access_range(Line{VMEMMAP_BASE + i * 512 * sizeof(mm::Page), 0, LineKind::struct_page}, 512, 64,
                        AccessKind::load, Site::check_new_pages);
    });
  state.counters["accesses/s"] = benchmark::Counter(static_cast<double>(eng.task(0).model_accesses()), benchmark::Counter::kIsRate);
}
BENCHMARK(BM_StructPageWalk)->Unit(benchmark::kMillisecond);

// The cost of one causality yield: `tasks` tasks on as many vCPUs, each advancing its clock by
// 1 ns and passing sync(), so that nearly every sync() hands over to the next task (its clock
// is now past theirs). Reports the engine's count of yields per host second, and yields per
// sync(); no cache-model work.
void BM_CausalityYield(benchmark::State& state) {
  const auto tasks = static_cast<unsigned>(state.range(0));
  mm::Machine m(mm::MachineSpec::uniform(2, tasks / 2, 1ull << 30), *mm::preset_config("v5.17"), mm::HostMemory{});
  VirtualEngine eng(m, vt::load_machine_model(vt::default_machine_file()));
  constexpr unsigned kSyncs = 20000;
  const uint64_t yields0 = eng.causality_yields();  // counted since the engine was made
  for (auto _ : state)
    eng.run(tasks, [&](VirtualCpu& ex) {
      for (unsigned i = 0; i < kSyncs; ++i) {
        ex.advance(1000);
        ex.sync();
      }
    });
  const auto yields = static_cast<double>(eng.causality_yields() - yields0);
  state.counters["yields/s"] = benchmark::Counter(yields, benchmark::Counter::kIsRate);
  state.counters["yields/sync"] = yields / (static_cast<double>(state.iterations()) * tasks * kSyncs);
}
BENCHMARK(BM_CausalityYield)->Arg(2)->Arg(128)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace pagesim

BENCHMARK_MAIN();
