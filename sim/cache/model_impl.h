// CacheModel's state and the protocol steps it is built from. Internal.
#pragma once

#include <cstdint>
#include <vector>

#include "entries.h"
#include "line_ids.h"
#include "lru_array.h"
#include "sf_array.h"
#include "pagesim/cache/cache_model.h"
#include "pagesim/huge_region.h"

namespace pagesim::cache {

struct CacheModel::Impl {
  using TagArray = internal::LruArray<internal::TagEntry>;
  using SfArray = internal::SfArray;
  using Ln = internal::Ln;

  // The copies of a line inside one socket, as found before the protocol acts on them.
  // Every field is set by find_holders; no initializers, so that fetch's array of kMaxSockets
  // costs nothing for the sockets a machine does not have.
  struct Holders {
    uint64_t sharers;                // cores of the socket holding it privately
    LineState owner_state;           // the sole sharer's state (I if not exactly one)
    internal::TagEntry* llc_set;
    int llc_way;                     // the socket's LLC copy, -1 if none
    SfArray::Set sf_set;
    int sf_way;                      // the socket's snoop-filter entry, -1 if none

    LineState llc() const { return llc_way < 0 ? LineState::I : llc_set[llc_way].state(); }
    bool any() const { return sharers != 0 || llc_way >= 0; }
    // By the invariants, a Modified copy is the only copy in the machine.
    bool modified() const { return owner_state == LineState::M || llc() == LineState::M; }
  };

  // What a fetch found and leaves for the fill: the level that served the line, the state the
  // core gets, and where the line is (or is not) in the core's socket's snoop filter, as
  // fetch's own lookup found it. Nothing between that lookup and the fill moves the filter's
  // ways: the copies fetch demotes or takes are in caches and LLCs, and a write's invalidation
  // erases the socket's entry (the requester holds no copy, so every sharer goes).
  struct Fetched {
    Outcome o;
    LineState st;
    SfArray::Set sf_set;
    int sf_way;
  };

  // A line's set index in the LLC and in the snoop filter, the same in every socket. One
  // computation serves both when the two structures index alike (same_socket_index).
  struct SocketIndex {
    uint32_t llc, sf;
  };
  SocketIndex socket_index(uint64_t line) const {
    const uint32_t i = llc.index(line);
    return {i, same_socket_index ? i : sf.index(line)};
  }

  Impl(const CacheGeometry& geometry, PerLineContention per_line);

  // The L1-hit path, inline in CacheModel::access; a miss goes on in miss_l1.
  [[gnu::always_inline]] Outcome access(unsigned core, unsigned socket, Ln ln, uint16_t home, bool write, const Attribution& attr);
  Ln ln_of(uint32_t id) const { return {ids.line(id), id}; }

  // Cores are numbered globally: socket * cores_per_socket + core in socket.
  unsigned socket_of(unsigned core) const { return core / g.cores_per_socket; }
  uint64_t bit(unsigned core) const { return uint64_t{1} << (core % g.cores_per_socket); }
  unsigned core_at(unsigned socket, unsigned i) const { return socket * g.cores_per_socket + i; }

  // --- per-core private hierarchy (a line's L1 and L2 copies have one state, I4) ---
  // The common steps of a miss (fetch, find_holders, the fills, evict_l2_victim, the filter and
  // LLC updates) are forced inline into miss_l1; the rare ones (upgrades, invalidations,
  // back-invalidations) stay calls.
  LineState core_state(unsigned core, Ln ln) const;
  LineState drop_core(unsigned core, Ln ln);  // removes both copies; returns the state
  void share_core(unsigned core, Ln ln);      // demotes both copies to S
  // s1 and s2 are the line's sets in the core's L1 and L2 (sets never move; their ways do).
  [[gnu::always_inline]] void fill_l1(LineState st, Ln ln, internal::TagEntry* s1);
  // `filled`: fetch's result (the state, and the socket's snoop-filter set and way).
  [[gnu::always_inline]] void fill_private(unsigned core, Ln ln, const Fetched& filled, internal::TagEntry* s1, internal::TagEntry* s2);
  [[gnu::always_inline]] void evict_l2_victim(unsigned core, internal::TagEntry victim);

  // --- socket-level structures ---
  // `x` is socket_index(ln.line), as in the calls below.
  [[gnu::always_inline]] void find_holders(unsigned socket, Ln ln, SocketIndex x, Holders& h);  // filled in place: no copy back
  [[gnu::always_inline]] void llc_insert(unsigned socket, Ln ln, uint32_t llc_index, bool dirty);
  // `s` is the line's set in the core's socket and `w` its way there, -1 if none.
  [[gnu::always_inline]] void sf_add(unsigned core, Ln ln, const SfArray::Set& s, int w);
  [[gnu::always_inline]] void sf_remove(unsigned core, Ln ln, uint32_t sf_index);
  void back_invalidate(unsigned socket, const SfArray::Entry& victim);

  // --- protocol ---
  // Out of line, so that the L1-hit path in access() keeps a small frame.
  [[gnu::noinline]] Outcome miss_l1(unsigned core, unsigned socket, Ln ln, uint16_t home, bool write,
                                    const Attribution& attr, internal::TagEntry* s1);
  [[gnu::always_inline]] Fetched fetch(unsigned core, unsigned socket, Ln ln, uint16_t home, bool write, const Attribution& attr);
  Outcome upgrade(unsigned core, Ln ln, const Attribution& attr);

  struct Killed {
    unsigned cores = 0;   // private copies
    unsigned llcs = 0;    // LLC copies
    bool remote = false;  // some copy was outside the keeper's socket
  };
  // Invalidates every copy but core `keep`'s (kNoCore: every copy). Counts nothing.
  Killed invalidate_others(unsigned keep, Ln ln);
  // The same for copies already looked up, h[s] for every socket s (fetch's).
  Killed invalidate_found(unsigned keep, Ln ln, const Holders* h);
  // One socket's part of both: the filter's entry (way sw of fs) and the LLC copy (way lw of ls).
  void invalidate_in_socket(unsigned keep, unsigned s, Ln ln, const SfArray::Set& fs, int sw,
                            internal::TagEntry* ls, int lw, Killed& k);
  static constexpr unsigned kNoCore = ~0u;
  // Counts the invalidations a write charged to `attr` caused.
  void count_killed(uint64_t line, const Attribution& attr, const Killed& k);

  CacheGeometry g;
  internal::LineIds ids;
  std::vector<uint32_t> cpu_core;    // global core of each CPU
  std::vector<uint16_t> cpu_socket;
  // Every socket's LLC and snoop-filter sets of one set index, side by side, when the two
  // structures have the same number of sets: a miss looks at all four, and they are then one
  // block of neighbouring host lines rather than four random ones. Empty otherwise.
  HugeRegion socket_sets;
  size_t socket_stride = 0;  // bytes from one socket's sets to the next's in socket_sets
  size_t sf_offset = 0;      // bytes from a socket's LLC set to its snoop-filter set
  TagArray l1, l2;                   // one instance per core
  TagArray llc;                      // one per socket
  SfArray sf;                        // one per socket
  bool same_socket_index;            // llc and sf have the same sets and the same index function
  CacheStats stats;
};

}  // namespace pagesim::cache
