// The shape of the modelled cache hierarchy: sockets, cores, threads, and the size and
// associativity of each level.
//
// Defaults describe one Ice Lake-SP Xeon Platinum 8358 box as the kernel test robot ran it
// (docs/cache-model.md, "Geometry sources"): 2 sockets x 32 cores x 2 threads; per core a 48 KiB 12-way
// L1d and a 1.25 MiB 20-way L2 (InstLatx64 GenuineIntel00606A6_ICX CPUID dump; Intel support
// article 000027820); per socket a 48 MiB 12-way LLC, 1.5 MiB per core, non-inclusive of the
// private caches (same sources). The snoop filter's size is not published: see
// docs/cache-model.md for the estimate used.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace pagesim::cache {

inline constexpr unsigned kLineBytes = 64;
inline constexpr unsigned kMaxSockets = 8;          // the model keeps per-socket state on the stack
inline constexpr unsigned kMaxCoresPerSocket = 64;  // the snoop filter's sharer mask is 64 bits
inline constexpr unsigned kMaxSnoopFilterWays = 64;   // match_ways compares at most 64 ways

// One set-associative structure: `sets` x `ways` entries of one 64-byte line each.
struct CacheLevel {
  uint32_t sets = 1;
  uint32_t ways = 1;

  uint64_t lines() const { return uint64_t{sets} * ways; }
  uint64_t bytes() const { return lines() * kLineBytes; }
  // The level of `bytes` capacity and `ways` associativity (bytes / 64 / ways sets).
  static CacheLevel of_size(uint64_t bytes, uint32_t ways);
  friend bool operator==(const CacheLevel&, const CacheLevel&) = default;
};

// Where a logical CPU sits. `core` counts within the socket.
struct CpuPlace {
  unsigned socket = 0;
  unsigned core = 0;
  unsigned thread = 0;
  friend bool operator==(const CpuPlace&, const CpuPlace&) = default;
};

// How logical CPU ids map onto (socket, core, thread).
enum class CpuNumbering : uint8_t {
  // cpu = (socket * cores + core) * threads + thread. CPU ids are contiguous per socket and
  // SMT siblings are adjacent (cpus 0 and 1 share core 0). This is the default because
  // mm::MachineSpec numbers CPUs node by node, and node == socket here.
  socket_major,
  // cpu = (thread * sockets + socket) * cores + core: what Linux enumerates on a 2-socket
  // Ice Lake-SP (0-31 socket 0, 32-63 socket 1, 64-95 their siblings on socket 0, ...).
  // Only valid with a MachineSpec whose cpu_to_node agrees.
  linux_x86,
};

struct CacheGeometry {
  unsigned sockets = 2;            // at most kMaxSockets
  unsigned cores_per_socket = 32;  // at most kMaxCoresPerSocket
  unsigned threads_per_core = 2;   // SMT siblings share their core's L1d and L2
  CpuNumbering numbering = CpuNumbering::socket_major;

  CacheLevel l1d = CacheLevel::of_size(48u << 10, 12);   // per core: 64 sets
  CacheLevel l2 = CacheLevel::of_size(1280u << 10, 20);  // per core: 1024 sets
  CacheLevel llc = CacheLevel::of_size(48u << 20, 12);   // per socket: 65536 sets
  // Per socket; tracks lines held in that socket's private caches. Estimate: 1.2x the
  // socket's L2 lines (32 x 20480), so that back-invalidations come from set conflicts only.
  CacheLevel snoop_filter{65536, 12};
  // Index the LLC and snoop filter by a XOR-fold of the line number, a stand-in for Intel's
  // undocumented slice hash, so that power-of-two strides (head pages 512 lines apart) do not
  // pile into a few sets. The private caches always use plain bit selection, as hardware does.
  bool hash_shared_index = true;

  unsigned cpus() const { return sockets * cores_per_socket * threads_per_core; }
  unsigned cores() const { return sockets * cores_per_socket; }

  // Where `cpu` sits under `numbering`. The one place the CPU numbering is decided.
  // Precondition: cpu < cpus().
  CpuPlace place(unsigned cpu) const;

  // Empty if the geometry is usable, else what is wrong with it.
  std::string validate() const;

  // The kernel test robot's 2-socket Xeon Platinum 8358 (the defaults above).
  static CacheGeometry icelake_8358() { return {}; }
  // A machine small enough to hand-compute: 2 sockets x 2 cores x 2 threads; L1d 4 sets x
  // 2 ways, L2 8 sets x 4 ways, LLC 16 sets x 4 ways, snoop filter 16 sets x 4 ways, all
  // indexed by plain bit selection (set = line % sets).
  static CacheGeometry tiny();
};

}  // namespace pagesim::cache
