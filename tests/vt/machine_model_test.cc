// The machine file: the shipped one loads with its documented numbers; mistakes are refused
// with FILE:LINE:COL and the key; the UPI curve interpolates its points.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <sstream>

#include "pagesim/error.h"
#include "pagesim/vt/machine_model.h"

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
  // The unlock's transfer from the line's last writer, then the head's read and upgrade.
  EXPECT_EQ(m.lock_handoff_ps(0, 0, 0), 153000u);
  EXPECT_EQ(m.lock_handoff_ps(1, 0, 1), 324000u);
  EXPECT_EQ(m.lock_handoff_ps(1, 0, 0), 210000u);
}

// The Skylake-SP files (will-it-scale's page fault boxes): 2 and 4 x Platinum 8180, the same
// part and DIMMs, the 4-socket one with a narrower link per socket pair.
TEST(VirtualMachineFile, SkylakeSpFilesLoadWithTheirSourcedNumbers) {
  const std::string dir = std::string(PAGESIM_SOURCE_DIR) + "/machines/";
  const MachineModel two = load_machine_model(dir + "skx-8180-2s.yaml");
  const MachineModel four = load_machine_model(dir + "skx-8180-4s.yaml");
  EXPECT_EQ(two.name, "skx-8180-2s");
  EXPECT_EQ(four.name, "skx-8180-4s");
  EXPECT_EQ(two.geometry.cpus(), 112u);
  EXPECT_EQ(four.geometry.cpus(), 224u);
  for (const MachineModel* m : {&two, &four}) {
    EXPECT_EQ(m->freq_mhz, 2500u);
    EXPECT_EQ(m->geometry.l1d.bytes(), 32u << 10);
    EXPECT_EQ(m->geometry.l2.bytes(), 1u << 20);
    EXPECT_EQ(m->geometry.llc.bytes(), 28u * 1408 << 10) << "1.375 MiB per core";
    EXPECT_EQ(m->latency(Outcome::dram_local), 89600u);
    EXPECT_EQ(m->latency(Outcome::hitm_remote), 114000u);
    EXPECT_EQ(m->dram.channels, 6u);
    EXPECT_EQ(m->dram.data_rate_mts, 2666u);
    EXPECT_DOUBLE_EQ(m->clear_bw_bytes_per_s, 6.5e9);
  }
  EXPECT_DOUBLE_EQ(two.upi_bw_bytes_per_s, 34.3e9);
  EXPECT_DOUBLE_EQ(four.upi_bw_bytes_per_s, 17.2e9);
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

// memory.dram is optional: without it the controller is one channel at the file's bandwidth
// (a measured host), with it the DIMMs' timings decide.
TEST(VirtualMachineFile, DramSectionIsReadOrTheBandwidthStandsForIt) {
  std::string text = shipped_text();
  const MachineModel m = parse_machine_model(text, "m.yaml");
  EXPECT_EQ(m.dram.channels, 8u);
  EXPECT_EQ(m.dram.tFAW_ns, 21);
  EXPECT_TRUE(m.directory_writes);
  const size_t at = text.find("  dram: {");
  text.erase(at, text.find('\n', at) - at + 1);
  const MachineModel bw = parse_machine_model(text, "m.yaml");
  EXPECT_EQ(bw.dram.channels, 0u);
  EXPECT_NEAR(bw.controller().capacity(Txn::random_read), 175.7e9 / 64, 1);
  std::string bad = shipped_text();
  bad.replace(bad.find("tRFC_ns: 350"), 12, "tRFC_ns: 9000");
  EXPECT_THROW(parse_machine_model(bad, "m.yaml"), InputError);
  try {
    parse_machine_model(bad, "m.yaml");
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("m.yaml:"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("memory.dram.tRFC_ns"), std::string::npos) << e.what();
  }
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

}  // namespace
}  // namespace pagesim::vt
