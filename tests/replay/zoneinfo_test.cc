// The /proc/zoneinfo reader: the fields a replay uses, from a literal file and from the real
// capture; errors with their position.
#include <gtest/gtest.h>

#include <filesystem>

#include "pagesim/error.h"
#include "pagesim/replay/zoneinfo.h"

namespace pagesim::replay {
namespace {

constexpr const char* kZoneinfo = R"(Node 0, zone      DMA
  per-node stats
      nr_inactive_anon 1255
  pages free     3840
        boost    0
        min      68
        low      85
        high     102
        promo    119
        spanned  4095
        present  3998
        managed  3840
        cma      0
        protection: (0, 3018, 3658, 3658, 3658)
      nr_free_pages 3840
  pagesets
    cpu: 0
              count:    0
              high:     0
              batch:    1
              high_min: 42
              high_max: 240
  vm stats threshold: 4
  node_unreclaimable:  0
  start_pfn:           1
Node 0, zone   Normal
  pages free     63144
        min      2943
        low      3678
        high     4413
        spanned  5505024
        present  5505024
        managed  163840
  pagesets
    cpu: 0
              count:    3645
              high:     3773
              batch:    31
              high_min: 1839
              high_max: 10240
  vm stats threshold: 16
    cpu: 1
              count:    9750
              high:     10240
              batch:    31
  vm stats threshold: 16
  node_unreclaimable:  0
  start_pfn:           1048576
Node 0, zone  Movable
  pages free     0
        spanned  0
        present  0
        managed  0
)";

TEST(Zoneinfo, ReadsZonesWatermarksAndPagesets) {
  const ZoneInfoFile f = parse_zoneinfo(kZoneinfo, "zi.txt");
  ASSERT_EQ(f.zones.size(), 3u);
  const ZoneInfo& n = f.zones[1];
  EXPECT_EQ(n.name, "Normal");
  EXPECT_EQ(n.line, 26u);
  EXPECT_EQ(n.free, 63144u);
  EXPECT_EQ(n.min, 2943u);
  EXPECT_EQ(n.low, 3678u);
  EXPECT_EQ(n.high, 4413u);  // the watermark, not a pageset's high
  EXPECT_EQ(n.spanned, 5505024u);
  EXPECT_EQ(n.managed, 163840u);
  EXPECT_EQ(n.start_pfn, 1048576u);
  ASSERT_EQ(n.pagesets.size(), 2u);
  EXPECT_EQ(n.pageset(0)->count, 3645);
  EXPECT_EQ(n.pageset(0)->high, 3773);
  EXPECT_EQ(n.pageset(0)->batch, 31);
  EXPECT_EQ(n.pageset(0)->high_min, 1839);
  EXPECT_EQ(n.pageset(0)->high_max, 10240);
  EXPECT_EQ(n.pageset(1)->high_min, -1) << "a 5.x zoneinfo prints no high_min";
  EXPECT_EQ(n.pageset(2), nullptr);
  EXPECT_EQ(f.zones[0].pageset(0)->high, 0);
  EXPECT_EQ(f.zone_of(0x100000), &f.zones[1]);
  EXPECT_EQ(f.zone_of(2), &f.zones[0]);
  EXPECT_EQ(f.zone_of(0), nullptr);
  EXPECT_FALSE(f.zones[2].populated());
}

TEST(Zoneinfo, ErrorsNameFileLineAndColumn) {
  auto error_of = [](const std::string& text) -> std::string {
    try {
      parse_zoneinfo(text, "zi.txt");
    } catch (const InputError& e) {
      return e.what();
    }
    return "";
  };
  EXPECT_EQ(error_of("Node 0, zone Normal\n  pages free  12x\n"), "zi.txt:2:15: pages free: '12x' is not a number");
  EXPECT_EQ(error_of("Node 0, zone Normal\n  pagesets\n    cpu: 0\n     count: -\n"), "zi.txt:4:13: count: '-' is not a number");
  EXPECT_EQ(error_of("  pages free 3\n"), "zi.txt:1:3: a zone field before the first 'Node N, zone NAME' line");
  EXPECT_EQ(error_of("Node zero, zone Normal\n"), "zi.txt:1:6: Node: 'zero' is not a number");
  EXPECT_EQ(error_of("Node 0 zone Normal\n"), "zi.txt:1:1: expected 'Node N, zone NAME'");
  EXPECT_EQ(error_of("hello\n"), "zi.txt:1:1: a zone field before the first 'Node N, zone NAME' line");
  EXPECT_EQ(error_of(""), "zi.txt:1:1: no 'Node N, zone NAME' line: not a zoneinfo file");
  EXPECT_THROW(read_zoneinfo("/nonexistent/zoneinfo"), InputError);
}

TEST(Zoneinfo, ReadsTheRealCapture) {
  const std::filesystem::path p = std::filesystem::path(PAGESIM_TRACES_DIR) / "zoneinfo-at-capture.txt";
  if (!std::filesystem::exists(p)) GTEST_SKIP() << p << " is absent";
  const ZoneInfoFile f = read_zoneinfo(p.string());
  ASSERT_EQ(f.zones.size(), 5u);
  const ZoneInfo& n = f.zones[2];
  EXPECT_EQ(n.name, "Normal");
  EXPECT_EQ(n.managed, 163840u);
  EXPECT_EQ(n.pageset(1)->count, 9750);
  EXPECT_EQ(n.pageset(1)->high_max, 10240);
  EXPECT_EQ(f.zones[1].name, "DMA32");
  EXPECT_EQ(f.zones[1].pageset(0)->batch, 63);
}

}  // namespace
}  // namespace pagesim::replay
