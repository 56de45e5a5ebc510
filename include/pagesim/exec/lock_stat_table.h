// LockStatTable: one CPU's lock_stat records, a record per lock it has taken.
//
// A record (LockStatCpu) is about 16 KiB, mostly its per-site counts, and a machine has
// kNrLockIds possible locks; a CPU takes a handful of them (its zones' locks and
// hugetlb_lock). A dense table per CPU was 4 MiB to zero at every task's creation and to
// merge after every run, 512 MiB for 128 tasks. Written only by its CPU; read after the run.
#pragma once

#include <array>
#include <cstdint>
#include <deque>

#include "pagesim/exec/exec.h"
#include "pagesim/exec/lock_stat.h"

namespace pagesim {

class LockStatTable {
 public:
  // Lock `id`'s record, made on first use. References stay valid as records are added.
  LockStatCpu& operator[](uint32_t id) {
    uint16_t& slot = slot_[id];
    if (!slot) {
      records_.push_back({id, LockStatCpu{}});
      slot = static_cast<uint16_t>(records_.size());
    }
    return records_[slot - 1].stat;
  }
  // Lock `id`'s record, or an empty one if the CPU never took that lock.
  const LockStatCpu& operator[](uint32_t id) const {
    static const LockStatCpu kNone{};
    return slot_[id] ? records_[slot_[id] - 1].stat : kNone;
  }

  struct Record {
    uint32_t id;
    LockStatCpu stat;
  };
  // The records, in the order the CPU first took their locks.
  auto begin() const { return records_.begin(); }
  auto end() const { return records_.end(); }

  void clear() {
    records_.clear();
    slot_.fill(0);
  }

 private:
  static_assert(kNrLockIds < UINT16_MAX);
  std::array<uint16_t, kNrLockIds> slot_{};  // 1 + the lock's index in records_, 0 for none
  std::deque<Record> records_;
};

}  // namespace pagesim
