#include "pagesim/cache/geometry.h"

#include <string>
#include <utility>

namespace pagesim::cache {

namespace {
std::string check_level(const char* name, const CacheLevel& l) {
  if (l.sets == 0 || l.ways == 0) return std::string(name) + ": needs at least one set and one way";
  return {};
}
}  // namespace

CacheLevel CacheLevel::of_size(uint64_t bytes, uint32_t ways) {
  return CacheLevel{static_cast<uint32_t>(ways ? bytes / kLineBytes / ways : 0), ways};
}

CpuPlace CacheGeometry::place(unsigned cpu) const {
  switch (numbering) {
    case CpuNumbering::socket_major:
      return {cpu / (cores_per_socket * threads_per_core), cpu / threads_per_core % cores_per_socket,
              cpu % threads_per_core};
    case CpuNumbering::linux_x86:
      return {cpu / cores_per_socket % sockets, cpu % cores_per_socket,
              cpu / (cores_per_socket * sockets)};
  }
  return {};
}

std::string CacheGeometry::validate() const {
  if (sockets == 0 || sockets > kMaxSockets)
    return "sockets must be 1.." + std::to_string(kMaxSockets);
  if (cores_per_socket == 0 || cores_per_socket > kMaxCoresPerSocket)
    return "cores_per_socket must be 1.." + std::to_string(kMaxCoresPerSocket);
  if (threads_per_core == 0) return "threads_per_core must be at least 1";
  for (auto [name, level] : {std::pair{"l1d", &l1d}, {"l2", &l2}, {"llc", &llc},
                             {"snoop_filter", &snoop_filter}})
    if (std::string err = check_level(name, *level); !err.empty()) return err;
  if (snoop_filter.ways > kMaxSnoopFilterWays)
    return "snoop_filter: at most " + std::to_string(kMaxSnoopFilterWays) + " ways";
  return {};
}

CacheGeometry CacheGeometry::tiny() {
  CacheGeometry g;
  g.sockets = 2;
  g.cores_per_socket = 2;
  g.threads_per_core = 2;
  g.l1d = {4, 2};
  g.l2 = {8, 4};
  g.llc = {16, 4};
  // 8 ways: both cores' L2 sets that map here (4 ways each) fit, so it never back-invalidates.
  g.snoop_filter = {16, 8};
  g.hash_shared_index = false;
  return g;
}

}  // namespace pagesim::cache
