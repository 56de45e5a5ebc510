// Scheduler, the virtual engine's scheduler core, driven directly: tasks beyond the vCPUs queue
// and get the CPU when it is freed, after a context switch; barriers release when the last
// live task arrives, each kind as virtual.h says. The fibers are replaced by a TaskSwitch that
// records what the core asks of them.
#include <gtest/gtest.h>

#include <memory>
#include <vector>

#include "mm/test_util.h"
#include "pagesim/engine/virtual/scheduler.h"
#include "pagesim/engine/virtual/virtual.h"
#include "pagesim/error.h"

namespace pagesim {
namespace {

constexpr ps_t kSwitch = 5000000;

struct RecordedSwitch final : TaskSwitch {
  std::vector<std::unique_ptr<VirtualCpu>> tasks;
  std::vector<unsigned> ready, blocked;  // in the order the core asked
  VirtualCpu& task(unsigned t) override { return *tasks[t]; }
  void make_ready(VirtualCpu& t) override { ready.push_back(t.task()); }
  void block(VirtualCpu& t) override { blocked.push_back(t.task()); }
};

// `nr_tasks` tasks on the vCPUs of a one-node machine, under the pinned policy (task i on
// vCPU i mod nr_cpus). The engine only backs the tasks (their machine and models); it never runs.
struct Fixture {
  explicit Fixture(unsigned nr_cpus, unsigned nr_tasks)
      : m(test::machine(1, nr_cpus, 64ull << 20)),
        eng(*m, vt::load_machine_model(vt::default_machine_file())),
        sched(sw, params(), make_sched_policy("pinned", {})) {
    for (unsigned c = 0; c < nr_cpus; ++c) sched.add_cpu(0, c);
    for (unsigned t = 0; t < nr_tasks; ++t) {
      sw.tasks.push_back(std::make_unique<VirtualCpu>(eng, t));
      sched.add_task();
    }
  }
  static SchedParams params() {
    SchedParams p;
    p.switch_cost_ps = kSwitch;
    return p;
  }
  VirtualCpu& task(unsigned t) { return sw.task(t); }

  std::unique_ptr<mm::Machine> m;
  VirtualEngine eng;
  RecordedSwitch sw;
  Scheduler sched;
};

// Two tasks on two vCPUs, started, then at clocks 500 and 300 (nothing made ready since).
struct TwoTasks : Fixture {
  TwoTasks() : Fixture(2, 2) {
    sched.start_run(2, 0);
    sw.ready.clear();
    task(0).advance(500);
    task(1).advance(300);
  }
};

TEST(Scheduler, ATaskBeyondTheVcpusQueuesAndRunsWhenItsCpuIsFreed) {
  Fixture f(2, 3);
  f.sched.start_run(3, 0);
  EXPECT_EQ(f.sw.ready, (std::vector<unsigned>{0, 1}));
  EXPECT_EQ(f.task(2).cpu(), 0u);
  EXPECT_EQ(f.sched.runqueues().cpus[0].queued, (std::deque<unsigned>{2}));

  f.task(0).advance(1000000);
  f.sched.finished(f.task(0));
  EXPECT_EQ(f.sw.ready, (std::vector<unsigned>{0, 1, 2}));
  EXPECT_EQ(f.sched.runqueues().cpus[0].curr, 2);
  EXPECT_EQ(f.task(2).clock(), 1000000 + kSwitch);  // one context switch after the CPU is free
  EXPECT_EQ(f.task(2).migrations(), 0u);
  // vCPU 0 ran task 0 until 1 us and nothing yet after; vCPU 1 has run task 1 since 0.
  EXPECT_EQ(f.sched.busy_until(1000000), 2000000u);
  // Later, task 2 counts from when it got the CPU: the context switch before is not busy time.
  EXPECT_EQ(f.sched.busy_until(1000000 + kSwitch + 10), (1000000u + 10) + (1000000u + kSwitch + 10));
}

TEST(Scheduler, ARendezvousReleasesAtTheLastArrivalInClockOrderWithClocksUntouched) {
  TwoTasks f;
  f.sched.barrier(f.task(0), Scheduler::BarrierKind::rendezvous);
  EXPECT_EQ(f.sw.blocked, (std::vector<unsigned>{0}));
  EXPECT_TRUE(f.sw.ready.empty());  // task 1 has not arrived
  f.sched.barrier(f.task(1), Scheduler::BarrierKind::rendezvous);
  EXPECT_EQ(f.sw.ready, (std::vector<unsigned>{1, 0}));  // the earlier clock first
  EXPECT_EQ(f.task(0).clock(), 500u);
  EXPECT_EQ(f.task(1).clock(), 300u);
  EXPECT_EQ(f.task(0).voluntary_switches(), 0u);  // a bookkeeping point, not a sleep
}

TEST(Scheduler, APlainBarrierWakesEveryTaskAtTheLatestArrival) {
  TwoTasks f;
  f.sched.barrier(f.task(1), Scheduler::BarrierKind::plain);
  f.sched.barrier(f.task(0), Scheduler::BarrierKind::plain);
  EXPECT_EQ(f.sw.ready, (std::vector<unsigned>{0, 1}));  // task order
  EXPECT_EQ(f.task(0).clock(), 500u);
  EXPECT_EQ(f.task(1).clock(), 500u);
  EXPECT_EQ(f.task(0).voluntary_switches(), 1u);
  EXPECT_EQ(f.task(1).voluntary_switches(), 1u);
}

TEST(Scheduler, RefusesTwoKindsOfBarrierAtOnce) {
  TwoTasks f;
  f.sched.barrier(f.task(0), Scheduler::BarrierKind::plain);
  EXPECT_THROW(f.sched.barrier(f.task(1), Scheduler::BarrierKind::rendezvous), ModelError);
}

}  // namespace
}  // namespace pagesim
