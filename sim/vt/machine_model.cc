// Loading machine files: the scenario layer's strict tree and readers (unknown and duplicate
// keys, decimal-only integers, sizes with units, FILE:LINE:COL in every message).
#include "pagesim/vt/machine_model.h"

#include <fmt/format.h>

#include <cerrno>
#include <cmath>

#include "pagesim/config/diagnostics.h"
#include "pagesim/config/schema.h"
#include "pagesim/config/shipped.h"
#include "pagesim/config/tree.h"
#include "pagesim/error.h"

namespace pagesim::vt {

namespace {

using namespace config;

double number(const MapView& m, std::string_view key, double lo, double hi) {
  config::ParamSpec spec;
  spec.type = config::ParamType::number;
  spec.min = lo;
  spec.max = hi;
  return std::get<double>(read_param(m.require(key), m.path(key), spec));
}

uint32_t integer(const MapView& m, std::string_view key, int64_t lo, int64_t hi) {
  return static_cast<uint32_t>(read_integer(m.require(key), m.path(key), lo, hi));
}

ps_t ns_to_ps(double ns) { return static_cast<ps_t>(std::llround(ns * 1000.0)); }

cache::CacheLevel level(const MapView& caches, std::string_view key) {
  const MapView m(caches.require(key), caches.path(key), {"size", "ways"});
  const uint64_t bytes = static_cast<uint64_t>(read_size(m.require("size"), m.path("size"), 1024, int64_t{1} << 40));
  const uint32_t ways = integer(m, "ways", 1, 64);
  if (bytes % (uint64_t{ways} * cache::kLineBytes))
    fail(m.require("size").pos, m.path("size"),
         fmt::format("{} bytes is not a whole number of sets of {} ways x {} bytes", bytes, ways, cache::kLineBytes));
  return cache::CacheLevel::of_size(bytes, ways);
}

const std::vector<std::string> kDramKeys = {"channels", "ranks_per_channel", "banks_per_rank", "data_rate_mts", "row_bytes",
                                            "tRC_ns", "tFAW_ns", "tRRD_S_ns", "tRCD_ns", "tRP_ns", "tCWL_ns", "tWR_ns",
                                            "tRFC_ns", "tREFI_ns", "efficiency"};

// memory.dram: the DIMMs behind one socket (dram.h).
DramSpec dram_spec(const MapView& d) {
  DramSpec s;
  s.channels = integer(d, "channels", 1, 64);
  s.ranks_per_channel = integer(d, "ranks_per_channel", 1, 16);
  s.banks_per_rank = integer(d, "banks_per_rank", 1, 256);
  s.data_rate_mts = number(d, "data_rate_mts", 100, 100000);
  s.row_bytes = static_cast<double>(read_size(d.require("row_bytes"), d.path("row_bytes"), 64, int64_t{1} << 20));
  for (auto [key, field] : {std::pair{"tRC_ns", &DramSpec::tRC_ns}, {"tFAW_ns", &DramSpec::tFAW_ns}, {"tRRD_S_ns", &DramSpec::tRRD_S_ns},
                            {"tRCD_ns", &DramSpec::tRCD_ns}, {"tRP_ns", &DramSpec::tRP_ns}, {"tCWL_ns", &DramSpec::tCWL_ns},
                            {"tWR_ns", &DramSpec::tWR_ns}, {"tRFC_ns", &DramSpec::tRFC_ns}})
    s.*field = number(d, key, 0, 1e6);
  s.tREFI_ns = number(d, "tREFI_ns", 1, 1e9);
  if (s.tRFC_ns >= s.tREFI_ns) fail(d.require("tRFC_ns").pos, d.path("tRFC_ns"), "refresh must take less than tREFI_ns");
  s.efficiency = number(d, "efficiency", 0.01, 1);
  return s;
}

}  // namespace

double MachineModel::extra_latency_ps(double u) const {
  if (loaded_latency.empty() || u <= loaded_latency.front().utilisation) return loaded_latency.empty() ? 0 : static_cast<double>(loaded_latency.front().extra_ps);
  for (size_t i = 1; i < loaded_latency.size(); ++i) {
    const LoadPoint& a = loaded_latency[i - 1];
    const LoadPoint& b = loaded_latency[i];
    if (u <= b.utilisation) {
      const double f = (u - a.utilisation) / (b.utilisation - a.utilisation);
      return static_cast<double>(a.extra_ps) + f * (static_cast<double>(b.extra_ps) - static_cast<double>(a.extra_ps));
    }
  }
  return static_cast<double>(loaded_latency.back().extra_ps);
}

MachineModel parse_machine_model(const std::string& yaml, const std::string& name) {
  auto src = std::make_shared<const config::Source>(config::Source{name, yaml});
  const Node root = parse_yaml(src, src->text);
  const MapView top(root, "", {"name", "topology", "frequency_ghz", "caches", "latency", "memory", "locks"});
  MachineModel mm;
  mm.file = name;
  mm.name = read_string(top.require("name"), "name");

  const MapView topo(top.require("topology"), "topology", {"sockets", "cores_per_socket", "threads_per_core"});
  mm.geometry.sockets = integer(topo, "sockets", 1, cache::kMaxSockets);
  mm.geometry.cores_per_socket = integer(topo, "cores_per_socket", 1, cache::kMaxCoresPerSocket);
  mm.geometry.threads_per_core = integer(topo, "threads_per_core", 1, 8);
  mm.freq_mhz = static_cast<uint32_t>(std::llround(number(top, "frequency_ghz", 0.1, 10) * 1000));

  const MapView caches(top.require("caches"), "caches", {"l1d", "l2", "llc", "snoop_filter"});
  mm.geometry.l1d = level(caches, "l1d");
  mm.geometry.l2 = level(caches, "l2");
  mm.geometry.llc = level(caches, "llc");
  const MapView sf(caches.require("snoop_filter"), caches.path("snoop_filter"), {"sets", "ways"});
  mm.geometry.snoop_filter = cache::CacheLevel{integer(sf, "sets", 1, 1 << 24), integer(sf, "ways", 1, 64)};
  if (const std::string err = mm.geometry.validate(); !err.empty())
    fail(caches.node().pos, "caches", "the cache model refuses this geometry: " + err);

  using cache::Outcome;
  const MapView lat(top.require("latency"), "latency",
                    {"l1_cycles", "l2_cycles", "llc_local_ns", "llc_remote_ns", "hitm_local_ns", "hitm_remote_ns",
                     "dram_local_ns", "dram_remote_ns"});
  auto set = [&](Outcome o, ps_t ps) { mm.latency_ps[static_cast<unsigned>(o)] = ps; };
  set(Outcome::l1, mm.cycles_to_ps(integer(lat, "l1_cycles", 1, 1000)));
  set(Outcome::l2, mm.cycles_to_ps(integer(lat, "l2_cycles", 1, 1000)));
  set(Outcome::llc_local, ns_to_ps(number(lat, "llc_local_ns", 0.1, 10000)));
  set(Outcome::llc_remote, ns_to_ps(number(lat, "llc_remote_ns", 0.1, 10000)));
  set(Outcome::hitm_local, ns_to_ps(number(lat, "hitm_local_ns", 0.1, 10000)));
  set(Outcome::hitm_remote, ns_to_ps(number(lat, "hitm_remote_ns", 0.1, 10000)));
  set(Outcome::dram_local, ns_to_ps(number(lat, "dram_local_ns", 0.1, 10000)));
  set(Outcome::dram_remote, ns_to_ps(number(lat, "dram_remote_ns", 0.1, 10000)));
  set(Outcome::prefetch, 0);  // a prefetch retires at once; its fill is not waited for

  const MapView mem(top.require("memory"), "memory",
                    {"dram_bandwidth_per_socket_gbs", "dram", "directory_writes", "upi_bandwidth_gbs", "loaded_latency",
                     "clear_bandwidth_per_thread_gbs", "clear_bandwidth_multi_page_per_thread_gbs", "mlp", "stream_mlp"});
  mm.dram_bw_bytes_per_s = number(mem, "dram_bandwidth_per_socket_gbs", 0.001, 1e6) * 1e9;
  if (mem.get("dram")) mm.dram = dram_spec(MapView(mem.require("dram"), mem.path("dram"), kDramKeys));
  if (const Node* d = mem.get("directory_writes")) mm.directory_writes = read_bool(*d, mem.path("directory_writes"));
  mm.upi_bw_bytes_per_s = number(mem, "upi_bandwidth_gbs", 0.001, 1e6) * 1e9;
  mm.clear_bw_bytes_per_s = number(mem, "clear_bandwidth_per_thread_gbs", 0.001, 1e6) * 1e9;
  if (mem.get("clear_bandwidth_multi_page_per_thread_gbs"))
    mm.clear_multi_page_bw_bytes_per_s = number(mem, "clear_bandwidth_multi_page_per_thread_gbs", 0.001, 1e6) * 1e9;
  mm.mlp = integer(mem, "mlp", 1, 1024);
  mm.stream_mlp = integer(mem, "stream_mlp", 1, 1024);
  const Node& curve = mem.require("loaded_latency");
  const std::string cpath = mem.path("loaded_latency");
  if (curve.kind != Node::Kind::sequence || curve.items.empty())
    fail(curve.pos, cpath, "expected a non-empty list of {utilisation, extra_ns} points, got " + describe(curve));
  for (size_t i = 0; i < curve.items.size(); ++i) {
    const MapView p(curve.items[i], fmt::format("{}[{}]", cpath, i), {"utilisation", "extra_ns"});
    LoadPoint lp{number(p, "utilisation", 0, 10), ns_to_ps(number(p, "extra_ns", 0, 1e6))};
    if (!mm.loaded_latency.empty() && lp.utilisation <= mm.loaded_latency.back().utilisation)
      fail(curve.items[i].pos, p.path("utilisation"), "points must ascend in utilisation");
    if (!mm.loaded_latency.empty() && lp.extra_ps < mm.loaded_latency.back().extra_ps)
      fail(curve.items[i].pos, p.path("extra_ns"), "the extra latency must not fall as utilisation rises");
    mm.loaded_latency.push_back(lp);
  }

  const MapView locks(top.require("locks"), "locks",
                      {"line_transfer_same_socket_ns", "line_transfer_cross_socket_ns", "uncontended_cycles"});
  mm.lock_line_same_ps = ns_to_ps(number(locks, "line_transfer_same_socket_ns", 0, 1e6));
  mm.lock_line_cross_ps = ns_to_ps(number(locks, "line_transfer_cross_socket_ns", 0, 1e6));
  mm.lock_uncontended_cycles = integer(locks, "uncontended_cycles", 0, 100000);
  return mm;
}

MachineModel load_machine_model(const std::string& path) {
  return parse_machine_model(read_config_file(path, "machine file"), path);
}

void require_clear_rate(const MachineModel& m, ClearMode mode, const std::string& who) {
  if (m.clear_rate(mode) <= 0)
    throw InputError(fmt::format("{}: memory.clear_bandwidth_multi_page_per_thread_gbs: missing, and {} asks for {} clearing "
                                 "(`pagesim calibrate` measures it for this host)",
                                 m.file.empty() ? m.name : m.file, who, clear_mode_name(mode)));
}

std::string default_machine_file() { return (config::shipped_dir("machines") / "icx-8358-2s.yaml").string(); }

}  // namespace pagesim::vt
