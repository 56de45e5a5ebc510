#include "pagesim/mm/fault_inject.h"

namespace pagesim::mm {

std::optional<FaultField> parse_fault_field(std::string_view s) {
  if (s == "refcount") return FaultField::refcount;
  if (s == "mapcount") return FaultField::mapcount;
  if (s == "mapping") return FaultField::mapping;
  if (s == "flags") return FaultField::flags;
  if (s == "memcg") return FaultField::memcg;
  return std::nullopt;
}

std::string_view fault_field_name(FaultField f) {
  switch (f) {
    case FaultField::refcount: return "refcount";
    case FaultField::mapcount: return "mapcount";
    case FaultField::mapping: return "mapping";
    case FaultField::flags: return "flags";
    case FaultField::memcg: return "memcg";
  }
  return "?";
}

void corrupt_page(Page* p, FaultField field) {
  switch (field) {
    case FaultField::refcount: set_page_count(p, page_ref_count(p) + 1); break;
    case FaultField::mapcount: WRITE_ONCE(p->page_type, page_type(p) & ~1u); break;
    case FaultField::mapping: set_page_mapping(p, 0xdead000ull); break;
    case FaultField::flags: __set_page_flag(p, PG_active); break;
    case FaultField::memcg: p->memcg_data = 0x1000; break;
  }
}

namespace {
// Picks one of the first few blocks of a list: cheap, and still spread by the RNG.
Page* pick(PageList& list, Rng& rng) {
  if (list.empty()) return nullptr;
  uint64_t k = rng.below(16);
  for (Page& p : list)
    if (k-- == 0) return &p;
  return &list.front();
}
}  // namespace

std::optional<pfn_t> inject_fault(Machine& m, const FaultSpec& spec, Rng& rng) {
  const auto& zones = m.populated_zones();
  struct Candidate { PageList* list; unsigned order; };
  std::vector<Candidate> candidates;
  for (Zone* z : zones) {
    if (spec.where == FaultWhere::buddy) {
      for (unsigned o = spec.min_order; o < MAX_ORDER; ++o)
        for (unsigned mt = 0; mt < MIGRATE_TYPES; ++mt)
          if (!z->free_area[o].free_list[mt].empty()) candidates.push_back({&z->free_area[o].free_list[mt], o});
    } else {
      for (unsigned cpu = 0; cpu < m.nr_cpus(); ++cpu)
        for (unsigned pindex = 0; pindex < NR_PCP_LISTS; ++pindex) {
          const unsigned order = m.config().high_order_pcp
                                     ? (pindex / MIGRATE_PCPTYPES > PAGE_ALLOC_COSTLY_ORDER ? pageblock_order : pindex / MIGRATE_PCPTYPES)
                                     : 0;
          if (order >= spec.min_order && !z->pcp(cpu).lists[pindex].empty())
            candidates.push_back({&z->pcp(cpu).lists[pindex], order});
        }
    }
  }
  if (candidates.empty()) return std::nullopt;
  const Candidate& c = candidates[rng.below(candidates.size())];
  Page* head = pick(*c.list, rng);
  const uint64_t nr = uint64_t{1} << c.order;
  uint64_t sub = 0;
  if (spec.subpage < 0) sub = nr > 1 ? 1 + rng.below(nr - 1) : 0;
  else if (static_cast<uint64_t>(spec.subpage) < nr) sub = static_cast<uint64_t>(spec.subpage);
  else return std::nullopt;
  corrupt_page(head + sub, spec.field);
  return m.page_to_pfn(head + sub);
}

}  // namespace pagesim::mm
