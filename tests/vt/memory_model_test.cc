// The memory model by hand: the controller's capacity and queueing delay from the DDR4-3200
// timings of the shipped ICX file, the directory write of a remote RFO, and the closed loop in
// which store loops and clears load one node together.
#include <gtest/gtest.h>

#include <cmath>

#include "pagesim/vt/dram.h"
#include "pagesim/vt/machine_model.h"
#include "pagesim/vt/memory_model.h"
#include "pagesim/vt/memory_traffic.h"

namespace pagesim::vt {
namespace {

MachineModel icx() { return load_machine_model(default_machine_file()); }

// DDR4-3200AA, 1 rank of 16 banks on each of 8 channels, as the file says. Refresh leaves
// 1 - 350/7800 of the time; a random transaction holds its channel for tFAW/4 = 5.25 ns (the
// burst is 2.5), its bank for tRC = 45.75 ns (read) or tRCD + CWL + burst + tWR + tRP = 55 ns.
constexpr double kLeft = 1 - 350.0 / 7800;
constexpr double kChannelNs = 5.25 / kLeft, kReadBankNs = 45.75 / kLeft, kWriteBankNs = 55 / kLeft;

// M/G/1 at `reads` and `writes` per second, by hand: channels, then banks.
double wait_by_hand(double reads, double writes) {
  const double lc = (reads + writes) / 8, s = kChannelNs * 1e-9;
  const double wc = lc * s * s / (2 * (1 - lc * s));
  const double lr = reads / 128, lw = writes / 128, sr = kReadBankNs * 1e-9, sw = kWriteBankNs * 1e-9;
  const double wb = (lr * sr * sr + lw * sw * sw) / (2 * (1 - lr * sr - lw * sw));
  return wc + wb;
}

TEST(VirtualDram, CapacityComesFromTheActivationWindow) {
  const DramController c = icx().controller();
  EXPECT_NEAR(c.capacity(Txn::random_read), 8 / (kChannelNs * 1e-9), 1e3);  // 1.455e9 per socket
  EXPECT_NEAR(c.capacity(Txn::random_read), 1.4554e9, 1e5);
  // A clear's lines share one activation per 8 KiB row: the burst binds, 64 B per 2.5 ns.
  EXPECT_NEAR(c.capacity(Txn::streaming_write) * 64, 8 * 64 / 2.5e-9 * kLeft, 1e3);
}

TEST(VirtualDram, WaitAtTwoLoadsWorkedByHand) {
  const DramController c = icx().controller();
  TxnRates half{}, near{};
  half[static_cast<unsigned>(Txn::random_read)] = half[static_cast<unsigned>(Txn::random_write)] = 0.5e9;
  near[static_cast<unsigned>(Txn::random_read)] = near[static_cast<unsigned>(Txn::random_write)] = 0.65e9;
  EXPECT_NEAR(c.wait_s(half), wait_by_hand(0.5e9, 0.5e9), 1e-15);
  EXPECT_NEAR(c.wait_s(half) * 1e9, 24.67, 0.01);
  EXPECT_NEAR(c.utilisation(half), 1e9 / 8 * kChannelNs * 1e-9, 1e-12);  // the channels: 0.687
  EXPECT_NEAR(c.wait_s(near) * 1e9, 53.66, 0.01);  // near the knee: twice the delay for 30% more
  EXPECT_NEAR(c.utilisation(near), 0.8932, 1e-4);
  TxnRates over{};
  over[static_cast<unsigned>(Txn::random_read)] = 1.5e9;
  EXPECT_TRUE(std::isinf(c.wait_s(over)));
}

// One store loop of one task: a local store costs its node an RFO and a write-back; from the
// other node, one more write for the directory.
TEST(VirtualMemoryTraffic, DirectoryWriteIsChargedForARemoteRfoNotALocalOne) {
  for (const bool directory : {true, false}) {
    MachineModel m = icx();
    m.directory_writes = directory;
    MemoryTraffic local(m), remote(m);
    local.set_loop(0, 0, 1, {100, 0});
    remote.set_loop(0, 1, 1, {100, 0});
    const double local_stores = 1e12 / local.store_ps(0), remote_stores = 1e12 / remote.store_ps(0);
    EXPECT_EQ(local.node_load(0).directory_writes_per_s, 0);
    EXPECT_NEAR(local.node_load(0).transactions_per_s, 2 * local_stores, 1);
    EXPECT_NEAR(remote.node_load(0).directory_writes_per_s, directory ? remote_stores : 0, 1);
    EXPECT_NEAR(remote.node_load(0).transactions_per_s, (directory ? 3 : 2) * remote_stores, 1);
    EXPECT_EQ(remote.node_load(1).transactions_per_s, 0);
  }
}

// A saturated node's latency grows with its requesters, and the delay is the controller's at
// the rates that the delay itself allows (the fixed point), below capacity.
TEST(VirtualMemoryTraffic, ClosedLoopDelayIsTheControllersAtTheRatesItAllows) {
  const MachineModel m = icx();
  double last_wait = 0;
  for (const unsigned loops : {16u, 64u, 128u}) {
    MemoryTraffic t(m);
    for (unsigned i = 0; i < loops; ++i) t.set_loop(i, 0, 1, {1, 0});
    const double per_store = t.store_ps(0);
    EXPECT_NEAR(per_store, 89100 + t.wait_ps(0), 1e-6);  // idle latency plus the queue
    TxnRates rates{};
    rates[static_cast<unsigned>(Txn::random_read)] = rates[static_cast<unsigned>(Txn::random_write)] = loops * 1e12 / per_store;
    EXPECT_NEAR(t.wait_ps(0), m.controller().wait_s(rates) * 1e12, 0.05);
    EXPECT_LT(m.controller().utilisation(rates), 1);
    EXPECT_GT(t.wait_ps(0), last_wait);
    last_wait = t.wait_ps(0);
  }
  EXPECT_GT(last_wait, 90000) << "128 loops on one node: the queue passes 90 ns";
}

// Clears and store loops on one node load each other; a clear on the other node does not.
TEST(VirtualMemoryTraffic, ClearsAndStoresShareOneNode) {
  const MachineModel m = icx();
  const double lines = clear_lines_in_flight(m, m.clear_bw_bytes_per_s);
  EXPECT_NEAR(lines, 7.95e9 * 89.1e-9 / 64, 1e-9);  // Little's law on the idle machine: 11.07
  MemoryTraffic t(m);
  EXPECT_NEAR(t.clear_bytes_per_s(0, 0, lines), 7.95e9, 1);  // alone, its own rate
  for (unsigned i = 0; i < 64; ++i) t.set_loop(i, 0, 1, {1, 0});
  const double stores_alone = t.store_ps(0);
  const double clear_beside_stores = t.clear_bytes_per_s(0, 0, lines);
  EXPECT_LT(clear_beside_stores, 7.95e9 * 0.8);
  for (unsigned i = 0; i < 16; ++i) t.add_clear(1, 1, lines);
  EXPECT_DOUBLE_EQ(t.store_ps(0), stores_alone) << "node 1's clears leave node 0 alone";
  for (unsigned i = 0; i < 16; ++i) t.add_clear(0, 0, lines);
  EXPECT_GT(t.store_ps(0), stores_alone + 5000);
  EXPECT_LT(t.clear_bytes_per_s(0, 0, lines), clear_beside_stores);
  for (unsigned i = 0; i < 16; ++i) t.remove_clear(0, 0, lines);
  EXPECT_NEAR(t.store_ps(0), stores_alone, 0.1);
}

// A remote clear is latency-bound too: at the remote idle latency, 89.1 / 142.8 of the rate.
TEST(VirtualMemoryTraffic, RemoteClearRunsAtTheRemoteLatency) {
  const MachineModel m = icx();
  MemoryTraffic t(m);
  const double lines = clear_lines_in_flight(m, m.clear_bw_bytes_per_s);
  EXPECT_NEAR(t.clear_bytes_per_s(0, 1, lines), 7.95e9 * 89.1 / 142.8, 1e3);
}

// The report's batch solve agrees with the live one.
TEST(VirtualMemoryModel, StoreLoopReportsTheFixedPointOfItsTasks) {
  const MachineModel m = icx();
  std::vector<StoreLoopTask> tasks{{1000000, {75, 25}, 0, 1}, {1000000, {100, 0}, 1, 1}};
  const StoreLoopResult r = store_loop(m, tasks);
  MemoryTraffic t(m);
  t.set_loop(0, 0, 1, {75, 25});
  t.set_loop(1, 1, 1, {100, 0});
  EXPECT_DOUBLE_EQ(r.remote_share[0], 0.25);
  EXPECT_DOUBLE_EQ(r.remote_share[1], 1);
  EXPECT_NEAR(static_cast<double>(r.time_ps[0]), 1e6 * t.store_ps(0), 1);
  EXPECT_NEAR(r.directory_writes_per_s[0], 1e12 / t.store_ps(1), 1);  // task 1's stores, all remote
  EXPECT_NEAR(r.local_ns[0], t.miss_ps(0, 0) / 1000, 1e-9);
}

}  // namespace
}  // namespace pagesim::vt
