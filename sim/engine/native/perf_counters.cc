#include "pagesim/engine/native/perf_counters.h"

#include <fmt/format.h>
#include <linux/perf_event.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace pagesim {

namespace {
struct EventDesc {
  const char* name;
  uint32_t type;
  uint64_t config;
};

constexpr uint64_t cache_event(uint64_t cache, uint64_t op, uint64_t result) { return cache | (op << 8) | (result << 16); }

constexpr EventDesc kEventDescs[] = {
    {"cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES},
    {"instructions", PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS},
    {"l1d_read_misses", PERF_TYPE_HW_CACHE, cache_event(PERF_COUNT_HW_CACHE_L1D, PERF_COUNT_HW_CACHE_OP_READ, PERF_COUNT_HW_CACHE_RESULT_MISS)},
    {"llc_misses", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_MISSES},
    {"dtlb_misses", PERF_TYPE_HW_CACHE, cache_event(PERF_COUNT_HW_CACHE_DTLB, PERF_COUNT_HW_CACHE_OP_READ, PERF_COUNT_HW_CACHE_RESULT_MISS)},
};

int open_event(const EventDesc& d) {
  perf_event_attr attr;
  std::memset(&attr, 0, sizeof(attr));
  attr.size = sizeof(attr);
  attr.type = d.type;
  attr.config = d.config;
  attr.disabled = 1;
  attr.exclude_kernel = 1;
  attr.exclude_hv = 1;
  return static_cast<int>(syscall(SYS_perf_event_open, &attr, 0 /*this thread*/, -1, -1, 0));
}
}  // namespace

HwCounters::HwCounters() {
  for (int i = 0; i < kEvents; ++i) {
    fds_[i] = open_event(kEventDescs[i]);
    if (fds_[i] < 0 && i == 0) {
      reason_ = fmt::format("perf_event_open({}) failed: {}{}", kEventDescs[i].name, std::strerror(errno),
                            errno == ENOENT || errno == EOPNOTSUPP ? " (no hardware PMU on this host)" : "");
      return;
    }
  }
  available_ = true;
}

HwCounters::~HwCounters() {
  for (int fd : fds_)
    if (fd >= 0) close(fd);
}

void HwCounters::start() {
  for (int fd : fds_)
    if (fd >= 0) ioctl(fd, PERF_EVENT_IOC_RESET, 0), ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
}

void HwCounters::stop() {
  for (int fd : fds_)
    if (fd >= 0) ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
}

std::map<std::string, uint64_t> HwCounters::read() const {
  std::map<std::string, uint64_t> out;
  for (int i = 0; i < kEvents; ++i) {
    uint64_t v = 0;
    if (fds_[i] >= 0 && ::read(fds_[i], &v, sizeof(v)) == sizeof(v)) out[kEventDescs[i].name] = v;
  }
  return out;
}

}  // namespace pagesim
