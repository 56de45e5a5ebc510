// This host's CPUs and caches as Linux lists them (/sys/devices/system/cpu, /proc/cpuinfo).
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <optional>
#include <set>
#include <utility>

#include "pagesim/config/units.h"
#include "pagesim/vt/calibrate.h"

namespace pagesim::vt {

namespace {

namespace fs = std::filesystem;

const fs::path kCpuDir = "/sys/devices/system/cpu";

// The first line of a small sysfs or procfs file without surrounding blanks; "" if unreadable.
std::string first_line(const fs::path& p) {
  std::ifstream in(p);
  std::string s;
  std::getline(in, s);
  const size_t b = s.find_first_not_of(" \t");
  return b == std::string::npos ? "" : s.substr(b, s.find_last_not_of(" \t\r") - b + 1);
}

std::optional<unsigned> read_unsigned(const fs::path& p) {
  const std::optional<uint64_t> v = config::parse_decimal_unsigned(first_line(p));
  return v ? std::optional<unsigned>(static_cast<unsigned>(*v)) : std::nullopt;
}

// A kernel CPU list ("0-3,8,10-11"), each CPU; nullopt when malformed.
std::optional<std::vector<unsigned>> cpu_list(const std::string& text) {
  const auto ranges = config::parse_id_list(text);
  if (!ranges) return std::nullopt;
  std::vector<unsigned> out;
  for (const auto& [lo, hi] : *ranges)
    for (uint64_t c = lo; c <= hi; ++c) out.push_back(static_cast<unsigned>(c));
  return out;
}

// The data or unified cache of `level` that cpu0 uses; bytes 0 when not listed.
HostTopology::Cache cache_of(unsigned level) {
  std::error_code ec;
  for (const fs::directory_entry& e : fs::directory_iterator(kCpuDir / "cpu0" / "cache", ec)) {
    if (e.path().filename().string().rfind("index", 0) != 0) continue;
    if (read_unsigned(e.path() / "level") != level || first_line(e.path() / "type") == "Instruction") continue;
    const std::optional<int64_t> bytes = config::parse_size(first_line(e.path() / "size"));
    const std::optional<unsigned> ways = read_unsigned(e.path() / "ways_of_associativity");
    if (bytes && *bytes > 0 && ways && *ways > 0) return {static_cast<uint64_t>(*bytes), *ways};
  }
  return {};
}

// Sockets, cores per socket and threads per core from each online CPU's package and SMT
// siblings; false when /sys does not say or the answer is not a uniform grid.
bool read_placement(HostTopology& t) {
  const std::optional<std::vector<unsigned>> online = cpu_list(first_line(kCpuDir / "online"));
  if (!online || online->size() != t.cpus) return false;
  std::set<unsigned> packages;
  std::set<std::pair<unsigned, std::string>> cores;  // (package, its SMT siblings)
  for (unsigned cpu : *online) {
    const fs::path topo = kCpuDir / ("cpu" + std::to_string(cpu)) / "topology";
    const std::optional<unsigned> pkg = read_unsigned(topo / "physical_package_id");
    const std::string siblings = first_line(topo / "thread_siblings_list");
    if (!pkg || siblings.empty()) return false;
    packages.insert(*pkg);
    cores.emplace(*pkg, siblings);
  }
  if (cores.size() % packages.size() != 0 || t.cpus % cores.size() != 0) return false;
  t.sockets = static_cast<unsigned>(packages.size());
  t.cores_per_socket = static_cast<unsigned>(cores.size() / packages.size());
  t.threads_per_core = static_cast<unsigned>(t.cpus / cores.size());
  return true;
}

// "model name" and "cpu MHz" of the first processor in /proc/cpuinfo.
void read_cpuinfo(HostTopology& t) {
  std::ifstream in("/proc/cpuinfo");
  bool have_model = false, have_mhz = false;
  for (std::string line; (!have_model || !have_mhz) && std::getline(in, line);) {
    const size_t colon = line.find(':');
    if (colon == std::string::npos || colon == 0) continue;
    const std::string key = line.substr(0, line.find_last_not_of(" \t", colon - 1) + 1);
    const std::string value = colon + 2 <= line.size() ? line.substr(colon + 2) : "";
    if (key == "model name" && !have_model) {
      t.cpu_model = value;
      have_model = true;
    } else if (key == "cpu MHz" && !have_mhz) {
      t.cpuinfo_mhz = config::parse_number(value).value_or(0);
      have_mhz = true;
    }
  }
}

}  // namespace

HostTopology read_host_topology() {
  HostTopology t;
  t.cpus = static_cast<unsigned>(std::max(1L, ::sysconf(_SC_NPROCESSORS_ONLN)));
  t.from_sysfs = read_placement(t);
  if (!t.from_sysfs) {
    t.sockets = 1;
    t.cores_per_socket = t.cpus;
    t.threads_per_core = 1;
  }
  t.l1d = cache_of(1);
  t.l2 = cache_of(2);
  t.llc = cache_of(3);
  read_cpuinfo(t);
  return t;
}

}  // namespace pagesim::vt
