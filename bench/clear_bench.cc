// Seed 000's goal: clearing a huge page in one contiguous extent (multi_page) reaches at least
// 0.9x memset's bandwidth on the same buffer. Every mode of clear_huge_page over a 256 MiB
// buffer of 2 MiB huge pages (hugetlb if free, else THP), bytes per second; compare
// BM_Clear/multi_page with BM_Clear/memset of the same run.
#include <benchmark/benchmark.h>

#include "clear_huge_page/host_buffer.h"
#include "pagesim/vt/clear_pages.h"

namespace pagesim::workload {
namespace {

using vt::ClearMode, vt::clear_extent, vt::clear_mode_name;

void BM_Clear(benchmark::State& state, ClearMode mode) {
  constexpr uint64_t kBytes = 256u << 20, kHuge = 2u << 20;
  static HostHugeBuffer buf(kBytes, kHuge);  // one buffer for every mode: the same pages
  clear_extent(buf.data(), kBytes, kHuge, ClearMode::memset);  // faulted in, warm TLB
  for (auto _ : state) clear_extent(buf.data(), kBytes, kHuge, mode);
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * kBytes));
  state.SetLabel(buf.backing());
}
BENCHMARK_CAPTURE(BM_Clear, memset, ClearMode::memset)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_Clear, multi_page, ClearMode::multi_page)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_Clear, per_subpage, ClearMode::per_subpage)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_Clear, nontemporal, ClearMode::nontemporal)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace pagesim::workload
BENCHMARK_MAIN();
