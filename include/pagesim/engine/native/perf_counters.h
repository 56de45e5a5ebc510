// Hardware counters through perf_event_open(2), per thread: cycles, instructions, L1D read
// misses, LLC misses, dTLB misses. On a host without a PMU (as this project's CI machine) the
// counters are "unavailable" with the reason the kernel gave, and nothing else changes.
#pragma once

#include <cstdint>
#include <map>
#include <string>

namespace pagesim {

class HwCounters {
 public:
  // Opens the counters for the calling thread, disabled.
  HwCounters();
  ~HwCounters();
  HwCounters(const HwCounters&) = delete;
  HwCounters& operator=(const HwCounters&) = delete;

  bool available() const { return available_; }
  const std::string& reason() const { return reason_; }
  void start();
  void stop();
  // Counter name -> value accumulated between start() and stop().
  std::map<std::string, uint64_t> read() const;

 private:
  static constexpr int kEvents = 5;
  int fds_[kEvents] = {-1, -1, -1, -1, -1};
  bool available_ = false;
  std::string reason_;
};

}  // namespace pagesim
