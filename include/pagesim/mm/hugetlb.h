// The hugetlb pool for 2 MiB pages (mm/hugetlb.c, v5.17): per-node free lists, the
// nr/free/resv/surplus counts, surplus allocation from buddy (alloc_surplus_huge_page ->
// alloc_fresh_huge_page -> an order-9 __GFP_COMP allocation), gather_surplus_pages with its
// lock drop and retake, fault-time dequeue (local node first, then the zonelist), and the
// release of surplus pages to buddy through both 512-line loops.
//
// Locking: every Hstate field is protected by hugetlb_lock, as in the kernel. Hugetlb<E>'s
// functions state whether they expect it held (as the kernel's do).
#pragma once

#include <cstdint>

#include "pagesim/mm/hstate.h"
#include "pagesim/mm/page_alloc.h"

namespace pagesim::mm {

// A memory policy (struct mempolicy): where a task's allocations may go.
enum class MpolMode : uint8_t { local, bind, preferred, interleave };
struct MemPolicy {
  MpolMode mode = MpolMode::local;
  NodeMask nodes;           // bind/interleave node set; preferred uses its lowest node
  // huge_node(): the preferred node and the allowed node mask for an allocation made on
  // `cpu_node`; `ilx` is the interleave index (the page offset in the mapping).
  unsigned preferred_node(unsigned cpu_node, uint64_t ilx) const;
  const NodeMask* nodemask() const { return mode == MpolMode::bind ? &nodes : nullptr; }
};

template <Exec E>
class Hugetlb {
 public:
  Hugetlb(Mm<E>& mm) : mm_(mm), m_(mm.machine()), ex_(mm.exec()), h_(m_.hstate()), surplus_allocated_(m_.nr_nodes()) {}

  // hugetlb_acct_memory: delta > 0 reserves (gather_surplus_pages), delta < 0 releases
  // (return_unused_surplus_pages). Returns 0 or -ENOMEM (-12). Takes hugetlb_lock.
  int hugetlb_acct_memory(long delta);
  // alloc_huge_page for a mapping that holds a reservation: dequeue under hugetlb_lock with
  // the task's policy (local node first, then the zonelist order); nullptr when none is free.
  // `fault_node` receives the node the page came from.
  Page* alloc_huge_page(const MemPolicy& pol, uint64_t ilx);
  // The last put of a huge page (free_huge_page): surplus pages go back to buddy.
  void free_huge_page(Page* page);
  // hugetlb_no_page's mapping of a new anonymous page: ClearHPageRestoreReserve (the fault
  // consumed the reservation for good) and hugepage_add_new_anon_rmap.
  void hugepage_add_new_anon_rmap(Page* page);
  // The unmap side: page_remove_rmap, then put_page (free_huge_page on the last reference).
  void unmap_and_put(Page* page);
  // Sets /proc/sys/vm/nr_overcommit_hugepages.
  void set_overcommit(unsigned long n);

  Machine& machine() { return m_; }
  // Observation: surplus pages this context (one task) allocated from buddy, by node.
  const std::vector<unsigned long>& surplus_allocated_node() const { return surplus_allocated_; }
  // An experiment beyond 5.17: apply a policy to gather_surplus_pages' buddy allocations
  // (the kernel allocates them on the local node, NUMA_NO_NODE). nullptr restores that.
  void set_surplus_policy(const MemPolicy* pol) { surplus_pol_ = pol; }

  // --- internals with kernel names ---
  int gather_surplus_pages(long delta);                       // hugetlb_lock held; drops it
  void return_unused_surplus_pages(unsigned long unused);     // hugetlb_lock held; drops it
  Page* alloc_surplus_huge_page(gfp_t gfp, int nid, const NodeMask* nmask, bool zero_ref);
  Page* alloc_fresh_huge_page(gfp_t gfp, int nid, const NodeMask* nmask);
  void prep_new_huge_page(Page* page, unsigned nid);
  void enqueue_huge_page(Page* page);                         // hugetlb_lock held
  Page* dequeue_huge_page_node_exact(unsigned nid);           // hugetlb_lock held
  void remove_hugetlb_page(Page* page, bool adjust_surplus);  // hugetlb_lock held
  Page* remove_pool_huge_page(bool acct_surplus);             // hugetlb_lock held
  void update_and_free_page(Page* page);                      // no lock held
  void __update_and_free_page(Page* page);

 private:
  void lock(Site s);
  void unlock(Site s);
  Line pl(const Page* p) const { return m_.page_line(p); }

  Mm<E>& mm_;
  Machine& m_;
  E& ex_;
  Hstate& h_;
  std::vector<unsigned long> surplus_allocated_;  // per node
  IrqFlags irq_{};
  const MemPolicy* surplus_pol_ = nullptr;
};

// Pool invariants: counts agree with the lists (quiescent points only). Appends violations.
void check_hugetlb_invariants(const Machine& m, std::vector<std::string>& violations, uint64_t& checks);

}  // namespace pagesim::mm
