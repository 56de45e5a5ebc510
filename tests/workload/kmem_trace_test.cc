// kmem_trace on tests/workload/kmem_trace/hand.trace, worked out by hand: its request streams,
// their timing (traced and flood) on the virtual engine, replicate's disjoint copies, and the
// trace with more CPUs than the machine.
//
// The trace's requests (times after the first request, 10.000000 s):
//   CPU 0: alloc 0x1000 o0 @0, alloc 0x1001 o0 @0, free 0x1000 @50 us, alloc 0x1200 o9 @1 ms,
//          free 0x2000 o1 @2 ms (allocated on CPU 1)
//   CPU 1: alloc 0x2000 o1 @10 us, folio free of 0x1200 o9 @3 ms (its mm_page_free_batched;
//          the block was allocated on CPU 0)
// Skipped: the free of 0x3000 (allocated before the trace), the failed order-10 allocation.
// Not requests: the zone_locked, pcpu_drain and vmstat_update lines.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <string>

#include "pagesim/error.h"
#include "pagesim/run/runner.h"
#include "pagesim/scenario/load.h"
#include "pagesim/trace/ftrace.h"
#include "pagesim/workload/kmem_trace.h"

namespace pagesim::workload {
namespace {

using Op = KmemRequest::Op;

const std::string kHand = std::string(PAGESIM_SOURCE_DIR) + "/tests/workload/kmem_trace/hand.trace";

struct Expect {
  Op op;
  double at_us;
  uint64_t pfn;
  unsigned order;
  uint32_t line;
};

void expect_stream(const std::vector<KmemRequest>& got, const std::vector<Expect>& want, const std::string& what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  for (size_t i = 0; i < want.size(); ++i) {
    EXPECT_EQ(got[i].op, want[i].op) << what << " #" << i;
    EXPECT_NEAR(got[i].at_s * 1e6, want[i].at_us, 1e-3) << what << " #" << i;
    EXPECT_EQ(got[i].pfn, want[i].pfn) << what << " #" << i;
    EXPECT_EQ(got[i].order, want[i].order) << what << " #" << i;
    EXPECT_EQ(got[i].line, want[i].line) << what << " #" << i;
  }
}

TEST(KmemRequests, HandTraceByHand) {
  const KmemRequests r = kmem_requests(trace::read_ftrace(kHand), 1, 0);
  EXPECT_EQ(r.traced_cpus, 2u);
  ASSERT_EQ(r.cpus.size(), 2u);
  expect_stream(r.cpus[0],
                {{Op::alloc, 0, 0x1000, 0, 8}, {Op::alloc, 0, 0x1001, 0, 9}, {Op::free, 50, 0x1000, 0, 12},
                 {Op::alloc, 1000, 0x1200, 9, 15}, {Op::free, 2000, 0x2000, 1, 16}},
                "CPU 0");
  expect_stream(r.cpus[1], {{Op::alloc, 10, 0x2000, 1, 11}, {Op::free_folio, 3000, 0x1200, 9, 19}}, "CPU 1");
  // Each free names the slot of the allocation it returns, across CPUs.
  EXPECT_EQ(r.slots, 4u);
  EXPECT_EQ(r.cpus[0][2].slot, r.cpus[0][0].slot);
  EXPECT_EQ(r.cpus[0][4].slot, r.cpus[1][0].slot);
  EXPECT_EQ(r.cpus[1][1].slot, r.cpus[0][3].slot);
  // The traced gfp with the traced migratetype.
  EXPECT_EQ(r.cpus[1][0].gfp & (mm::__GFP_MOVABLE | mm::__GFP_RECLAIMABLE), 0u);
  EXPECT_NE(r.cpus[0][0].gfp & mm::__GFP_MOVABLE, 0u);
  EXPECT_EQ(r.pretrace_frees, 1u);
  EXPECT_EQ(r.failed_allocs, 1u);
  EXPECT_NEAR(r.span_s, 3e-3, 1e-9);
  EXPECT_EQ(r.first_line, (std::vector<uint32_t>{8, 11}));
  EXPECT_EQ(r.requests(), 7u);
  // The first 4 requests in the file's order: CPU 0's first three and CPU 1's allocation.
  const KmemRequests first = kmem_requests(trace::read_ftrace(kHand), 1, 4);
  EXPECT_EQ(first.cpus[0].size(), 3u);
  EXPECT_EQ(first.cpus[1].size(), 1u);
}

TEST(KmemRequests, ReplicateGivesDisjointPfns) {
  const KmemRequests one = kmem_requests(trace::read_ftrace(kHand), 1, 0);
  const KmemRequests r = kmem_requests(trace::read_ftrace(kHand), 3, 0);
  ASSERT_EQ(r.cpus.size(), 6u);
  EXPECT_EQ(r.slots, 12u);
  // Whole MAX_ORDER blocks past the highest traced page (0x2000 + 2 pages).
  EXPECT_EQ(r.pfn_stride, 0x2400u);
  struct Block {
    uint64_t start, end;
    unsigned copy;
  };
  std::vector<Block> blocks;
  std::vector<std::vector<uint32_t>> slots(3);
  for (unsigned k = 0; k < 3; ++k)
    for (unsigned c = 0; c < 2; ++c) {
      const std::vector<KmemRequest>& copy = r.cpus[k * 2 + c];
      ASSERT_EQ(copy.size(), one.cpus[c].size());
      for (size_t i = 0; i < copy.size(); ++i) {
        EXPECT_EQ(copy[i].pfn, one.cpus[c][i].pfn + k * r.pfn_stride);
        EXPECT_EQ(copy[i].slot, one.cpus[c][i].slot + k * one.slots);
        EXPECT_EQ(copy[i].at_s, one.cpus[c][i].at_s);
        EXPECT_EQ(copy[i].op, one.cpus[c][i].op);
        blocks.push_back({copy[i].pfn, copy[i].pfn + (uint64_t{1} << copy[i].order), k});
        slots[k].push_back(copy[i].slot);
      }
    }
  for (const Block& a : blocks)
    for (const Block& b : blocks)
      if (a.copy != b.copy) EXPECT_TRUE(a.end <= b.start || b.end <= a.start) << std::hex << a.start << " " << b.start;
  for (unsigned k = 0; k < 3; ++k)
    for (unsigned j = k + 1; j < 3; ++j)
      for (uint32_t s : slots[k]) EXPECT_EQ(std::count(slots[j].begin(), slots[j].end(), s), 0);
}

// The real trace the shipped scenario issues (PAGESIM_TRACES_DIR; skipped when absent): its
// 468182 mm_page_alloc lines all allocations, its 470757 mm_page_free lines the frees, 4138 of
// them of blocks from before the trace, on 2 CPUs over 16 s.
TEST(KmemRequests, DevThpVmstat) {
  const std::string path = std::string(PAGESIM_TRACES_DIR) + "/dev_thp_vmstat.trace.xz";
  if (!std::filesystem::exists(path)) GTEST_SKIP() << path << " is absent";
  const KmemRequests r = kmem_requests(trace::read_ftrace(path), 1, 0);
  EXPECT_EQ(r.traced_cpus, 2u);
  EXPECT_EQ(r.slots, 468182u);
  EXPECT_EQ(r.pretrace_frees, 4138u);
  EXPECT_EQ(r.failed_allocs, 0u);
  EXPECT_EQ(r.requests(), 468182u + 470757u - 4138u);
  EXPECT_GT(r.span_s, 16.0);
  EXPECT_LT(r.span_s, 16.3);
}

run::RunResult run_hand(const std::string& params, unsigned cpus, const std::string& engine = "virtual") {
  const std::string yaml = fmt::format(
      "machine: {{nodes: 1, cpus_per_node: {}, memory_per_node: 256M}}\n"
      "kernel: {{presets: [v6.18]}}\nworkload: {{name: kmem_trace, params: {{trace: '{}', {}}}}}\nengine: {{name: {}}}\n",
      cpus, kHand, params, engine);
  scenario::LoadOptions opt;
  opt.engines = run::engine_names();
  const std::vector<run::RunResult> runs = run::run_all(scenario::load_string(yaml, "kmem.yaml", opt), {});
  EXPECT_EQ(runs.size(), 1u);
  EXPECT_TRUE(runs[0].violations.empty()) << runs[0].violations.front();
  return runs[0];
}

// timing: traced issues each request at its time: CPU 1's folio free at 3 ms is the last, so
// the phase ends 3 ms after it began plus that request's own time in the allocator; CPU 0's
// second allocation, due at 0 like its first, is issued late, after the first. No free waits:
// each block was allocated long before its free was due.
// timing: flood issues each CPU's requests back to back: the phase is the requests' own time,
// no request is late, and CPU 1's folio free of 0x1200 (its second request) waits for CPU 0 to
// allocate the block (its fourth).
TEST(KmemTrace, TracedAndFloodTiming) {
  const run::RunResult traced = run_hand("timing: traced", 2);
  const auto& t = traced.metrics;
  EXPECT_EQ(t.at("requests"), 7);
  EXPECT_EQ(t.at("allocs"), 4);
  EXPECT_EQ(t.at("frees"), 3);
  EXPECT_EQ(t.at("alloc_failures"), 0);
  EXPECT_EQ(t.at("pretrace_frees"), 1);
  EXPECT_EQ(t.at("traced_failed_allocs"), 1);
  EXPECT_EQ(t.at("late_requests"), 1);
  EXPECT_EQ(t.at("free_waits"), 0);
  EXPECT_GT(t.at("elapsed_s"), 3e-3);
  EXPECT_LE(t.at("elapsed_s"), 3e-3 + t.at("latency_max_ns") * 1e-9 + 1e-12);

  const run::RunResult flood = run_hand("timing: flood", 2);
  const auto& f = flood.metrics;
  EXPECT_EQ(f.at("requests"), 7);
  EXPECT_EQ(f.at("late_requests"), 0);
  EXPECT_EQ(f.at("free_waits"), 1);
  // CPU 0's five requests back to back, or CPU 1's wait for CPU 0's fourth and then its free:
  // at most the seven requests' times one after the other, plus one wait step (100 ns).
  EXPECT_GT(f.at("elapsed_s"), f.at("latency_max_ns") * 1e-9);
  EXPECT_LE(f.at("elapsed_s"), (7 * f.at("latency_mean_ns") + 100) * 1e-9 + 1e-12);
  EXPECT_LT(f.at("elapsed_s"), 1e-3);
}

// The virtual engine gives the same answer to the same trace, bit for bit.
TEST(KmemTrace, VirtualRunsAreDeterministic) {
  const run::RunResult a = run_hand("timing: flood, replicate: 2", 4);
  const run::RunResult b = run_hand("timing: flood, replicate: 2", 4);
  EXPECT_EQ(a.metrics, b.metrics);
}

// replicate: 2 on 4 CPUs: every copy's requests, counts doubled, on blocks of their own (a free
// of another copy's block would free a page twice and stop the run).
TEST(KmemTrace, ReplicateRunsEveryCopy) {
  const run::RunResult r = run_hand("timing: flood, replicate: 2", 4);
  EXPECT_EQ(r.metrics.at("requests"), 14);
  EXPECT_EQ(r.metrics.at("allocs"), 8);
  EXPECT_EQ(r.metrics.at("frees"), 6);
  EXPECT_EQ(r.metrics.at("pretrace_frees"), 2);
  EXPECT_EQ(r.metrics.at("alloc_failures"), 0);
}

TEST(KmemTrace, RunsOnTheNativeEngine) {
  const run::RunResult r = run_hand("timing: traced", 2, "native");
  EXPECT_EQ(r.metrics.at("requests"), 7);
  EXPECT_EQ(r.metrics.at("allocs"), 4);
  EXPECT_EQ(r.metrics.at("frees"), 3);
}

// The trace's CPU 1 issues requests (first at line 11): a machine of one CPU cannot run it, nor
// can two CPUs run two copies of two CPUs. The scenario's load says so (so `pagesim validate`
// does), at the trace key's line.
TEST(KmemTrace, MoreTracedCpusThanTheMachineIsAnInputError) {
  for (const auto& [params, cpus, want] :
       {std::tuple{std::string("timing: traced"), 1u, std::string("so 2 CPUs are needed, but the machine has 1")},
        std::tuple{std::string("replicate: 2"), 2u, std::string("so 4 CPUs (2 x replicate 2) are needed, but the machine has 2")}}) {
    try {
      run_hand(params, cpus);
      ADD_FAILURE() << params << ": no error";
    } catch (const InputError& e) {
      const std::string msg = e.what();
      EXPECT_EQ(msg.rfind("kmem.yaml:3:", 0), 0u) << msg;
      EXPECT_NE(msg.find(": workload.params.trace: " + kHand + ":11: the trace issues requests on CPU 1"), std::string::npos) << msg;
      EXPECT_NE(msg.find(want), std::string::npos) << msg;
    }
  }
}

}  // namespace
}  // namespace pagesim::workload
