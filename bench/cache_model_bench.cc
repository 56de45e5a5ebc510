// Throughput of the software cache model on the Ice Lake-SP 8358 geometry (128 CPUs).
// Each benchmark reports accesses per second (items_per_second). Access streams are
// generated before timing so that only the model is measured.
#include <benchmark/benchmark.h>

#include <cstdint>
#include <vector>

#include "pagesim/cache/cache_model.h"

namespace pagesim::cache {
namespace {

struct Access {
  uint32_t cpu;
  uint16_t node;
  AccessKind kind;
  uint64_t line;
};

struct Rng {  // splitmix64
  uint64_t s;
  uint64_t next() {
    uint64_t z = (s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }
};

constexpr uint64_t kVmemmapLine = VMEMMAP_BASE >> 6;
constexpr uint64_t kPagesPerNode = (64ull << 30) >> 12;  // 64 GiB per node

void run(benchmark::State& state, const std::vector<Access>& stream) {
  CacheModel m(CacheGeometry::icelake_8358());
  size_t i = 0;
  for (auto _ : state) {
    const Access& a = stream[i];
    benchmark::DoNotOptimize(m.access(a.cpu, a.line, a.node, a.kind));
    if (++i == stream.size()) i = 0;
  }
  state.SetItemsProcessed(state.iterations());
  const CacheStats& s = m.stats();
  const double n = static_cast<double>(s.sum());
  state.counters["l1_hit%"] = 100.0 * s.sum({.outcome = Outcome::l1}) / n;
  state.counters["hitm%"] = 100.0 * (s.sum({.outcome = Outcome::hitm_local}) + s.sum({.outcome = Outcome::hitm_remote})) / n;
}

// One CPU re-reading 256 lines: the L1 hit path.
void BM_L1Hit(benchmark::State& state) {
  std::vector<Access> stream;
  for (uint64_t l = 0; l < 256; ++l) stream.push_back({0, 0, AccessKind::load, kVmemmapLine + l});
  run(state, stream);
}
BENCHMARK(BM_L1Hit);

// Hugetlb-style struct-page walks: a random CPU takes a random 2 MiB block of a 128 GiB
// machine, reads its 512 struct pages (check_new_pages over every subpage), then writes
// them (prep_compound_page).
void BM_StructPageWalk(benchmark::State& state) {
  Rng rng{1};
  std::vector<Access> stream;
  for (int op = 0; op < 2048; ++op) {
    const auto cpu = static_cast<uint32_t>(rng.next() % 128);
    const uint64_t head = (rng.next() % (2 * kPagesPerNode / 512)) * 512;
    const auto node = static_cast<uint16_t>(head / kPagesPerNode);
    for (AccessKind k : {AccessKind::load, AccessKind::store})
      for (uint64_t p = head; p < head + 512; ++p) stream.push_back({cpu, node, k, kVmemmapLine + p});
  }
  run(state, stream);
}
BENCHMARK(BM_StructPageWalk);

// Random lines over 1 GiB of struct pages from random CPUs, one access in four a store:
// mostly misses, the slow path.
void BM_Random(benchmark::State& state) {
  Rng rng{2};
  std::vector<Access> stream;
  for (int i = 0; i < (1 << 20); ++i) {
    const uint64_t pfn = rng.next() % (2 * kPagesPerNode);
    stream.push_back({static_cast<uint32_t>(rng.next() % 128), static_cast<uint16_t>(pfn / kPagesPerNode),
                      rng.next() % 4 ? AccessKind::load : AccessKind::store, kVmemmapLine + pfn});
  }
  run(state, stream);
}
BENCHMARK(BM_Random);

// 128 CPUs taking turns at RMWs on 4 lock/counter lines: every access a HITM.
void BM_ContendedRmw(benchmark::State& state) {
  Rng rng{3};
  std::vector<Access> stream;
  for (int i = 0; i < 4096; ++i)
    stream.push_back({static_cast<uint32_t>(i % 128), 0, AccessKind::rmw, (ZONE_BASE >> 6) + rng.next() % 4});
  run(state, stream);
}
BENCHMARK(BM_ContendedRmw);

// replay() of 64 per-CPU logs of struct-page walks, merge included.
void BM_Replay(benchmark::State& state) {
  Rng rng{4};
  std::vector<std::vector<TimedAccess>> logs(64);
  size_t total = 0;
  for (unsigned c = 0; c < logs.size(); ++c) {
    uint64_t tsc = rng.next() % 1000;
    for (int op = 0; op < 8; ++op) {
      const uint64_t head = (rng.next() % (2 * kPagesPerNode / 512)) * 512;
      for (uint64_t p = head; p < head + 512; ++p) {
        tsc += 1 + rng.next() % 8;
        logs[c].push_back({.tsc = tsc, .line = kVmemmapLine + p,
                           .node = static_cast<uint16_t>(head / kPagesPerNode),
                           .kind = AccessKind::load, .line_kind = LineKind::struct_page});
      }
    }
    total += logs[c].size();
  }
  for (auto _ : state) {
    state.PauseTiming();
    CacheModel m(CacheGeometry::icelake_8358());
    state.ResumeTiming();
    m.replay(logs);
    benchmark::DoNotOptimize(m.stats().sum());
  }
  state.SetItemsProcessed(state.iterations() * total);
}
BENCHMARK(BM_Replay)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace pagesim::cache

BENCHMARK_MAIN();
