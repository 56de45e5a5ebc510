// A fixed amount of cache-model work, for counting tools: run it under cachegrind
// (`valgrind --tool=cachegrind --cache-sim=yes --branch-sim=yes build/bench/cache_walk_count`)
// to get instructions, simulated cache misses and branch mispredictions per modelled access,
// which a noisy host's timings cannot resolve (docs/performance.md, "Measuring").
//
// The Ice Lake-SP 8358 geometry is warmed with 6,000 struct-page walks (a random CPU of 128,
// a random 2 MiB block of 128 GiB: 512 loads, then 512 stores, prefetch_sets 8 lines and
// prefetch_victim 4 lines ahead as the virtual engine does), then `blocks` more (argument, default 2,000) are timed. Prints the
// accesses of the whole run (the divisor for the counters) and the time per timed access.
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <string>

#include "pagesim/cache/cache_model.h"

int main(int argc, char** argv) {
  using namespace pagesim;
  constexpr int kWarmBlocks = 6000;
  const int blocks = argc > 1 ? std::stoi(argv[1]) : 2000;
  cache::CacheModel m(cache::CacheGeometry::icelake_8358());
  uint64_t x = 12345;  // xorshift64: the same walks everywhere
  auto next = [&] {
    x ^= x << 13, x ^= x >> 7, x ^= x << 17;
    return x;
  };
  const uint64_t base = VMEMMAP_BASE >> 6;
  uint64_t total = 0, timed = 0;
  auto t0 = std::chrono::steady_clock::now();
  for (int b = 0; b < kWarmBlocks + blocks; ++b) {
    if (b == kWarmBlocks) t0 = std::chrono::steady_clock::now();
    const auto cpu = static_cast<unsigned>(next() % 128);
    const uint64_t head = (next() % 65536) * 512;
    const auto node = static_cast<uint16_t>(head >> 24 & 1);  // 2^24 pfns = 64 GiB per node
    for (AccessKind kind : {AccessKind::load, AccessKind::store})
      for (uint64_t i = 0; i < 512; ++i) {
        if (i + 8 < 512) m.prefetch_sets(cpu, base + head + i + 8);
        if (i + 4 < 512) m.prefetch_victim(cpu, base + head + i + 4);
        m.access(cpu, base + head + i, node, kind);
        ++total, timed += b >= kWarmBlocks;
      }
  }
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::printf("%llu accesses in all, %llu timed: %.1f ns per timed access\n", static_cast<unsigned long long>(total),
              static_cast<unsigned long long>(timed), s * 1e9 / static_cast<double>(timed));
}
