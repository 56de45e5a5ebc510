// gfp flag names of include/trace/events/mmflags.h, valued as in v5.17 include/linux/gfp.h.
#include "pagesim/trace/gfp_names.h"

#include <fmt/format.h>

#include <charconv>

namespace pagesim::trace {

namespace {

using mm::gfp_t;

// ___GFP_* of v5.17 that the model has no constant for; they are masked away below, and are
// here so that the composites read as the kernel writes them.
constexpr gfp_t ZERO = 0x100u, WRITE = 0x1000u, NOFAIL = 0x8000u, NORETRY = 0x10000u, MEMALLOC = 0x20000u,
                NOMEMALLOC = 0x80000u, ACCOUNT = 0x400000u;
constexpr gfp_t RECLAIM = kGfpDirectReclaim | mm::__GFP_KSWAPD_RECLAIM;

// The composites of v5.17 gfp.h.
constexpr gfp_t KERNEL = RECLAIM | kGfpIo | kGfpFs;
constexpr gfp_t USER = KERNEL | kGfpHardwall;
constexpr gfp_t HIGHUSER = USER | mm::__GFP_HIGHMEM;
constexpr gfp_t HIGHUSER_MOVABLE = HIGHUSER | mm::__GFP_MOVABLE;  // | __GFP_SKIP_KASAN_POISON
constexpr gfp_t TRANSHUGE_LIGHT = (HIGHUSER_MOVABLE | mm::__GFP_COMP | NOMEMALLOC | mm::__GFP_NOWARN) & ~RECLAIM;
constexpr gfp_t TRANSHUGE = TRANSHUGE_LIGHT | kGfpDirectReclaim;

static_assert((KERNEL & kModelGfpMask) == mm::GFP_KERNEL);
static_assert((HIGHUSER_MOVABLE & kModelGfpMask) == mm::GFP_HIGHUSER_MOVABLE);

struct GfpName {
  std::string_view name;
  gfp_t bits;  // v5.17 layout, before masking
};

// __def_gfpflag_names, in its order (most bits first: the printer is greedy), then the names
// later kernels print that 5.17 did not have, or that stand for bits the model lacks.
constexpr GfpName kGfpNames[] = {
    {"GFP_TRANSHUGE", TRANSHUGE},
    {"GFP_TRANSHUGE_LIGHT", TRANSHUGE_LIGHT},
    {"GFP_HIGHUSER_MOVABLE", HIGHUSER_MOVABLE},
    {"GFP_HIGHUSER", HIGHUSER},
    {"GFP_USER", USER},
    {"GFP_KERNEL_ACCOUNT", KERNEL | ACCOUNT},
    {"GFP_KERNEL", KERNEL},
    {"GFP_NOFS", RECLAIM | kGfpIo},
    {"GFP_ATOMIC", mm::__GFP_HIGH | mm::__GFP_ATOMIC | mm::__GFP_KSWAPD_RECLAIM},
    {"GFP_NOIO", RECLAIM},
    {"GFP_NOWAIT", mm::__GFP_KSWAPD_RECLAIM},
    {"GFP_DMA", mm::__GFP_DMA},
    {"__GFP_HIGHMEM", mm::__GFP_HIGHMEM},
    {"GFP_DMA32", mm::__GFP_DMA32},
    {"__GFP_HIGH", mm::__GFP_HIGH},
    {"__GFP_ATOMIC", mm::__GFP_ATOMIC},
    {"__GFP_IO", kGfpIo},
    {"__GFP_FS", kGfpFs},
    {"__GFP_NOWARN", mm::__GFP_NOWARN},
    {"__GFP_RETRY_MAYFAIL", mm::__GFP_RETRY_MAYFAIL},
    {"__GFP_NOFAIL", NOFAIL},
    {"__GFP_NORETRY", NORETRY},
    {"__GFP_COMP", mm::__GFP_COMP},
    {"__GFP_ZERO", ZERO},
    {"__GFP_NOMEMALLOC", NOMEMALLOC},
    {"__GFP_MEMALLOC", MEMALLOC},
    {"__GFP_HARDWALL", kGfpHardwall},
    {"__GFP_THISNODE", mm::__GFP_THISNODE},
    {"__GFP_RECLAIMABLE", mm::__GFP_RECLAIMABLE},
    {"__GFP_MOVABLE", mm::__GFP_MOVABLE},
    {"__GFP_ACCOUNT", ACCOUNT},
    {"__GFP_WRITE", WRITE},
    {"__GFP_RECLAIM", RECLAIM},
    {"__GFP_DIRECT_RECLAIM", kGfpDirectReclaim},
    {"__GFP_KSWAPD_RECLAIM", mm::__GFP_KSWAPD_RECLAIM},
    // Printed by some kernels, for bits the model does not have.
    {"__GFP_ZEROTAGS", 0},
    {"__GFP_SKIP_ZERO", 0},
    {"__GFP_SKIP_KASAN", 0},
    {"__GFP_SKIP_KASAN_POISON", 0},
    {"__GFP_SKIP_KASAN_UNPOISON", 0},
    {"__GFP_NOLOCKDEP", 0},
    {"__GFP_NO_OBJ_EXT", 0},
    {"__GFP_UNMAPPED", 0},
    // The names the model's own constants use.
    {"__GFP_DMA", mm::__GFP_DMA},
    {"__GFP_DMA32", mm::__GFP_DMA32},
};

gfp_t name_bits(std::string_view part) {
  if (part.size() > 2 && part[0] == '0' && (part[1] == 'x' || part[1] == 'X')) {
    uint64_t v = 0;
    const char* end = part.data() + part.size();
    const auto [p, ec] = std::from_chars(part.data() + 2, end, v, 16);
    return ec == std::errc() && p == end ? static_cast<gfp_t>(v) : 0;
  }
  for (const GfpName& n : kGfpNames)
    if (n.name == part) return n.bits;
  return 0;  // "none", unknown names
}

}  // namespace

gfp_t gfp_from_text(std::string_view flags) {
  gfp_t gfp = 0;
  while (!flags.empty()) {
    const size_t bar = flags.find('|');
    gfp |= name_bits(flags.substr(0, bar));
    if (bar == std::string_view::npos) break;
    flags.remove_prefix(bar + 1);
  }
  return gfp & kModelGfpMask;
}

std::string gfp_to_text(gfp_t gfp) {
  if (!gfp) return "none";
  std::string out;
  for (const GfpName& n : kGfpNames) {
    // A name with a bit the model lacks never matches a model mask, as in the kernel.
    const gfp_t bits = n.bits;
    if (!bits || (bits & ~kModelGfpMask) || (gfp & bits) != bits) continue;
    if (!out.empty()) out += '|';
    out += n.name;
    gfp &= ~bits;
    if (!gfp) return out;
  }
  if (!out.empty()) out += '|';
  out += fmt::format("{:#x}", gfp);
  return out;
}

}  // namespace pagesim::trace
