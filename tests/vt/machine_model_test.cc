// The machine file: the shipped one loads with its documented numbers; mistakes are refused
// with FILE:LINE:COL and the key; the analytic memory model matches its formulas.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <sstream>

#include "pagesim/error.h"
#include "pagesim/vt/live_store_loops.h"
#include "pagesim/vt/machine_model.h"
#include "pagesim/vt/memory_model.h"

namespace pagesim::vt {
namespace {

using cache::Outcome;

std::string shipped_text() {
  std::ifstream in(default_machine_file());
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

TEST(VirtualMachineFile, ShippedIcx8358LoadsWithItsSourcedNumbers) {
  const MachineModel m = load_machine_model(default_machine_file());
  EXPECT_EQ(m.name, "icx-8358-2s");
  EXPECT_EQ(m.geometry.cpus(), 128u);
  EXPECT_EQ(m.geometry.l1d.bytes(), 48u << 10);
  EXPECT_EQ(m.geometry.l2.bytes(), 1280u << 10);
  EXPECT_EQ(m.geometry.llc.bytes(), 48u << 20);
  EXPECT_EQ(m.freq_mhz, 2600u);
  EXPECT_EQ(m.latency(Outcome::l1), 5u * 1000000 / 2600);
  EXPECT_EQ(m.latency(Outcome::l2), 13u * 1000000 / 2600);
  EXPECT_EQ(m.latency(Outcome::llc_local), 23000u);
  EXPECT_EQ(m.latency(Outcome::llc_remote), 127000u) << "latency.llc_remote_ns, not the local LLC's";
  EXPECT_EQ(m.latency(Outcome::hitm_local), 64200u);
  EXPECT_EQ(m.latency(Outcome::hitm_remote), 127000u);
  EXPECT_EQ(m.latency(Outcome::dram_local), 89100u);
  EXPECT_EQ(m.latency(Outcome::dram_remote), 142800u);
  EXPECT_EQ(m.lock_handoff_ps(0, 0), 102000u);
  EXPECT_EQ(m.lock_handoff_ps(0, 1), 216000u);
}

TEST(VirtualMachineFile, UnknownKeyNamesFileLineColumnAndKey) {
  std::string text = shipped_text();
  text.replace(text.find("  mlp: 10"), 9, "  mpl: 10");
  try {
    parse_machine_model(text, "bad.yaml");
    FAIL() << "accepted an unknown key";
  } catch (const InputError& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("bad.yaml:"), std::string::npos) << msg;
    EXPECT_NE(msg.find("memory.mpl"), std::string::npos) << msg;
    EXPECT_NE(msg.find("unknown key"), std::string::npos) << msg;
  }
}

TEST(VirtualMachineFile, StoreMlpIsReadOrDefaultsToMlp) {
  std::string text = shipped_text();
  EXPECT_EQ(parse_machine_model(text, "m.yaml").store_mlp, 0.85);
  text.replace(text.find("  store_mlp: 0.85"), 17, "  store_mlp: 2.5");
  EXPECT_EQ(parse_machine_model(text, "m.yaml").store_mlp, 2.5);
  const size_t at = text.find("  store_mlp");
  text.erase(at, text.find('\n', at) - at + 1);
  const MachineModel m = parse_machine_model(text, "m.yaml");
  EXPECT_EQ(m.store_mlp, static_cast<double>(m.mlp));
}

TEST(VirtualMachineFile, MissingAndMalformedValuesAreRefused) {
  std::string missing = shipped_text();
  missing.erase(missing.find("  dram_local_ns"), missing.find('\n', missing.find("  dram_local_ns")) - missing.find("  dram_local_ns") + 1);
  EXPECT_THROW(parse_machine_model(missing, "m.yaml"), InputError);
  std::string octal = shipped_text();
  octal.replace(octal.find("sockets: 2"), 10, "sockets: 02");
  EXPECT_THROW(parse_machine_model(octal, "m.yaml"), InputError);
  std::string descending = shipped_text();
  descending.replace(descending.find("utilisation: 0.844"), 18, "utilisation: 0.400");
  EXPECT_THROW(parse_machine_model(descending, "m.yaml"), InputError);
}

// Values that parse but describe no machine: each names its key.
TEST(VirtualMachineFile, ImpossibleMachinesAreRefused) {
  auto refused = [](std::string text, const std::string& from, const std::string& to, const std::string& key) {
    text.replace(text.find(from), from.size(), to);
    try {
      parse_machine_model(text, "m.yaml");
      ADD_FAILURE() << to << " was accepted";
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find(key), std::string::npos) << e.what();
    }
  };
  refused(shipped_text(), "{utilisation: 0.844, extra_ns: 65}", "{utilisation: 0.844, extra_ns: 15}",
          "memory.loaded_latency[3].extra_ns");
  refused(shipped_text(), "dram_local_ns: 89.1", "dram_local_ns: 0", "latency.dram_local_ns");
  refused(shipped_text(), "l2: {size: 1280K, ways: 20}", "l2: {size: 1281K, ways: 20}", "caches.l2.size");
}

TEST(VirtualMemoryModel, LoadedLatencyInterpolatesThePublishedCurve) {
  const MachineModel m = load_machine_model(default_machine_file());
  EXPECT_DOUBLE_EQ(m.extra_latency_ps(0), 0);
  EXPECT_DOUBLE_EQ(m.extra_latency_ps(0.494), 21000);
  EXPECT_DOUBLE_EQ(m.extra_latency_ps(1.0), 175000);
  EXPECT_DOUBLE_EQ(m.extra_latency_ps(2.0), 175000);  // flat beyond the last point
  EXPECT_NEAR(m.extra_latency_ps((0.494 + 0.844) / 2), 43000, 1e-6);
}

TEST(VirtualMemoryModel, ClearTimeIsBytesOverTheSharedBandwidth) {
  const MachineModel m = load_machine_model(default_machine_file());
  const uint64_t huge = 2u << 20;
  // Alone: one thread's rep stosb rate.
  EXPECT_EQ(clear_time_ps(m, huge, 0, 0, 1, m.clear_bw_bytes_per_s), static_cast<ps_t>(std::llround(huge / 7.95e9 * 1e12)));
  // 64 tasks on one socket: its DRAM bandwidth split 64 ways is below one thread's rate.
  EXPECT_EQ(clear_time_ps(m, huge, 0, 0, 64, m.clear_bw_bytes_per_s), static_cast<ps_t>(std::llround(huge / (175.7e9 / 64) * 1e12)));
  // Remote: UPI split among the sharers.
  EXPECT_EQ(clear_time_ps(m, huge, 1, 0, 8, m.clear_bw_bytes_per_s), static_cast<ps_t>(std::llround(huge / (55.7e9 / 8) * 1e12)));
}

TEST(VirtualMemoryModel, StoreLoopTimeMatchesItsFormulaAtTheFixedPoint) {
  const MachineModel m = load_machine_model(default_machine_file());
  // Two tasks on node 0: one with every page local, one with a quarter of its pages remote.
  std::vector<StoreLoopTask> tasks(2);
  tasks[0] = {1000000, {100, 0}, {1, 0}};
  tasks[1] = {1000000, {75, 25}, {1, 0}};
  const StoreLoopResult r = store_loop(m, tasks);
  ASSERT_LT(r.iterations, 200u);
  EXPECT_DOUBLE_EQ(r.remote_share[0], 0);
  EXPECT_DOUBLE_EQ(r.remote_share[1], 0.25);
  // Low load: latency = idle + curve(utilisation), utilisation = the traffic the rates imply.
  const double local = (89100 + m.extra_latency_ps(r.dram_utilisation[0])) / 1000;
  EXPECT_NEAR(r.local_ns[0], local, 1e-6);
  const double t0 = 1e6 * r.local_ns[0] * 1000 / m.store_mlp;
  const double t1 = 1e6 * (0.75 * r.local_ns[0] + 0.25 * r.remote_ns[1]) * 1000 / m.store_mlp;
  EXPECT_NEAR(static_cast<double>(r.time_ps[0]), t0, 1);
  EXPECT_NEAR(static_cast<double>(r.time_ps[1]), t1, 1);
  // The utilisation is consistent with the rates: node 0 serves both tasks' local stores.
  const double bytes_per_s = 1e12 / (t0 / 1e6) * 128 + 0.75 * 1e12 / (t1 / 1e6) * 128;
  EXPECT_NEAR(r.dram_utilisation[0], bytes_per_s / m.dram_bw_bytes_per_s, 1e-6);
}

// A remote miss pays the loaded-latency curve twice: at its home node's DRAM utilisation and
// at its UPI link's. Sixteen tasks on node 0 store only to node 1: the same bytes load node 1's
// DRAM (175.7 GB/s) and the 0 -> 1 link (55.7 GB/s), so the link's utilisation is the DRAM's
// x 175.7 / 55.7, and the remote latency is 142.8 ns + curve(u_dram) + curve(u_upi).
TEST(VirtualMemoryModel, RemoteMissesPayTheCurveAtTheirLinksUtilisationToo) {
  const MachineModel m = load_machine_model(default_machine_file());
  const std::vector<StoreLoopTask> tasks(16, StoreLoopTask{1000000, {0, 1}, {1, 0}});
  const StoreLoopResult r = store_loop(m, tasks);
  ASSERT_LT(r.iterations, 200u);
  EXPECT_DOUBLE_EQ(r.remote_share[0], 1);
  const double u_dram = r.dram_utilisation[1];
  const double u_upi = u_dram * m.dram_bw_bytes_per_s / m.upi_bw_bytes_per_s;
  ASSERT_GT(u_upi, 0.15);
  ASSERT_LT(u_upi, 1.0) << "below saturation: no stretch";
  const double expected_ps = 142800 + m.extra_latency_ps(u_dram) + m.extra_latency_ps(u_upi);
  EXPECT_NEAR(r.remote_ns[1] * 1000, expected_ps, 1e-3);
  EXPECT_GT(m.extra_latency_ps(u_upi), 1000) << "the link's share is worth more than a nanosecond";
  EXPECT_NEAR(static_cast<double>(r.time_ps[0]), 1e6 * expected_ps / m.store_mlp, 1);
}

TEST(VirtualMemoryModel, SaturatedNodeStretchesLatencyByDemandOverBandwidth) {
  MachineModel m = load_machine_model(default_machine_file());
  m.store_mlp = 10;  // loops with 10 RFOs in flight each: enough to saturate a node
  std::vector<StoreLoopTask> tasks(64, StoreLoopTask{1000000, {1, 0}, {1, 0}});
  const StoreLoopResult r = store_loop(m, tasks);
  EXPECT_GT(r.dram_utilisation[0], 0.99);
  EXPECT_GT(r.local_ns[0], 89.1 + 175);
  // Achieved traffic cannot exceed the node's bandwidth (to the solver's precision).
  const double per_task = 1e12 / (static_cast<double>(r.time_ps[0]) / 1e6) * 128;
  EXPECT_LE(64 * per_task, m.dram_bw_bytes_per_s * 1.01);
}

// While loops run, each price is store_loop()'s for the loops running at that moment: it rises
// as loops join, falls back as they end or move away, and is re-solved only after a change.
TEST(VirtualMemoryModel, LiveLoopsArePricedAtTheLoopsRunningNow) {
  MachineModel m = load_machine_model(default_machine_file());
  m.store_mlp = 10;  // loops with 10 RFOs in flight each: enough to saturate a node
  const std::vector<uint64_t> local{1, 0};
  const auto alone = [&](unsigned n) {
    return store_ps_on(m, store_loop(m, std::vector<StoreLoopTask>(n, StoreLoopTask{1, local, {1, 0}})), local, 0);
  };
  LiveStoreLoops live(m, 64);
  EXPECT_DOUBLE_EQ(live.per_store_ps(0, local, 0, 1), alone(1));
  EXPECT_DOUBLE_EQ(live.per_store_ps(0, local, 0, 1), alone(1));
  EXPECT_EQ(live.solves(), 1u);  // nothing changed, nothing re-solved
  for (unsigned t = 1; t < 64; ++t) live.per_store_ps(t, local, 0, 1);
  const double crowded = live.per_store_ps(0, local, 0, 1);
  EXPECT_DOUBLE_EQ(crowded, alone(64));
  EXPECT_GT(crowded, 2 * alone(1));  // 64 loops saturate node 0's DRAM
  for (unsigned t = 1; t < 64; ++t) live.leave(t);
  EXPECT_DOUBLE_EQ(live.per_store_ps(0, local, 0, 1), alone(1));
  // Running on node 1, every store is remote.
  std::vector<StoreLoopTask> away{StoreLoopTask{1, local, {0, 1}}};
  EXPECT_DOUBLE_EQ(live.per_store_ps(0, local, 1, 1), store_ps_on(m, store_loop(m, away), local, 1));
  EXPECT_GT(live.per_store_ps(0, local, 1, 1), alone(1));
}

}  // namespace
}  // namespace pagesim::vt
