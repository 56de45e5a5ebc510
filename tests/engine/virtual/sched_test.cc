// The virtual engine's scheduler layer: time sharing when tasks outnumber vCPUs, the cfs
// policy's placement decisions, NUMA balancing toward the home node, and trace replay. Every
// expected time follows from the engine's rules (switch cost, slice) and the tasks' work.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>

#include "mm/test_util.h"
#include "pagesim/error.h"
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
  EXPECT_EQ(eng.cpu_busy_ps()[0], 2000000u);
}

// Under cfs two tasks on one vCPU share it in slices: each user-mode chunk ends at a
// scheduler event, where a task whose slice is used up yields to the queued one.
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
  EXPECT_GT(eng.task(0).involuntary_switches(), 3u) << "a 3 ms slice over 30 ms of work";
  EXPECT_GT(eng.task(1).involuntary_switches(), 3u);
  // Both finish after about 60 ms of shared CPU, not 30 and 60.
  EXPECT_GT(done[0], 55000000000u);
  EXPECT_GT(done[1], 55000000000u);
  EXPECT_EQ(eng.task(0).user_ps() + eng.task(1).user_ps(), 60000000000u);
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
  ps_t busy = 0;
  for (ps_t b : eng.cpu_busy_ps()) busy += b;
  EXPECT_GE(busy, 256u * 10000000000u) << "every task's 10 ms ran on some vCPU";
}

// The start pipe's chain of WF_SYNC wake-ups pulls wakees toward the waker's node while it
// has idle CPUs (wake_affine_idle, then select_idle_sibling in the waker's LLC).
TEST(VirtualSched, CfsWakeChainPullsTasksTowardTheWakersNode) {
  auto m = test::machine(2, 8, 64ull << 20);
  VirtualEngine eng(*m, model_1ghz(), options(), make_sched_policy("cfs", {}));
  std::vector<unsigned> forked(16), woke(16);
  eng.run(16, [&](VirtualCpu& ex) {
    ex.start_barrier();
    forked[ex.task()] = eng.runqueues().task_home[ex.task()];
    woke[ex.task()] = ex.node();
    ex.work(100000, Site::workload);  // stay busy while the others wake
  });
  const auto on = [](const std::vector<unsigned>& v, unsigned n) { return std::count(v.begin(), v.end(), n); };
  EXPECT_EQ(on(forked, 0), 8) << "fork balancing spreads the 16 children over both nodes";
  EXPECT_EQ(on(woke, 0), 16) << "node 0 fills first; then each wakee stacks on its busy waker's CPU";
  uint64_t migrated = 0;
  for (unsigned t = 0; t < 16; ++t) migrated += eng.task(t).migrations();
  EXPECT_GT(migrated, 0u) << "some children woke on another CPU than they were forked on";
}

// Two tasks on 2 nodes x 2 vCPUs: fork balancing puts task 1 on node 1 (its home), the wake
// chain pulls it to node 0 beside its waker. NUMA balancing (task_numa_migrate) moves it home
// once the 1 s scan delay has passed; cfs alone never looks at the home node.
TEST(VirtualSched, NumaBalancingPullsATaskToItsHomeNodeAfterTheScanDelay) {
  std::map<std::string, std::vector<ps_t>> task1_on;
  for (const char* policy : {"cfs", "numa"}) {
    auto m = test::machine(2, 2, 64ull << 20);
    VirtualEngine eng(*m, model_1ghz(), options(), make_sched_policy(policy, {}));
    eng.run(2, [&](VirtualCpu& ex) {
      ex.start_barrier();
      if (ex.task() == 1) {
        EXPECT_EQ(eng.runqueues().task_home[1], 1u) << policy;
        EXPECT_EQ(ex.node(), 0u) << policy << ": woken beside its waker";
      }
      const std::vector<ps_t> on = ex.run_user(3000, {1e9, 1e9});  // 3 s
      if (ex.task() == 1) task1_on[policy] = on;
    });
  }
  EXPECT_GT(task1_on["numa"][1], 1500000000000u) << "home from about 1 s on";
  EXPECT_GT(task1_on["numa"][0], 900000000000u) << "away until the scan delay";
  EXPECT_LT(task1_on["cfs"][1], task1_on["numa"][1]);
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
