// The memmap reservation: hugetlb, then THP (madvise), then 4 KiB pages.
#include "pagesim/mm/memmap.h"

#include <fmt/format.h>
#include <sys/mman.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <mutex>
#include <sstream>

#include "pagesim/error.h"

namespace pagesim::mm {

HostMemory HostMemory::probe() {
  HostMemory h;
  std::ifstream meminfo("/proc/meminfo");
  std::string key;
  uint64_t value;
  std::string unit;
  std::string line;
  while (std::getline(meminfo, line)) {
    std::istringstream ls(line);
    ls >> key >> value;
    if (key == "MemAvailable:") h.mem_available_bytes = value << 10;
    if (key == "HugePages_Free:") h.hugepages_free = value;
    if (key == "Hugepagesize:") h.hugepage_size = value << 10;
  }
  std::ifstream thp("/sys/kernel/mm/transparent_hugepage/enabled");
  std::string mode;
  std::getline(thp, mode);
  h.thp_available = mode.find("[always]") != std::string::npos || mode.find("[madvise]") != std::string::npos;
  return h;
}

namespace {

// Mappings of destroyed memmaps, newest last (see "Reuse" in memmap.h).
struct Pooled {
  void* base;
  size_t bytes;
  bool prefer_hugetlb;
  MemmapBacking backing;
  std::string note;
};
std::mutex pool_mutex;
std::vector<Pooled>& pool() {
  static std::vector<Pooled> p;  // guarded by pool_mutex
  return p;
}

}  // namespace

void Memmap::check_fits(uint64_t nr_pages, const HostMemory& host) {
  const uint64_t bytes = nr_pages * sizeof(Page);
  if (host.mem_available_bytes && bytes > host.mem_available_bytes)
    throw InputError(fmt::format(
        "machine: the memmap needs {} MiB of host memory for {} simulated pages, but only {} MiB is available",
        bytes >> 20, nr_pages, host.mem_available_bytes >> 20));
}

Memmap::Memmap(uint64_t nr_pages, const HostMemory& host, bool prefer_hugetlb)
    : nr_pages_(nr_pages), prefer_hugetlb_(prefer_hugetlb) {
  constexpr size_t kHuge = 2u << 20;
  bytes_ = (nr_pages * sizeof(Page) + kHuge - 1) / kHuge * kHuge;
  initialised_.assign((nr_pages + PAGES_PER_SECTION - 1) / PAGES_PER_SECTION, 0);
  {
    std::lock_guard<std::mutex> g(pool_mutex);
    auto& p = pool();
    for (auto it = p.rbegin(); it != p.rend(); ++it)
      if (it->bytes == bytes_ && it->prefer_hugetlb == prefer_hugetlb) {
        base_ = static_cast<Page*>(it->base);
        backing_ = it->backing;
        backing_note_ = std::move(it->note);
        reused_ = true;
        p.erase(std::next(it).base());
        return;
      }
  }
  void* p = MAP_FAILED;
  // hugetlb: without MAP_NORESERVE the mapping reserves its huge pages now, so it either fits
  // or fails here (with MAP_NORESERVE a shortfall would be a SIGBUS later).
  if (prefer_hugetlb && host.hugepages_free * host.hugepage_size >= bytes_) {
    p = mmap(nullptr, bytes_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_HUGETLB, -1, 0);
    if (p != MAP_FAILED) {
      backing_ = MemmapBacking::hugetlb;
      backing_note_ = fmt::format("hugetlb: {} reserved 2 MiB pages", bytes_ / kHuge);
    }
  }
  if (p == MAP_FAILED) {
    p = mmap(nullptr, bytes_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (p == MAP_FAILED)
      throw InputError(fmt::format("machine: cannot reserve {} MiB for the memmap: {}", bytes_ >> 20, std::strerror(errno)));
    if (host.thp_available && madvise(p, bytes_, MADV_HUGEPAGE) == 0) {
      backing_ = MemmapBacking::thp;
      backing_note_ = prefer_hugetlb ? "thp (madvise): no hugetlb pages reserved on the host"
                                     : "thp (madvise): hugetlb not requested";
    } else {
      backing_ = MemmapBacking::small_pages;
      backing_note_ = "4k: neither hugetlb pages nor THP available";
    }
  }
  base_ = static_cast<Page*>(p);
}

Memmap::~Memmap() {
  if (!base_) return;
  std::lock_guard<std::mutex> g(pool_mutex);
  auto& p = pool();
  p.push_back({base_, bytes_, prefer_hugetlb_, backing_, std::move(backing_note_)});
  if (p.size() > kPooled) {  // the oldest goes back to the host
    munmap(p.front().base, p.front().bytes);
    p.erase(p.begin());
  }
}

}  // namespace pagesim::mm
