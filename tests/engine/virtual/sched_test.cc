// The virtual engine's scheduler layer: time sharing when tasks outnumber vCPUs, the cfs
// policy's placement decisions, NUMA balancing by the kernel's rules, and trace replay. Every
// expected time follows from the engine's rules (switch cost, slice) and the tasks' work.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>

#include "mm/test_util.h"
#include "pagesim/error.h"
#include "pagesim/engine/virtual/numa_balancing.h"
#include "pagesim/engine/virtual/virtual.h"
#include "pagesim/vt/machine_model.h"

namespace pagesim {
namespace {

vt::MachineModel model_1ghz() {
  vt::MachineModel m = vt::load_machine_model(vt::default_machine_file());
  m.freq_mhz = 1000;  // work(n) is n ns
  return m;
}

VirtualOptions options() {
  VirtualOptions o;
  o.sched.switch_cost_ps = 5000000;
  return o;
}

// Two tasks pinned to one vCPU: the second waits until the first is done (no tick, so no
// preemption), then pays one context switch.
TEST(VirtualSched, PinnedTasksBeyondTheVcpusQueueForTheirCpu) {
  auto m = test::machine(1, 1, 64ull << 20);
  VirtualEngine eng(*m, model_1ghz(), options(), make_sched_policy("pinned", {}));
  std::vector<ps_t> done(2);
  eng.run(2, [&](VirtualCpu& ex) {
    ex.work(1000, Site::workload);
    done[ex.task()] = ex.clock();
  });
  EXPECT_EQ(done[0], 1000000u);
  EXPECT_EQ(done[1], 1000000u + 5000000u + 1000000u);
  EXPECT_EQ(eng.busy_until(eng.now()), 2000000u);
}

// Busy time up to a moment counts the runs that ended and the current run's part before it:
// the first task's 1 us, then the second's first 0.5 us after its context switch.
TEST(VirtualSched, BusyUntilCountsTheCurrentRunUpToThatTime) {
  auto m = test::machine(1, 1, 64ull << 20);
  VirtualEngine eng(*m, model_1ghz(), options(), make_sched_policy("pinned", {}));
  ps_t mid = 0;
  eng.run(2, [&](VirtualCpu& ex) {
    ex.work(1000, Site::workload);
    if (ex.task() == 1) mid = eng.busy_until(1000000u + 5000000u + 500000u);
  });
  EXPECT_EQ(mid, 1500000u);
}

// Under cfs two tasks on one vCPU share it in slices of sched_slice: 24 ms of latency over
// two runnable tasks is 12 ms each, so 30 ms of work each is cut at 12 and 24 ms of it.
TEST(VirtualSched, CfsTimeSharesOneVcpuInSlices) {
  auto m = test::machine(1, 1, 64ull << 20);
  SchedParams p;
  VirtualOptions o = options();
  VirtualEngine eng(*m, model_1ghz(), o, make_sched_policy("cfs", p));
  std::vector<ps_t> done(2);
  const uint64_t units = 30;  // 30 ms of work each, 1 ms per unit
  eng.run(2, [&](VirtualCpu& ex) {
    ex.run_user(units, {1e9});
    done[ex.task()] = ex.clock();
  });
  EXPECT_EQ(eng.task(0).involuntary_switches(), 2u) << "12 ms slices over 30 ms of work";
  EXPECT_EQ(eng.task(1).involuntary_switches(), 2u);
  // Both finish after about 60 ms of shared CPU, not 30 and 60.
  EXPECT_GT(done[0], 50000000000u);
  EXPECT_GT(done[1], 55000000000u);
  EXPECT_EQ(eng.task(0).user_ps() + eng.task(1).user_ps(), 60000000000u);
}

// sched_slice never falls below the minimum granularity: with 16 runnable tasks, 3 ms.
TEST(VirtualSched, CfsSliceIsTheLatencySharedAmongTheRunnableTasks) {
  SchedParams p;
  auto cfs = make_sched_policy("cfs", p);
  EXPECT_EQ(cfs->slice(1), 24000000000u);
  EXPECT_EQ(cfs->slice(2), 12000000000u);
  EXPECT_EQ(cfs->slice(16), 3000000000u);
  EXPECT_EQ(make_sched_policy("pinned", p)->slice(2), 0u);
}

TEST(VirtualSched, TwoHundredFiftySixTasksOnOneHundredTwentyEightVcpus) {
  auto m = test::machine(2, 64, 256ull << 20);
  VirtualEngine eng(*m, model_1ghz(), options(), make_sched_policy("cfs", {}));
  std::vector<unsigned> ran(256, 0);
  eng.run(256, [&](VirtualCpu& ex) {
    ex.start_barrier();
    ex.run_user(10, {1e9, 1e9});
    ex.barrier();
    ran[ex.task()] = 1;
  });
  EXPECT_EQ(std::count(ran.begin(), ran.end(), 1u), 256);
  EXPECT_GE(eng.busy_until(eng.now()), 256u * 10000000000u) << "every task's 10 ms ran on some vCPU";
}

// usemem's start on 2 nodes x 8 vCPUs, the parent on CPU 0. Fork: the children sleep in
// poll() at once, so the parent's node stays below a quarter of the CPUs running and every
// child goes to the CPU idle most recently: the first child's, CPU 1. The parent's write wakes
// all 16 from CPU 0 (WF_SYNC): the first goes back to its idle prev, the next six to node 0's
// idle CPUs (select_idle_sibling: idle cores first), the seventh to CPU 0 itself
// (wake_affine_idle: sync with one task running). The rest find node 0 full:
// wake_affine_weight compares the waker's load without the parent plus the wakee (2, 2, 3, 3,
// ... x 100) with prev's (1, 2, 2, 3, ... x 108 + 1), so they alternate between CPU 1 and
// CPU 0. Node 1 stays empty until a balance pulls.
TEST(VirtualSched, CfsBroadcastWakeFillsTheParentsNodeThenStacks) {
  auto m = test::machine(2, 8, 64ull << 20);
  std::vector<unsigned> forked_cpu(16), woke(16);
  bool snapped = false;
  VirtualEngine eng(*m, model_1ghz(), options(), make_sched_policy("cfs", {}));
  eng.run(16, [&](VirtualCpu& ex) {
    ex.start_barrier();
    forked_cpu[ex.task()] = ex.placements()[1].cpu;  // [0]: the run's own fork, [1]: the start pipe's
    if (!snapped) woke = eng.runqueues().task_cpu, snapped = true;  // every wake-up is done when the first runs
    ex.work(100, Site::workload);
  });
  for (unsigned t = 0; t < 16; ++t) EXPECT_EQ(forked_cpu[t], 1u) << "task " << t;
  const auto on = [&](unsigned cpu) { return std::count(woke.begin(), woke.end(), cpu); };
  EXPECT_EQ(woke[0], 1u) << "back to its idle prev";
  for (unsigned cpu : {2u, 3u, 4u, 5u, 6u, 7u}) EXPECT_EQ(on(cpu), 1) << "cpu " << cpu;
  EXPECT_EQ(on(0), 5) << "the seventh, then every other overflow";
  EXPECT_EQ(on(1), 5) << "the first and every other overflow";
  for (unsigned cpu = 8; cpu < 16; ++cpu) EXPECT_EQ(on(cpu), 0) << "node 1 is empty at wake-up";
}

// usemem's clock: the parent takes start_time before its fork loop, so every child of a start
// is timed from one instant, at or before its own fork, and a later start moves it.
TEST(VirtualSched, ChildrenAreTimedFromTheParentsStartBeforeTheForks) {
  auto m = test::machine(2, 4, 64ull << 20);
  std::vector<ps_t> start(8), forked(8), second(8);
  VirtualEngine eng(*m, model_1ghz(), options(), make_sched_policy("cfs", {}));
  eng.run(8, [&](VirtualCpu& ex) {
    ex.work(1000 * (ex.task() + 1), Site::workload);  // the tasks reach the start unevenly
    ex.start_barrier();
    start[ex.task()] = ex.parent_start_time(), forked[ex.task()] = ex.forked_at();
    ex.work(5000, Site::workload);
    ex.start_barrier();
    second[ex.task()] = ex.parent_start_time();
  });
  for (unsigned t = 0; t < 8; ++t) {
    EXPECT_EQ(start[t], start[0]) << t;
    EXPECT_LE(start[t], forked[t]) << t;
    EXPECT_GE(start[t], 8000000u) << "the start barrier waits for the last task";
    EXPECT_GE(second[t], start[t] + 5000000) << t;
  }
}

// 2 nodes x 2 CPUs, no SMT, every CPU idle; `tasks` tasks, all last on CPU 0.
Runqueues two_nodes_of(unsigned cpus_per_node, unsigned tasks) {
  Runqueues rq;
  rq.cpus.resize(2 * cpus_per_node);
  for (unsigned c = 0; c < 2 * cpus_per_node; ++c) rq.cpu_node.push_back(c / cpus_per_node), rq.sibling.push_back(c);
  rq.task_cpu.assign(tasks, 0);
  return rq;
}

Runqueues two_nodes_of_two_cpus(unsigned tasks) { return two_nodes_of(2, tasks); }

// wake_affine_weight, by hand: this CPU runs the waker and 2 queued tasks, prev runs 3. A sync
// wake-up counts this CPU's load without the waker, plus the wakee: 3 x 100 = 300 against
// 3 x 108 + 1 = 325, so the wakee moves to the waker's CPU; without sync, 400 > 324 keeps prev.
TEST(VirtualSched, WakeAffineWeightComparesLoadsWithTheSyncAdjustment) {
  Runqueues rq = two_nodes_of_two_cpus(8);
  rq.cpus[0].curr = 0, rq.cpus[0].queued = {1, 2};  // the waker (task 0) and two queued
  rq.cpus[2].curr = 3, rq.cpus[2].queued = {4, 5};  // prev: three running
  rq.cpus[1].curr = 6, rq.cpus[3].curr = 7;         // no idle CPU anywhere
  auto cfs = make_sched_policy("cfs", {});
  EXPECT_EQ(cfs->wake(rq, 5, 2, 0, /*sync=*/true, 0), 0u);
  EXPECT_EQ(cfs->wake(rq, 5, 2, 0, /*sync=*/false, 0), 2u);
}

// Each fork batch (LKP's next iteration, a new usemem) draws its CPUs' first idle balances
// afresh within engine.balance_window. Two nodes of 64 CPUs, a 2 ms window: in both batches
// node 0 runs 66 tasks (two queued on CPU 0) and node 1 is idle. Between the batches every
// idle balance fails, which leaves node 1's NUMA balances up to max_interval (256 ms) ahead:
// the batch at 300 ms would wait until about 386 ms for CPU 64's, had it kept them.
TEST(VirtualSched, EachForkBatchDrawsItsIdleBalancesWithinTheWindow) {
  const ps_t ms = 1000000000;
  Runqueues rq = two_nodes_of(64, 66);
  SchedParams p;
  p.balance_window_ps = 2 * ms;
  auto cfs = make_sched_policy("cfs", p);
  std::vector<Migration> out;
  auto overload = [&](ps_t at) {
    rq.forks_began = at;
    for (unsigned c = 0; c < 64; ++c) rq.cpus[c].curr = static_cast<int>(c), rq.task_cpu[c] = c;
    rq.cpus[0].queued = {64, 65};
    rq.task_cpu[64] = rq.task_cpu[65] = 0;
  };
  auto on_node1 = [&] { return rq.cpu_node[rq.task_cpu[64]] + rq.cpu_node[rq.task_cpu[65]]; };
  overload(0);
  for (ps_t t = 0; t <= 2 * ms; t += ms) cfs->tick(rq, t, out);
  EXPECT_EQ(on_node1(), 2u) << "the first batch's queued tasks are pulled within the window";
  for (auto& c : rq.cpus) c.curr = -1, c.queued.clear();
  for (ps_t t = 3 * ms; t < 300 * ms; t += ms) cfs->tick(rq, t, out);
  overload(300 * ms);
  for (ps_t t = 300 * ms; t <= 302 * ms; t += ms) cfs->tick(rq, t, out);
  EXPECT_EQ(on_node1(), 2u) << "the second batch's too, within the window of its own start";
  EXPECT_TRUE(out.empty());
}

// find_idlest_group_cpu: of the idle CPUs of the chosen node, the one that went idle most
// recently (equal exit latencies: the latest idle_stamp), whatever its number.
TEST(VirtualSched, ForkTakesTheMostRecentlyIdleCpuOfTheNode) {
  Runqueues rq = two_nodes_of_two_cpus(1);
  auto cfs = make_sched_policy("cfs", {});
  rq.cpus[0].idle_since = 5, rq.cpus[1].idle_since = 30, rq.cpus[2].idle_since = 40, rq.cpus[3].idle_since = 50;
  EXPECT_EQ(cfs->fork(rq, 0, 0, 100), 1u) << "node 0 (the parent's: nothing runs), CPU 1 idle since 30";
  rq.cpus[0].idle_since = 30, rq.cpus[1].idle_since = 5;
  EXPECT_EQ(cfs->fork(rq, 0, 1, 100), 0u) << "the parent's own CPU when it went idle last";
}

// select_idle_sibling takes an idle prev only when it shares the LLC with the target
// (cpus_share_cache). A sync wake-up from a CPU that runs only the waker targets the waker's
// CPU (wake_affine_idle); the wakee's prev, CPU 2, is idle but on the other node, so the
// wakee goes to the idle CPU beside the target instead: CPU 1.
TEST(VirtualSched, WakeTakesAnIdlePrevOnlyBesideTheTarget) {
  Runqueues rq = two_nodes_of_two_cpus(3);
  rq.cpus[0].curr = 0;  // the waker, alone on CPU 0; CPUs 1-3 idle
  auto cfs = make_sched_policy("cfs", {});
  EXPECT_EQ(cfs->wake(rq, 1, 2, 0, /*sync=*/true, 0), 1u);
  rq.cpus[1].curr = 2;  // with node 0 full, the target itself
  EXPECT_EQ(cfs->wake(rq, 1, 2, 0, /*sync=*/true, 0), 0u);
}

// wake_affine_weight biases prev's load by half the domain's imbalance_pct: 100 + (117 -
// 100) / 2 = 108. The waker's CPU runs 8 tasks, prev runs 7, no CPU is idle. A sync wake-up
// weighs (8 - 1 + 1) x 100 = 800 against 7 x 108 + 1 = 757, so the wakee stays on prev (the
// whole 117 would give 820 and move it).
TEST(VirtualSched, WakeAffineWeightBiasesPrevByHalfTheImbalancePct) {
  Runqueues rq = two_nodes_of_two_cpus(20);
  rq.cpus[0].curr = 0, rq.cpus[0].queued = {1, 2, 3, 4, 5, 6, 7};  // the waker and 7 queued
  rq.cpus[2].curr = 8, rq.cpus[2].queued = {9, 10, 11, 12, 13, 14};  // prev: 7 running
  rq.cpus[1].curr = 15, rq.cpus[3].curr = 16;
  SchedParams p;
  ASSERT_EQ(p.imbalance_pct, 117u);
  auto cfs = make_sched_policy("cfs", p);
  EXPECT_EQ(cfs->wake(rq, 19, 2, 0, /*sync=*/true, 0), 2u);
  rq.cpus[2].queued.push_back(17);  // prev at 8: 8 x 108 + 1 = 865 > 800
  EXPECT_EQ(cfs->wake(rq, 19, 2, 0, /*sync=*/true, 0), 0u);
}

// NUMA balancing by 5.17's rules, on 2 nodes x 2 vCPUs with 2 tasks. The parent on CPU 0
// already runs a quarter of the CPUs, so fork puts both children on node 1, where their small
// pages are; the sync wake-ups bring both to node 0 (CPU 1 idle, then CPU 0), and the load
// balancer's active balance sends task 0 back to node 1. Task 1's first pass (1 s of its own
// CPU time) finds its pages away: 8 PTE updates, 8 remote hinting faults, and the pages
// migrate to it (no preferred node yet), so no task moves and later passes mark nothing.
// Under numa_home: fork_node (the ablation) task 1 is sent to node 1 at each pass, and the
// balancer sends it back; under none nothing moves it.
// update_task_scan_period: a task with no local hinting faults scans half as often each
// placement. Its pages start on node 0; it runs on node 1, so pass 1 (after the 1 s scan delay)
// marks them, every fault is remote and the period doubles from 1 s to 2 s; pass 2 from node 0
// (the pages followed it to node 1) is remote again and doubles it to 4 s.
TEST(VirtualSched, NumaScanPeriodDoublesWhileNoFaultIsLocal) {
  NumaBalancing nb(SchedParams{});
  nb.fork(0, 0, 2);
  constexpr ps_t kMs = 1000000000;
  auto scans_at = [&](ps_t runtime_ms, unsigned node) {
    nb.tick(0, node, runtime_ms * kMs, runtime_ms * kMs);
    return nb.stats().scans;
  };
  EXPECT_EQ(scans_at(1000, 1), 0u);
  EXPECT_EQ(scans_at(1001, 1), 1u);  // pass 1; node_stamp 1 s, period 1 s -> 2 s
  EXPECT_EQ(scans_at(2999, 0), 1u);  // a 1 s period would have scanned at 2 s
  EXPECT_EQ(scans_at(3001, 0), 2u);  // pass 2; node_stamp 3 s, period 2 s -> 4 s
  EXPECT_EQ(nb.stats().hint_faults_local, 0u);
  EXPECT_EQ(scans_at(6999, 0), 2u);
  EXPECT_EQ(scans_at(7001, 1), 3u);
}

TEST(VirtualSched, NumaBalancingMovesThePagesToTheTaskNotTheTaskToItsForkNode) {
  std::map<std::string, std::vector<ps_t>> task1_on;
  for (const char* home : {"kernel", "fork_node", "none"}) {
    auto m = test::machine(2, 2, 64ull << 20);
    SchedParams p;
    p.numa_home = home;
    VirtualEngine eng(*m, model_1ghz(), options(), make_sched_policy("numa", p));
    eng.run(2, [&](VirtualCpu& ex) {
      ex.start_barrier();
      EXPECT_EQ(eng.runqueues().task_home[ex.task()], 1u) << home;
      EXPECT_EQ(ex.node(), 0u) << home << ": woken beside its waker";
      const std::vector<ps_t> on = ex.run_user(3000, {1e9, 1e9});  // 3 s
      if (ex.task() == 1) task1_on[home] = on;
    });
    const NumaBalancingStats& nb = *eng.policy().numa_stats();
    if (std::string(home) == "kernel") {
      EXPECT_EQ(nb.pte_updates, 8u);
      EXPECT_EQ(nb.hint_faults, 8u);
      EXPECT_EQ(nb.hint_faults_local, 0u);
      EXPECT_EQ(nb.pages_migrated, 8u);
      EXPECT_EQ(nb.task_moves + nb.swaps, 0u) << "pass 1 sets no preferred node";
      EXPECT_GE(nb.scans, 3u) << "a pass per second of each task's CPU time, after the first second";
      ASSERT_GE(nb.passes.size(), 2u);
      for (const NumaBalancingStats::Pass& pass : nb.passes)
        if (pass.pass == 1) {
          EXPECT_GT(pass.at, 1000000000000u) << "after 1 s of CPU time";
        }
    }
  }
  EXPECT_GT(task1_on["fork_node"][1], 50000000000u) << "fork_node: sent home at each pass";
  EXPECT_EQ(task1_on["kernel"][1], 0u) << "kernel: stays with its pages, which followed it";
  EXPECT_EQ(task1_on["none"][1], 0u);
}

TEST(VirtualSched, TracePolicyReplaysPlacements) {
  const std::string file = (std::filesystem::temp_directory_path() / "pagesim_sched_trace.txt").string();
  {
    std::ofstream out(file);
    out << "# time_ns task cpu\n0 0 3\n5000000 0 1\n";
  }
  auto m = test::machine(2, 2, 64ull << 20);
  SchedParams p;
  p.trace_file = file;
  VirtualEngine eng(*m, model_1ghz(), options(), make_sched_policy("trace", p));
  std::vector<ps_t> on;
  unsigned first = 9;
  eng.run(1, [&](VirtualCpu& ex) {
    first = ex.cpu();
    on = ex.run_user(10, {1e9, 1e9});  // 10 ms; the trace moves it at 5 ms
  });
  EXPECT_EQ(first, 3u);
  ASSERT_EQ(on.size(), 2u);
  EXPECT_EQ(on[1], 5000000000u) << "node 1 (CPU 3) until the move at 5 ms";
  EXPECT_EQ(on[0], 5000000000u) << "node 0 (CPU 1) after it";
  EXPECT_EQ(eng.task(0).migrations(), 1u);
}

TEST(VirtualSched, TracePolicyNamesTheBadLine) {
  const std::string file = (std::filesystem::temp_directory_path() / "pagesim_sched_trace_bad.txt").string();
  {
    std::ofstream out(file);
    out << "0 0 1\nten 0 1\n";
  }
  SchedParams p;
  p.trace_file = file;
  try {
    make_sched_policy("trace", p);
    FAIL() << "a bad trace line must be refused";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find(file + ":2:1"), std::string::npos) << e.what();
  }
}

// Migration happens only at scheduler events, and a scheduler event inside a spinlock or an
// IRQ-off region is a bug (as might_sleep() reports it), so a task never moves inside either.
TEST(VirtualSched, SchedulerEventsAreRefusedInsideASpinlockOrWithIrqsOff) {
  for (const bool irq_off : {false, true}) {
    auto m = test::machine(1, 2, 64ull << 20);
    VirtualEngine eng(*m, model_1ghz(), options(), make_sched_policy("cfs", {}));
    spinlock_t l;
    l.id = 5;
    l.line = Line{ZONE_BASE + 0x480, 0, LineKind::lock_word};
    try {
      eng.run(1, [&](VirtualCpu& ex) {
        if (irq_off)
          ex.local_irq_save(Site::rmqueue_pcplist);
        else
          ex.lock(l, Site::rmqueue_bulk);
        ex.cond_resched(Site::rmqueue_bulk);
      });
      FAIL() << "cond_resched() was allowed with " << (irq_off ? "IRQs off" : "a spinlock held");
    } catch (const ModelError& e) {
      EXPECT_NE(std::string(e.what()).find(irq_off ? "IRQs disabled" : "a spinlock held"), std::string::npos) << e.what();
    }
  }
}

}  // namespace
}  // namespace pagesim
