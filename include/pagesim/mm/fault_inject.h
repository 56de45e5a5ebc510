// Fault injection: corrupt struct pages of free blocks, as a stray write or a bit flip would,
// so that check_new_page(s), bad_page() and the leak accounting have something to find.
// Call only at quiescent points (no CPU inside the allocator).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "pagesim/mm/machine.h"
#include "pagesim/rng.h"

namespace pagesim::mm {

enum class FaultField : uint8_t { refcount, mapcount, mapping, flags, memcg };
enum class FaultWhere : uint8_t { buddy, pcp };

struct FaultSpec {
  FaultField field = FaultField::refcount;
  FaultWhere where = FaultWhere::buddy;
  // Which struct page of the block: 0 = head, k > 0 = tail k (skipped for blocks smaller than
  // that), -1 = a random tail (a random page for order 0).
  int subpage = 0;
  unsigned min_order = 0;  // only blocks of at least this order
};

std::optional<FaultField> parse_fault_field(std::string_view s);
std::string_view fault_field_name(FaultField f);

// Corrupts one randomly chosen free block that matches. Returns the corrupted pfn, or nullopt
// when no block matches.
std::optional<pfn_t> inject_fault(Machine& m, const FaultSpec& spec, Rng& rng);

// Writes the corruption itself. Keeps a buddy head's PageBuddy type intact (a flipped low bit of
// _mapcount), so that the free lists stay walkable until the block is allocated and checked.
void corrupt_page(Page* p, FaultField field);

}  // namespace pagesim::mm
