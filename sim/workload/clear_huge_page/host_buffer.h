// A host buffer of huge pages for the clearing measurements: hugetlb pages of the asked size
// (2 MiB or 1 GiB), reserving them through sysfs when the process may (root) and giving them
// back afterwards; else transparent huge pages (madvise); else 4 KiB pages. `backing()` says
// which, as the run's note.
#pragma once

#include <cstdint>
#include <string>

namespace pagesim::workload {

class HostHugeBuffer {
 public:
  // Throws InputError naming the size when no backing can map `bytes`. With `shrink_unit`, a
  // hugetlb pool that gives fewer pages than asked is taken as it is, down to whole multiples
  // of shrink_unit bytes (at least one), rather than falling back to THP.
  HostHugeBuffer(uint64_t bytes, uint64_t huge_bytes, uint64_t shrink_unit = 0);
  ~HostHugeBuffer();
  HostHugeBuffer(const HostHugeBuffer&) = delete;
  HostHugeBuffer& operator=(const HostHugeBuffer&) = delete;

  char* data() const { return data_; }
  uint64_t bytes() const { return bytes_; }
  const std::string& backing() const { return backing_; }

 private:
  bool map_hugetlb();

  uint64_t bytes_, huge_bytes_, shrink_unit_;
  void* map_ = nullptr;
  uint64_t mapped_ = 0;
  char* data_ = nullptr;
  std::string backing_;
  std::string sysfs_;          // hugepages-<kB>kB/nr_hugepages, when this buffer raised it
  uint64_t nr_before_ = 0;     // its value before, written back at the end
};

}  // namespace pagesim::workload
