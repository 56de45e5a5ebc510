#include "pagesim/vt/dram.h"

#include <algorithm>

namespace pagesim::vt {

namespace {

constexpr double kLineBytes = 64;
constexpr double kNs = 1e-9;

double station_u(const Station& st, const TxnRates& rates) {
  double u = 0;
  for (unsigned i = 0; i < kTxnKinds; ++i) u += rates[i] / st.servers * st.s[i];
  return u;
}

// M/G/1 (Pollaczek-Khinchine): W = sum(lambda_i s_i^2) / (2 (1 - U)), each kind's occupancy
// fixed by the timings.
double station_wait(const Station& st, const TxnRates& rates) {
  double u = 0, second = 0;
  for (unsigned i = 0; i < kTxnKinds; ++i) {
    const double lambda = rates[i] / st.servers;
    u += lambda * st.s[i];
    second += lambda * st.s[i] * st.s[i];
  }
  return u >= 1 ? std::numeric_limits<double>::infinity() : second / (2 * (1 - u));
}

}  // namespace

DramController DramController::from_spec(const DramSpec& d) {
  const double burst = kLineBytes / 8 / (d.data_rate_mts * 1e6);  // BL8 on a 64-bit bus
  // The rank's activation window: four ACTs per tFAW, one per tRRD_S; ranks interleave.
  const double act = std::max(d.tFAW_ns / 4, d.tRRD_S_ns) * kNs / d.ranks_per_channel;
  const double acts_streaming = kLineBytes / d.row_bytes;  // one ACT per row of lines
  const double write_cycle = (d.tRCD_ns + d.tCWL_ns + d.tWR_ns + d.tRP_ns) * kNs + burst;
  // Refresh and the scheduler's efficiency stretch every occupancy alike.
  const double stretch = 1 / (d.efficiency * (1 - d.tRFC_ns / d.tREFI_ns));
  DramController c;
  c.channel.servers = d.channels;
  c.channel.s[static_cast<unsigned>(Txn::random_read)] = std::max(burst, act) * stretch;
  c.channel.s[static_cast<unsigned>(Txn::random_write)] = std::max(burst, act) * stretch;
  c.channel.s[static_cast<unsigned>(Txn::streaming_write)] = std::max(burst, acts_streaming * act) * stretch;
  c.channel.s[static_cast<unsigned>(Txn::streaming_read)] = c.channel.s[static_cast<unsigned>(Txn::streaming_write)];
  c.bank.servers = d.channels * d.ranks_per_channel * d.banks_per_rank;
  c.bank.s[static_cast<unsigned>(Txn::random_read)] = d.tRC_ns * kNs * stretch;
  c.bank.s[static_cast<unsigned>(Txn::random_write)] = write_cycle * stretch;
  c.bank.s[static_cast<unsigned>(Txn::streaming_write)] = acts_streaming * write_cycle * stretch;
  c.bank.s[static_cast<unsigned>(Txn::streaming_read)] = acts_streaming * d.tRC_ns * kNs * stretch;
  return c;
}

DramController DramController::from_bandwidth(double bytes_per_s) {
  DramController c;
  c.channel.s.fill(kLineBytes / bytes_per_s);
  c.bank.servers = 1;  // no bank station: zero occupancy
  return c;
}

double DramController::wait_s(const TxnRates& rates) const { return station_wait(channel, rates) + station_wait(bank, rates); }

double DramController::utilisation(const TxnRates& rates) const {
  return std::max(station_u(channel, rates), station_u(bank, rates));
}

double DramController::capacity(Txn kind) const {
  TxnRates one{};
  one[static_cast<unsigned>(kind)] = 1;
  return 1 / utilisation(one);
}

}  // namespace pagesim::vt
