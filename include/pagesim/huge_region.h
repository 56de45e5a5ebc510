// HugeRegion: anonymous host memory, 2 MiB aligned and advised MADV_HUGEPAGE.
//
// For large arrays read at random (the cache model's sets, calibrate's chase buffer, usemem's
// data). With transparent huge pages (enabled = always or madvise) one TLB entry covers 2 MiB,
// so a random lookup costs its memory access and not a page walk as well. Without THP the
// advice fails silently and the region is plain 4 KiB memory; nothing else changes.
//
// Contract: the region is zero-filled when created (fresh anonymous memory). Move-only.
// Throws InputError (a size beyond this host) naming `what` and the size if it cannot be mapped.
#pragma once

#include <sys/mman.h>

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <string>
#include <utility>

#include "pagesim/error.h"

namespace pagesim {

class HugeRegion {
 public:
  static constexpr uint64_t kHugePage = 2u << 20;

  HugeRegion() = default;
  // `noreserve`: MAP_NORESERVE, for regions that may never be touched in full.
  HugeRegion(uint64_t bytes, const char* what, bool noreserve = false)
      : bytes_(bytes), mapped_(round_up(bytes) + kHugePage) {
    map_ = ::mmap(nullptr, mapped_, PROT_READ | PROT_WRITE,
                  MAP_PRIVATE | MAP_ANONYMOUS | (noreserve ? MAP_NORESERVE : 0), -1, 0);
    if (map_ == MAP_FAILED) {
      map_ = nullptr;
      throw InputError(std::string(what) + ": cannot map " + std::to_string(mapped_ >> 20) +
                               " MiB of host memory: " + std::strerror(errno));
    }
    const uintptr_t a = reinterpret_cast<uintptr_t>(map_);
    data_ = reinterpret_cast<char*>((a + kHugePage - 1) / kHugePage * kHugePage);
    (void)::madvise(data_, round_up(bytes), MADV_HUGEPAGE);  // best effort, see above
  }
  ~HugeRegion() {
    if (map_) ::munmap(map_, mapped_);
  }
  HugeRegion(HugeRegion&& o) noexcept { swap(o); }
  HugeRegion& operator=(HugeRegion&& o) noexcept {
    HugeRegion(std::move(o)).swap(*this);
    return *this;
  }

  char* data() const { return data_; }
  uint64_t bytes() const { return bytes_; }

 private:
  static uint64_t round_up(uint64_t b) { return (b + kHugePage - 1) / kHugePage * kHugePage; }
  void swap(HugeRegion& o) noexcept {
    std::swap(bytes_, o.bytes_);
    std::swap(mapped_, o.mapped_);
    std::swap(map_, o.map_);
    std::swap(data_, o.data_);
  }

  uint64_t bytes_ = 0, mapped_ = 0;
  void* map_ = nullptr;
  char* data_ = nullptr;
};

}  // namespace pagesim
