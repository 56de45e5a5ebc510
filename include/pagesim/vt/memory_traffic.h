// MemoryTraffic: all the DRAM traffic the memory model prices analytically, in one closed loop
// per node (docs/machine-model.md, "Memory model").
//
// The requesters:
//   - store loops (usemem's do_rw_once): one RFO in flight per loop (x86 stores commit in
//     order, so a random store that misses holds the ones behind it), a store every miss
//     latency. A store costs its home node an RFO read and a write-back, and, when the CPU is
//     on another node, a directory write (the home records the remote owner in the line's
//     ECC bits: J. McCalpin, "Memory directories in Intel processors", 2023);
//   - clearing threads (clear_huge_page): `lines_in_flight` 64-byte lines at a time, one
//     streaming write per line (rep stosb's full-line stores need no RFO), and a directory
//     write per line when the page is remote.
// A request from node c to memory homed on h takes the idle latency of the machine file, plus
// the queueing delay of h's controller (dram.h) at the transactions every requester sends it,
// plus, when remote, the UPI link's loaded-latency curve at its bytes. The delays are the fixed
// point of latency -> request rates -> controller load -> delay: a node near its capacity
// slows every requester homed on it until its load fits.
//
// Thread safety: none; the virtual engine calls it in virtual-time order from its fibers.
#pragma once

#include <cstdint>
#include <vector>

#include "pagesim/vt/dram.h"
#include "pagesim/vt/machine_model.h"

namespace pagesim::vt {

// One clearing thread's lines in flight: its idle-machine rate (the machine file's, per
// mode) times the idle local latency, over the line size (Little's law).
double clear_lines_in_flight(const MachineModel& m, double thread_rate);

class MemoryTraffic {
 public:
  explicit MemoryTraffic(const MachineModel& m);

  // Store loop `id` runs on `cpu_node` with `cpu_share` of its CPU over `pages_per_node`.
  void set_loop(unsigned id, unsigned cpu_node, double cpu_share, const std::vector<uint64_t>& pages_per_node);
  void leave_loop(unsigned id);
  void add_clear(unsigned cpu_node, unsigned page_node, double lines_in_flight);
  void remove_clear(unsigned cpu_node, unsigned page_node, double lines_in_flight);

  // At the fixed point of the requesters now present (solved when they changed):
  double wait_ps(unsigned node);                       // h's controller queueing delay
  double miss_ps(unsigned cpu_node, unsigned home);    // a DRAM miss from cpu_node to home
  double store_ps(unsigned id);                        // one store of loop id
  double clear_bytes_per_s(unsigned cpu_node, unsigned page_node, double lines_in_flight);

  struct NodeLoad {
    double utilisation = 0;             // the busiest station (channels or banks)
    double transactions_per_s = 0;      // every kind
    double directory_writes_per_s = 0;  // for remote RFOs and remote clear lines
  };
  NodeLoad node_load(unsigned node);
  unsigned nodes() const { return nodes_; }
  uint64_t solves() const { return solves_; }

 private:
  struct Loop {
    bool on = false;
    unsigned node = 0;
    double share = 1;
    std::vector<double> page_share;  // by home node
  };
  struct ClearClass {
    unsigned cpu_node, page_node;
    double lines_in_flight;
    unsigned count;
  };

  void solve();
  // A store loop's latency to the home being solved, split around the home's own delay.
  struct HomeTerm {
    double prefix;      // the page shares homed below the home, at their delays
    double page_share;  // the share homed there
    double idle, upi;   // its idle latency and UPI delay from the loop's node
    double cpu_rate;    // the loop's CPU share, in picoseconds per second
    bool remote;
    unsigned suffix_first, suffix_count;  // the shares homed above it, in suffix_
  };
  void build_home_terms(unsigned home);
  // The transactions per second each kind sends the home of build_home_terms(), and the
  // directory writes among them, with its delay taken as `wait_h` (the others' as solved so far).
  TxnRates home_rates(double wait_h, double* directory = nullptr) const;
  double idle_ps(unsigned c, unsigned h) const;
  double miss_at(unsigned c, unsigned h, double wait_h) const;  // wait_h for h's delay
  // One store of `l` (MLP 1: a store per miss latency) with node h's delay taken as wait_h.
  double store_at(const Loop& l, unsigned h, double wait_h) const;
  // The lines per second a class of clears writes with its page node's delay taken as wait_h.
  double clear_lines_at(const ClearClass& c, double wait_h) const;
  void update_upi();

  const MachineModel& m_;
  const DramController ctl_;
  unsigned nodes_;
  std::vector<Loop> loops_;
  std::vector<ClearClass> clears_;
  std::vector<double> wait_;   // per node, picoseconds
  std::vector<double> upi_;    // per [c * nodes + h], picoseconds
  bool stale_ = false;
  uint64_t solves_ = 0;
  unsigned home_ = 0;  // build_home_terms' scratch, reused across solves
  std::vector<HomeTerm> terms_;
  std::vector<double> suffix_;
};

}  // namespace pagesim::vt
