// The DRAM behind one socket's memory controllers, as queueing stations derived from the
// DIMMs' JEDEC timings (docs/machine-model.md, "Memory controller").
//
// A 64-byte transaction occupies two kinds of resource:
//   - its channel: the data bus for one burst, or, when it opens a row, its share of the
//     rank's activation window (four ACTs per tFAW, one per tRRD_S), whichever is longer;
//   - its bank: from ACT to the precharge that lets the bank open another row (tRC for a
//     read; tRCD + CWL + burst + tWR + tRP for a write). A transaction that hits an open row
//     (a streaming clear) shares its row's activation with the other lines of the row.
// Refresh takes tRFC of every tREFI from both; `efficiency` is the share of what is left
// that the controller's scheduler achieves. Requests spread evenly over channels and banks.
//
// The wait of a request at a station is that of an M/G/1 queue (Pollaczek-Khinchine):
// sum(lambda_i s_i^2) / (2 (1 - U)), with each kind's occupancy fixed by the timings: the
// randomness is in the arrivals (which channel and bank a random address hits), not in the
// DRAM's command timings. The wait is finite only below U = 1; the closed loop
// (memory_traffic.h) never reaches it, since its requesters slow down as the wait grows.
#pragma once

#include <array>
#include <cstdint>
#include <limits>

namespace pagesim::vt {

struct DramSpec {
  unsigned channels = 0;  // per socket; 0: no DRAM section (a single station from the bandwidth)
  unsigned ranks_per_channel = 1;
  unsigned banks_per_rank = 16;
  double data_rate_mts = 3200;  // transfers per second / 1e6 on the 64-bit data bus
  double row_bytes = 8192;      // one rank's row (page size x devices)
  double tRC_ns = 0, tFAW_ns = 0, tRRD_S_ns = 0, tRCD_ns = 0, tRP_ns = 0, tCWL_ns = 0, tWR_ns = 0;
  double tRFC_ns = 0, tREFI_ns = 0;
  double efficiency = 1;  // calibrated (docs/machine-model.md, "Calibrated parameters")
};

// The kinds of DRAM transaction the memory model sends a controller.
enum class Txn : unsigned {
  random_read,     // a random store's RFO: opens a row
  random_write,    // its write-back, or a directory update: opens a row
  streaming_write, // a clear's line: shares its row's activation
  streaming_read,  // a sequential read's line (MLC's loaded-latency traffic): the same
  count
};
inline constexpr unsigned kTxnKinds = static_cast<unsigned>(Txn::count);
using TxnRates = std::array<double, kTxnKinds>;  // transactions per second, by kind

struct Station {
  unsigned servers = 1;                 // channels, or banks
  std::array<double, kTxnKinds> s{};    // occupancy per transaction (seconds), by kind
};

// One socket's controller: the channel station and the bank station.
struct DramController {
  Station channel, bank;

  static DramController from_spec(const DramSpec& d);
  // Without timings: one channel whose bus moves `bytes_per_s` (a measured host's bandwidth).
  static DramController from_bandwidth(double bytes_per_s);

  // The queueing delay (seconds) of a request at `rates`; infinity at or above saturation.
  double wait_s(const TxnRates& rates) const;
  // The busiest station's utilisation at `rates`.
  double utilisation(const TxnRates& rates) const;
  // The most random 64-byte transactions per second of `kind` (a station at U = 1).
  double capacity(Txn kind) const;
};

}  // namespace pagesim::vt
