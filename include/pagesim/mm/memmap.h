// Memmap: the vmemmap array of struct pages, one reservation for the whole machine.
//
// The array is reserved with MAP_NORESERVE and backed, in order of preference, by hugetlb pages
// (when enough are reserved on the host), transparent huge pages (madvise) or 4 KiB pages. It is
// indexed by pfn, as SPARSEMEM_VMEMMAP's pfn_to_page is. Struct pages are constructed one
// 128 MiB section at a time (one section's memmap is one 2 MiB huge page), on first use, so a
// large simulated machine costs host memory only for the sections it touches.
//
// Thread safety: init_section() must be serialised by the caller (zone->lock); pages of a
// section must not be used before init_section() returns for it. Memmaps may be created and
// destroyed on several host threads at once (run --jobs).
//
// Reuse: a destroyed memmap's mapping is kept for the next Memmap of the same size in the
// process (at most kPooled of them), so that a run after the first does not pay the host
// kernel's zeroing of gigabytes at first touch (11-16% of a robot-box run on the development
// VM). A reused mapping's struct pages are zeroed one by one as their section is constructed,
// as the kernel's __init_single_page does (mm_zero_struct_page); a fresh one is zero already. Either
// way a section starts from the same bytes, so results do not depend on reuse.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "pagesim/mm/page.h"
#include "pagesim/mm/types.h"

namespace pagesim::mm {

enum class MemmapBacking : uint8_t { hugetlb, thp, small_pages };
std::string_view memmap_backing_name(MemmapBacking b);

struct HostMemory {
  uint64_t mem_available_bytes = 0;  // /proc/meminfo MemAvailable
  uint64_t hugepages_free = 0;       // HugePages_Free
  uint64_t hugepage_size = 2u << 20;
  bool thp_available = false;        // transparent_hugepage/enabled is always or madvise
  static HostMemory probe();
};

class Memmap {
 public:
  // Reserves the memmap for pfns [0, nr_pages). Throws InputError when the reservation fails.
  Memmap(uint64_t nr_pages, const HostMemory& host, bool prefer_hugetlb = true);
  // Throws InputError, with the needed and available figures, when a memmap of nr_pages pages
  // (64 bytes each) is larger than the host's available memory. The caller checks it when
  // every section is built at boot (deferred_struct_page_init off); otherwise the memmap
  // grows with the sections the run uses.
  static void check_fits(uint64_t nr_pages, const HostMemory& host);
  ~Memmap();
  Memmap(const Memmap&) = delete;
  Memmap& operator=(const Memmap&) = delete;

  Page* pfn_to_page(pfn_t pfn) const { return base_ + pfn; }
  pfn_t page_to_pfn(const Page* p) const { return static_cast<pfn_t>(p - base_); }
  uint64_t nr_pages() const { return nr_pages_; }
  bool contains(const Page* p) const { return p >= base_ && p < base_ + nr_pages_; }

  bool section_initialised(uint64_t section) const { return initialised_[section] != 0; }
  // Constructs the struct pages of one section; `init` is called for each pfn in it.
  template <class F>
  void init_section(uint64_t section, F&& init) {
    const pfn_t start = section * PAGES_PER_SECTION;
    const pfn_t end = std::min<pfn_t>(start + PAGES_PER_SECTION, nr_pages_);
    // A reused mapping's page is zeroed just before its fields are set (mm_zero_struct_page in
    // __init_single_page), not in a pass of its own: seed 004's lesson, measured here by
    // memmap_init (docs/seeds.md, 004): the line the memset brings in takes the field stores.
    for (pfn_t pfn = start; pfn < end; ++pfn) {
      if (reused_) std::memset(static_cast<void*>(base_ + pfn), 0, sizeof(Page));
      init(new (base_ + pfn) Page(), pfn);
    }
    initialised_[section] = 1;
    sections_initialised_.fetch_add(1, std::memory_order_relaxed);
  }
  uint64_t sections_initialised() const { return sections_initialised_.load(std::memory_order_relaxed); }
  uint64_t resident_bytes() const { return sections_initialised() * PAGES_PER_SECTION * sizeof(Page); }

  MemmapBacking backing() const { return backing_; }
  bool reused() const { return reused_; }  // the mapping came from an earlier Memmap
  static constexpr unsigned kPooled = 2;
  const std::string& backing_note() const { return backing_note_; }
  uint64_t reserved_bytes() const { return bytes_; }

 private:
  Page* base_ = nullptr;
  uint64_t nr_pages_ = 0;
  size_t bytes_ = 0;
  MemmapBacking backing_ = MemmapBacking::small_pages;
  std::string backing_note_;
  bool prefer_hugetlb_ = true;
  bool reused_ = false;
  std::vector<uint8_t> initialised_;
  std::atomic<uint64_t> sections_initialised_{0};  // zones grow under different locks
};

}  // namespace pagesim::mm
