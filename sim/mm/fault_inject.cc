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
struct Candidate {
  Zone* zone;
  PageList* list;
  unsigned order;
  unsigned mt;  // a buddy list's migratetype; MIGRATE_TYPES for a pcp list
};

// Picks one of the first few blocks of a list: cheap, and still spread by the RNG.
Page* pick(Machine& m, const Candidate& c, Rng& rng) {
  uint64_t k = rng.below(16);
  uint64_t linked = 0;
  for (auto it = c.list->begin(); it != c.list->end() && linked <= k; ++it) linked++;
  if (linked <= k) m.populate_free_list(*c.zone, c.order, c.mt);  // the k-th may be unpopulated
  for (Page& p : *c.list)
    if (k-- == 0) return &p;
  return &c.list->front();
}
}  // namespace

std::optional<pfn_t> inject_fault(Machine& m, const FaultSpec& spec, Rng& rng) {
  const auto& zones = m.populated_zones();
  std::vector<Candidate> candidates;
  for (Zone* z : zones) {
    if (spec.where == FaultWhere::buddy) {
      for (unsigned o = spec.min_order; o < MAX_ORDER; ++o)
        for (unsigned mt = 0; mt < MIGRATE_TYPES; ++mt)
          if (!z->free_area[o].list_empty(mt)) candidates.push_back({z, &z->free_area[o].free_list[mt], o, mt});
    } else {
      for (unsigned cpu = 0; cpu < m.nr_cpus(); ++cpu)
        for (unsigned pindex = 0; pindex < NR_PCP_LISTS; ++pindex) {
          const unsigned order = m.config().high_order_pcp
                                     ? (pindex / MIGRATE_PCPTYPES > PAGE_ALLOC_COSTLY_ORDER ? pageblock_order : pindex / MIGRATE_PCPTYPES)
                                     : 0;
          if (order >= spec.min_order && !z->pcp(cpu).lists[pindex].empty())
            candidates.push_back({z, &z->pcp(cpu).lists[pindex], order, MIGRATE_TYPES});
        }
    }
  }
  if (candidates.empty()) return std::nullopt;
  const Candidate& c = candidates[rng.below(candidates.size())];
  Page* head = pick(m, c, rng);
  const uint64_t nr = uint64_t{1} << c.order;
  uint64_t sub = 0;
  if (spec.subpage < 0) sub = nr > 1 ? 1 + rng.below(nr - 1) : 0;
  else if (static_cast<uint64_t>(spec.subpage) < nr) sub = static_cast<uint64_t>(spec.subpage);
  else return std::nullopt;
  corrupt_page(head + sub, spec.field);
  return m.page_to_pfn(head + sub);
}

}  // namespace pagesim::mm
