#include "pagesim/vt/memory_traffic.h"

#include <algorithm>
#include <cmath>

namespace pagesim::vt {

namespace {

constexpr double kLineBytes = 64;
constexpr double kPsPerS = 1e12;
constexpr double kTolerancePs = 0.01;
constexpr unsigned kMaxSweeps = 200;

unsigned index(Txn t) { return static_cast<unsigned>(t); }

}  // namespace

double clear_lines_in_flight(const MachineModel& m, double thread_rate) {
  return thread_rate * static_cast<double>(m.latency(cache::Outcome::dram_local)) / kPsPerS / kLineBytes;
}

MemoryTraffic::MemoryTraffic(const MachineModel& m)
    : m_(m), ctl_(m.controller()), nodes_(m.geometry.sockets), wait_(nodes_, 0), upi_(nodes_ * nodes_, 0) {}

void MemoryTraffic::set_loop(unsigned id, unsigned cpu_node, double cpu_share, const std::vector<uint64_t>& pages_per_node) {
  if (loops_.size() <= id) loops_.resize(id + 1);
  Loop& l = loops_[id];
  uint64_t pages = 0;
  for (uint64_t p : pages_per_node) pages += p;
  std::vector<double> share(nodes_, 0);
  for (unsigned h = 0; h < nodes_ && h < pages_per_node.size() && pages; ++h)
    share[h] = static_cast<double>(pages_per_node[h]) / static_cast<double>(pages);
  const bool on = pages > 0;
  if (l.on == on && l.node == cpu_node && l.share == cpu_share && l.page_share == share) return;
  l = Loop{on, cpu_node, cpu_share, std::move(share)};
  stale_ = true;
}

void MemoryTraffic::leave_loop(unsigned id) {
  if (id >= loops_.size() || !loops_[id].on) return;
  loops_[id].on = false;
  stale_ = true;
}

void MemoryTraffic::add_clear(unsigned cpu_node, unsigned page_node, double lines_in_flight) {
  stale_ = true;
  for (ClearClass& c : clears_)
    if (c.cpu_node == cpu_node && c.page_node == page_node && c.lines_in_flight == lines_in_flight) {
      c.count++;
      return;
    }
  clears_.push_back({cpu_node, page_node, lines_in_flight, 1});
}

void MemoryTraffic::remove_clear(unsigned cpu_node, unsigned page_node, double lines_in_flight) {
  for (size_t i = 0; i < clears_.size(); ++i) {
    ClearClass& c = clears_[i];
    if (c.cpu_node != cpu_node || c.page_node != page_node || c.lines_in_flight != lines_in_flight) continue;
    if (--c.count == 0) clears_.erase(clears_.begin() + static_cast<ptrdiff_t>(i));
    stale_ = true;
    return;
  }
}

double MemoryTraffic::idle_ps(unsigned c, unsigned h) const {
  return static_cast<double>(m_.latency(c == h ? cache::Outcome::dram_local : cache::Outcome::dram_remote));
}

double MemoryTraffic::miss_at(unsigned c, unsigned h, double wait_h) const {
  return idle_ps(c, h) + wait_h + (c == h ? 0 : upi_[c * nodes_ + h]);
}

double MemoryTraffic::store_at(const Loop& l, unsigned h, double wait_h) const {
  double ps = 0;
  for (unsigned k = 0; k < nodes_; ++k)
    if (l.page_share[k] > 0) ps += l.page_share[k] * miss_at(l.node, k, k == h ? wait_h : wait_[k]);
  return ps;
}

double MemoryTraffic::clear_lines_at(const ClearClass& c, double wait_h) const {
  return c.count * c.lines_in_flight * kPsPerS / miss_at(c.cpu_node, c.page_node, wait_h);
}

// Everything in h's requesters' latencies but h's own delay, summed in store_at's order, so
// that an evaluation adds only h's term: the bisection evaluates it some 40 times per solve.
void MemoryTraffic::build_home_terms(unsigned h) {
  home_ = h;
  terms_.clear();
  suffix_.clear();
  for (const Loop& l : loops_) {
    if (!l.on || l.page_share[h] <= 0) continue;
    HomeTerm t{0, l.page_share[h], idle_ps(l.node, h), l.node == h ? 0 : upi_[l.node * nodes_ + h],
               l.share * kPsPerS, l.node != h, static_cast<unsigned>(suffix_.size()), 0};
    for (unsigned k = 0; k < nodes_; ++k) {
      if (k == h || l.page_share[k] <= 0) continue;
      const double term = l.page_share[k] * miss_at(l.node, k, wait_[k]);
      if (k < h) t.prefix += term;
      else suffix_.push_back(term), t.suffix_count++;
    }
    terms_.push_back(t);
  }
}

TxnRates MemoryTraffic::home_rates(double wait_h, double* directory) const {
  TxnRates r{};
  double dir = 0;
  const bool dir_on = m_.directory_writes;
  for (const HomeTerm& t : terms_) {
    double ps = t.prefix + t.page_share * ((t.idle + wait_h) + t.upi);
    for (unsigned i = 0; i < t.suffix_count; ++i) ps += suffix_[t.suffix_first + i];
    const double stores = t.cpu_rate / ps * t.page_share;
    r[index(Txn::random_read)] += stores;   // the RFO
    r[index(Txn::random_write)] += stores;  // the write-back of the dirty line
    if (dir_on && t.remote) dir += stores;
  }
  r[index(Txn::random_write)] += dir;
  double clear_dir = 0;
  for (const ClearClass& c : clears_) {
    if (c.page_node != home_) continue;
    const double lines = clear_lines_at(c, wait_h);
    r[index(Txn::streaming_write)] += lines;
    if (dir_on && c.cpu_node != home_) clear_dir += lines;
  }
  r[index(Txn::streaming_write)] += clear_dir;
  if (directory) *directory = dir + clear_dir;
  return r;
}

// The UPI curve at each link's bytes: 128 per remote store (RFO and write-back), 64 per remote
// clear line. Damped: the rates it depends on move with it.
void MemoryTraffic::update_upi() {
  std::vector<double> bytes(nodes_ * nodes_, 0);
  for (const Loop& l : loops_) {
    if (!l.on) continue;
    const double stores = l.share * kPsPerS / store_at(l, l.node, wait_[l.node]);
    for (unsigned h = 0; h < nodes_; ++h)
      if (h != l.node) bytes[l.node * nodes_ + h] += stores * l.page_share[h] * 2 * kLineBytes;
  }
  for (const ClearClass& c : clears_)
    if (c.cpu_node != c.page_node) bytes[c.cpu_node * nodes_ + c.page_node] += clear_lines_at(c, wait_[c.page_node]) * kLineBytes;
  for (unsigned i = 0; i < nodes_ * nodes_; ++i)
    upi_[i] = 0.5 * (upi_[i] + m_.extra_latency_ps(std::min(1.0, bytes[i] / m_.upi_bw_bytes_per_s)));
}

// Gauss-Seidel over the nodes; each node's delay by bisection of wait(rates(w)) - w, which
// falls as w grows (its requesters slow down). Starts from the last solution.
void MemoryTraffic::solve() {
  stale_ = false;
  solves_++;
  for (unsigned sweep = 0; sweep < kMaxSweeps; ++sweep) {
    double moved = 0;
    for (unsigned h = 0; h < nodes_; ++h) {
      build_home_terms(h);
      auto excess = [&](double w) { return ctl_.wait_s(home_rates(w)) * kPsPerS - w; };
      double next = 0;
      if (excess(0) > 0) {
        // Bracket the root by steps doubling away from the last solution, then bisect.
        const double w0 = wait_[h];
        double lo = w0, hi = w0, step = 1;
        if (excess(w0) > 0) {
          do lo = hi, hi = w0 + step, step *= 2; while (excess(hi) > 0);
        } else {
          do hi = lo, lo = std::max(0.0, w0 - step), step *= 2; while (lo > 0 && excess(lo) <= 0);
        }
        while (hi - lo > kTolerancePs) {
          const double mid = 0.5 * (lo + hi);
          (excess(mid) > 0 ? lo : hi) = mid;
        }
        next = 0.5 * (lo + hi);
      }
      moved = std::max(moved, std::abs(next - wait_[h]));
      wait_[h] = next;
    }
    const std::vector<double> before = upi_;
    update_upi();
    for (unsigned i = 0; i < upi_.size(); ++i) moved = std::max(moved, std::abs(upi_[i] - before[i]));
    if (moved < kTolerancePs) break;
  }
}

double MemoryTraffic::wait_ps(unsigned node) {
  if (stale_) solve();
  return wait_.at(node);
}

double MemoryTraffic::miss_ps(unsigned cpu_node, unsigned home) {
  if (stale_) solve();
  return miss_at(cpu_node, home, wait_.at(home));
}

double MemoryTraffic::store_ps(unsigned id) {
  if (stale_) solve();
  const Loop& l = loops_.at(id);
  return store_at(l, l.node, wait_[l.node]);
}

double MemoryTraffic::clear_bytes_per_s(unsigned cpu_node, unsigned page_node, double lines_in_flight) {
  return lines_in_flight * kLineBytes * kPsPerS / miss_ps(cpu_node, page_node);
}

MemoryTraffic::NodeLoad MemoryTraffic::node_load(unsigned node) {
  if (stale_) solve();
  NodeLoad n;
  build_home_terms(node);
  const TxnRates r = home_rates(wait_.at(node), &n.directory_writes_per_s);
  n.utilisation = ctl_.utilisation(r);
  for (double x : r) n.transactions_per_s += x;
  return n;
}

}  // namespace pagesim::vt
