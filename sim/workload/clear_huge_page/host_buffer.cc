// HostHugeBuffer: hugetlb (reserved through sysfs if need be), THP, then 4 KiB pages.
#include "host_buffer.h"

#include <fmt/format.h>
#include <sys/mman.h>

#include <cerrno>
#include <cstring>
#include <fstream>

#include "pagesim/error.h"

#ifndef MAP_HUGE_SHIFT
#define MAP_HUGE_SHIFT 26
#endif

namespace pagesim::workload {

namespace {

uint64_t read_count(const std::string& path) {
  std::ifstream f(path);
  uint64_t v = 0;
  return f >> v ? v : 0;
}

bool write_count(const std::string& path, uint64_t v) {
  std::ofstream f(path);
  return static_cast<bool>(f << v << "\n") && static_cast<bool>(f.flush());
}

}  // namespace

HostHugeBuffer::HostHugeBuffer(uint64_t bytes, uint64_t huge_bytes, uint64_t shrink_unit)
    : bytes_((bytes + huge_bytes - 1) / huge_bytes * huge_bytes), huge_bytes_(huge_bytes), shrink_unit_(shrink_unit) {
  if (map_hugetlb()) return;
  // THP: an anonymous mapping aligned to 2 MiB, advised.
  constexpr uint64_t kThp = 2u << 20;
  mapped_ = bytes_ + kThp;
  map_ = ::mmap(nullptr, mapped_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (map_ == MAP_FAILED) {
    map_ = nullptr;
    throw InputError(fmt::format("clear_huge_page: cannot map {} MiB of host memory: {}", bytes_ >> 20, std::strerror(errno)));
  }
  data_ = reinterpret_cast<char*>((reinterpret_cast<uintptr_t>(map_) + kThp - 1) / kThp * kThp);
  const bool thp = ::madvise(data_, bytes_, MADV_HUGEPAGE) == 0;
  backing_ += thp ? "thp (madvise)" : "4k pages (no hugetlb pages, no THP)";
}

// hugetlb pages of huge_bytes_: the free ones, else as many more as the kernel gives when
// nr_hugepages is writable (root).
bool HostHugeBuffer::map_hugetlb() {
  const uint64_t kb = huge_bytes_ >> 10;
  uint64_t need = bytes_ / huge_bytes_;
  const std::string dir = fmt::format("/sys/kernel/mm/hugepages/hugepages-{}kB/", kb);
  const uint64_t free = read_count(dir + "free_hugepages");
  if (free < need) {
    const uint64_t nr = read_count(dir + "nr_hugepages");
    if (write_count(dir + "nr_hugepages", nr + (need - free))) {
      sysfs_ = dir + "nr_hugepages", nr_before_ = nr;
    }
  }
  const int size_flag = static_cast<int>(__builtin_ctzll(huge_bytes_)) << MAP_HUGE_SHIFT;
  const uint64_t got = read_count(dir + "free_hugepages") * huge_bytes_;
  if (shrink_unit_ && got < bytes_ && got >= shrink_unit_)
    bytes_ = got / shrink_unit_ * shrink_unit_, need = bytes_ / huge_bytes_;  // as many as the kernel gave
  if (got >= bytes_) {
    map_ = ::mmap(nullptr, bytes_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_HUGETLB | size_flag, -1, 0);
    if (map_ != MAP_FAILED) {
      mapped_ = bytes_;
      data_ = static_cast<char*>(map_);
      backing_ = fmt::format("hugetlb: {} pages of {} MiB{}", need, huge_bytes_ >> 20,
                             sysfs_.empty() ? "" : ", reserved for this run and given back");
      return true;
    }
    map_ = nullptr;
  }
  backing_ = fmt::format("no {} MiB hugetlb pages to be had ({} free, {} needed{}); ", huge_bytes_ >> 20,
                         read_count(dir + "free_hugepages"), need, sysfs_.empty() ? ", nr_hugepages not writable" : "");
  if (!sysfs_.empty()) write_count(sysfs_, nr_before_), sysfs_.clear();
  return false;
}

HostHugeBuffer::~HostHugeBuffer() {
  if (map_) ::munmap(map_, mapped_);
  if (!sysfs_.empty()) write_count(sysfs_, nr_before_);  // give back what this buffer reserved
}

}  // namespace pagesim::workload
