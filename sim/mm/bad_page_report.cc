// A bad_page() report as the kernel log shows it: bad_page()'s BUG line, dump_page()'s lines
// (mm/debug.c __dump_page of v5.17, its hex dump of the struct page included) and the reason.
// Struct-page addresses print as %p does: a 32-bit hash of the address (ptr_to_id; splitmix64
// here, siphash there), never the address.
#include <fmt/format.h>

#include <array>
#include <cstring>
#include <string_view>

#include "pagesim/exec/line.h"
#include "pagesim/mm/machine.h"
#include "pagesim/rng.h"

namespace pagesim::mm {

namespace {

BadPageReport::Fields fields_of(const Machine& m, const Page* p) {
  return {m.page_to_pfn(p), page_flags(p), page_ref_count(p), READ_ONCE(p->_mapcount), page_mapping(p), p->index, p->memcg_data};
}

// x86-64's direct map base: where the kernel's zone and pcp list heads live. The model's heads
// are host addresses, so a link to one prints as this base.
constexpr uint64_t PAGE_OFFSET = 0xffff888000000000ull;

// The page's words with host addresses made the kernel's: a link into the memmap (lru, or a
// tail's compound_head with its low bit) becomes the vmemmap address of the same byte.
BadPageReport::Words raw_words(const Machine& m, const Page* p) {
  BadPageReport::Words w;
  std::memcpy(w.data(), static_cast<const void*>(p), sizeof(Page));
  const auto base = reinterpret_cast<uintptr_t>(m.pfn_to_page(0));
  const uintptr_t end = base + m.memmap().nr_pages() * sizeof(Page);
  const auto kernel_address = [&](uint64_t v) {
    const uint64_t a = v & ~uint64_t{1};
    return a >= base && a < end ? VMEMMAP_BASE + (a - base) + (v & 1) : PAGE_OFFSET;
  };
  if (w[1] & 1) {
    w[1] = kernel_address(w[1]);  // a tail: compound_head | 1; the next word holds H+1/H+2 fields
  } else if (w[1] || w[2]) {
    for (unsigned i : {1u, 2u}) w[i] = w[i] ? kernel_address(w[i]) : 0;  // lru.next, lru.prev
  }
  return w;
}

// print_hex_dump(prefix, DUMP_PREFIX_NONE, 32, sizeof(unsigned long), page, sizeof(struct
// page)): 32 bytes a line, each word %016lx.
void hex_dump(std::vector<std::string>& lines, std::string_view prefix, const BadPageReport::Words& w) {
  for (size_t i = 0; i < w.size(); i += 4)
    lines.push_back(fmt::format("{}{:016x} {:016x} {:016x} {:016x}", prefix, w[i], w[i + 1], w[i + 2], w[i + 3]));
}

// %p of a struct page: the hash of its vmemmap address, zero-padded to 16 digits on 64-bit.
std::string hashed(uint64_t address) {
  uint64_t x = address;
  return fmt::format("{:016x}", splitmix64(x) & 0xffffffffu);
}
std::string page_ptr(pfn_t pfn) { return hashed(VMEMMAP_BASE + pfn * sizeof(Page)); }

// pageflag_names (include/trace/events/mmflags.h __def_pageflag_names), in its order.
constexpr std::array<std::pair<unsigned, std::string_view>, NR_PAGEFLAGS> kFlagNames{{
    {PG_locked, "locked"},         {PG_waiters, "waiters"},     {PG_error, "error"},
    {PG_referenced, "referenced"}, {PG_uptodate, "uptodate"},   {PG_dirty, "dirty"},
    {PG_lru, "lru"},               {PG_active, "active"},       {PG_workingset, "workingset"},
    {PG_slab, "slab"},             {PG_owner_priv_1, "owner_priv_1"}, {PG_arch_1, "arch_1"},
    {PG_reserved, "reserved"},     {PG_private, "private"},     {PG_private_2, "private_2"},
    {PG_writeback, "writeback"},   {PG_head, "head"},           {PG_mappedtodisk, "mappedtodisk"},
    {PG_reclaim, "reclaim"},       {PG_swapbacked, "swapbacked"}, {PG_unevictable, "unevictable"},
    {PG_mlocked, "mlocked"},       {PG_uncached, "uncached"},   {PG_hwpoison, "hwpoison"},
    {PG_young, "young"},           {PG_idle, "idle"},
}};

// %pGp (lib/vsprintf.c format_page_flags): the value, then in parentheses the set flags' names
// and the node and zone fields. The model keeps no last_cpupid, so that field is left out.
std::string page_flags_text(uint64_t flags) {
  std::string names;
  for (const auto& [b, name] : kFlagNames)
    if (flags & bit(b)) names += fmt::format("{}{}", names.empty() ? "" : "|", name);
  return fmt::format("{:#x}({}{}node={}|zone={})", flags, names, names.empty() ? "" : "|", (flags >> NODES_PGSHIFT) & NODES_MASK,
                     (flags >> ZONES_PGSHIFT) & ZONES_MASK);
}

}  // namespace

BadPageReport BadPageReport::of(const Machine& m, const Page* page, std::string reason, unsigned cpu) {
  BadPageReport r;
  r.pfn = m.page_to_pfn(page);
  r.reason = std::move(reason);
  r.cpu = cpu;
  r.page = fields_of(m, page);
  const Page* head = PageTail(page) ? reinterpret_cast<const Page*>(READ_ONCE(page->tail.compound_head) & ~uintptr_t{1}) : page;
  r.head = fields_of(m, head);
  r.raw = raw_words(m, page);
  r.head_raw = raw_words(m, head);
  r.compound = PageHead(page) || PageTail(page);
  if (r.compound) {
    r.order = head[1].tail.compound_order;
    r.compound_mapcount = head[1].tail.compound_mapcount;
    r.compound_pincount = r.order > 1 ? head[2].tail.hpage_pinned_refcount : 0;
  }
  return r;
}

std::vector<std::string> BadPageReport::kernel_log() const {
  const bool anon = head.mapping & PAGE_MAPPING_ANON;
  int mapcount = page.mapcount + 1;  // page_mapcount(); __page_mapcount adds an anon THP's mapping
  if (compound && anon) mapcount += compound_mapcount + 1;
  std::vector<std::string> lines{
      fmt::format("BUG: Bad page state in process pagesim  pfn:{:05x}", pfn),
      fmt::format("page:{} refcount:{} mapcount:{} mapping:{} index:{:#x} pfn:{:#x}", page_ptr(pfn), head.refcount,
                  (head.flags & bit(PG_slab)) ? 0 : mapcount, page.mapping ? hashed(page.mapping) : std::string(16, '0'),
                  page.index, pfn)};
  if (compound && order > 1)  // hpage_pincount_available
    lines.push_back(fmt::format("head:{} order:{} compound_mapcount:{} compound_pincount:{}", page_ptr(head.pfn), order,
                                compound_mapcount + 1, compound_pincount));
  else if (compound)
    lines.push_back(fmt::format("head:{} order:{} compound_mapcount:{}", page_ptr(head.pfn), order, compound_mapcount + 1));
  if (head.memcg_data) lines.push_back(fmt::format("memcg:{:x}", head.memcg_data));
  lines.push_back(fmt::format("{}flags: {}", anon ? "anon " : "", page_flags_text(head.flags)));
  hex_dump(lines, "raw: ", raw);
  if (head.pfn != pfn) hex_dump(lines, "head: ", head_raw);
  lines.push_back("page dumped because: " + reason);
  return lines;
}

}  // namespace pagesim::mm
