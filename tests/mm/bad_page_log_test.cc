// bad_page()'s report as the kernel log prints it (v5.17 bad_page(), __dump_page()): checked line
// by line against patterns that real kernel log lines match.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <regex>

#include "pagesim/mm/fault_inject.h"
#include "test_util.h"

namespace pagesim::test {
namespace {

// One pattern per line of a report.
const std::regex kBug(R"(BUG: Bad page state in process \S+ {1,2}pfn:([0-9a-f]{5,}))");
const std::regex kPage(R"(page:(?: |[0-9a-f]{16} )refcount:(-?\d+) mapcount:(-?\d+) mapping:([0-9a-f]{16}) index:0x[0-9a-f]+ pfn:0x([0-9a-f]+))");
const std::regex kHead(R"(head:[0-9a-f]{16} order:\d+ compound_mapcount:-?\d+( compound_pincount:-?\d+)?)");
const std::regex kFlags(R"((?:anon )?flags: 0x[0-9a-f]+\((?:[a-z_0-9]+\|)*node=\d+\|zone=\d+(?:\|lastcpupid=0x[0-9a-f]+)?\))");
const std::regex kRaw(R"((raw|head): [0-9a-f]{16}(?: [0-9a-f]{16}){3})");
const std::regex kReason(R"(page dumped because: .+)");

// Real lines (LKML, 2025-04, a 6.15 kernel's free_tail_page_prepare report, "kernel: " prefix
// dropped): the patterns match them, so they describe the kernel's format, not just ours.
TEST(BadPageLog, PatternsMatchARealKernelReport) {
  EXPECT_TRUE(std::regex_match("BUG: Bad page state in process kworker/0:3  pfn:10ac40", kBug));
  EXPECT_TRUE(std::regex_match("page: refcount:0 mapcount:0 mapping:0000000000000000 index:0x0 pfn:0x10ac40", kPage));
  EXPECT_TRUE(std::regex_match("flags: 0x17ffffc0000000(node=0|zone=2|lastcpupid=0x1fffff)", kFlags));
  EXPECT_TRUE(std::regex_match("page dumped because: corrupted mapping in tail page", kReason));
  // print_hex_dump of the struct page (a 5.15 kernel's report, dentproject/dentOS issue 155).
  EXPECT_TRUE(std::regex_match("raw: 2ffff00000010200 fffffc0004108008 fffffc0004110008 ffff000100000c00", kRaw));
  EXPECT_TRUE(std::regex_match("raw: 0000000000000000 ffff000104300000 0000000000000001 0000000000000000", kRaw));
  // 5.17's own (mm/debug.c __dump_page): the page's hashed %p before refcount.
  EXPECT_TRUE(std::regex_match("page:000000007c1f0a2b refcount:1 mapcount:0 mapping:0000000000000000 index:0x0 pfn:0x627", kPage));
}

TEST(BadPageLog, ReportReadsAsTheKernelPrintsIt) {
  auto m = machine(1, 1, 1ull << 30, preset("v5.17"));
  Cpu cpu(*m);
  mm::corrupt_page(m->pfn_to_page(0), mm::FaultField::refcount);
  mm::corrupt_page(m->pfn_to_page(1), mm::FaultField::memcg);
  ASSERT_NE(cpu.mm.alloc_pages_node(0, mm::GFP_HIGHUSER_MOVABLE, 0), nullptr);
  const std::vector<mm::BadPageReport> reports = m->bad_page_reports();
  ASSERT_EQ(reports.size(), 2u);

  const std::vector<std::string> a = reports[0].kernel_log();
  ASSERT_EQ(a.size(), 6u);
  std::smatch bug, page;
  ASSERT_TRUE(std::regex_match(a[0], bug, kBug)) << a[0];
  EXPECT_EQ(a[0], "BUG: Bad page state in process pagesim  pfn:00000");  // %05lx
  ASSERT_TRUE(std::regex_match(a[1], page, kPage)) << a[1];
  EXPECT_EQ(page[1], "1");  // the refcount fault_inject left
  EXPECT_EQ(page[2], "0");  // _mapcount -1: unmapped
  EXPECT_EQ(page[3], "0000000000000000");
  EXPECT_EQ(std::stoul(page[4], nullptr, 16), std::stoul(bug[1], nullptr, 16));
  EXPECT_TRUE(std::regex_match(a[2], kFlags)) << a[2];
  EXPECT_EQ(a[2], "flags: 0x20000000000000(node=0|zone=2)");
  // The struct page's words: flags, the lru links (into the memmap: vmemmap addresses; to a
  // list head: PAGE_OFFSET), mapping, index, private; then _mapcount -1 and _refcount 1 in one
  // little-endian word, memcg_data.
  ASSERT_TRUE(std::regex_match(a[3], kRaw)) << a[3];
  ASSERT_TRUE(std::regex_match(a[4], kRaw)) << a[4];
  EXPECT_EQ(a[3].substr(0, 22), "raw: 0020000000000000 ") << a[3];
  for (const std::string& link : {a[3].substr(22, 16), a[3].substr(39, 16)})
    EXPECT_TRUE(link.starts_with("ffffea") || link == "ffff888000000000") << a[3];
  EXPECT_EQ(a[4].substr(39), "00000001ffffffff 0000000000000000") << a[4];
  EXPECT_EQ(a[5], "page dumped because: nonzero _refcount");

  const std::vector<std::string> b = reports[1].kernel_log();
  ASSERT_EQ(b.size(), 7u);
  EXPECT_TRUE(std::regex_match(b[1], kPage)) << b[1];
  EXPECT_EQ(b[2], "memcg:1000");
  EXPECT_TRUE(std::regex_match(b[3], kFlags)) << b[3];
  EXPECT_EQ(b[5].substr(56), "0000000000001000") << b[5];  // memcg_data
  EXPECT_EQ(b[6], "page dumped because: page still charged to cgroup");
}

// A tail page of a compound block: dump_page's head line after the page line.
TEST(BadPageLog, CompoundPageGetsItsHeadLine) {
  auto m = machine(1, 1, 1ull << 30, preset("v5.17"));
  Cpu cpu(*m);
  mm::Page* thp = cpu.mm.alloc_pages_node(0, kThp, 9);
  ASSERT_NE(thp, nullptr);
  const mm::BadPageReport r = mm::BadPageReport::of(*m, thp + 5, "non-NULL mapping", 0);
  const std::vector<std::string> lines = r.kernel_log();
  ASSERT_EQ(lines.size(), 9u);
  std::smatch head;
  ASSERT_TRUE(std::regex_match(lines[2], head, kHead)) << lines[2];
  EXPECT_NE(lines[2].find(" order:9 compound_mapcount:0 compound_pincount:0"), std::string::npos) << lines[2];
  EXPECT_TRUE(std::regex_match(lines[3], kFlags)) << lines[3];
  EXPECT_NE(lines[3].find("(head|node=0|zone="), std::string::npos) << lines[3];
  // The tail's raw words, then its head's: word 1 is compound_head, the head's vmemmap address | 1.
  const uint64_t head_va = VMEMMAP_BASE + m->page_to_pfn(thp) * sizeof(mm::Page);
  EXPECT_EQ(lines[4].substr(0, 5), "raw: ");
  EXPECT_EQ(lines[4].substr(22, 16), fmt::format("{:016x}", head_va + 1)) << lines[4];
  EXPECT_EQ(lines[6].substr(0, 6), "head: ");
  const std::string head_flags = lines[3].substr(9, lines[3].find('(') - 9);  // "flags: 0x<hex>(..."
  EXPECT_EQ(lines[6].substr(6, 16), fmt::format("{:016x}", std::stoull(head_flags, nullptr, 16))) << lines[6];
  for (unsigned i = 4; i < 8; ++i) EXPECT_TRUE(std::regex_match(lines[i], kRaw)) << lines[i];
  EXPECT_EQ(lines[8], "page dumped because: non-NULL mapping");
}

}  // namespace
}  // namespace pagesim::test
