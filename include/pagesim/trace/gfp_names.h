// The kernel's names of gfp flags, as ftrace prints them, onto the model's gfp_t bits.
//
// `gfp_flags=` in a trace is the kernel's show_gfp_flags() (include/trace/events/mmflags.h):
// the composite names of __def_gfpflag_names first (GFP_TRANSHUGE, ..., GFP_KERNEL, GFP_NOFS,
// GFP_ATOMIC, ...), then single __GFP_* bits, joined by '|'; bits no name covers as one "0x..."
// part; "none" for 0. The names mean their v5.17 values (include/linux/gfp.h), whatever kernel
// printed them: the model is 5.17, so GFP_ATOMIC keeps __GFP_ATOMIC and GFP_NOWAIT is
// __GFP_KSWAPD_RECLAIM alone, as in 5.17.
//
// Only the bits the model defines survive (kModelGfpMask): its named __GFP_* constants in
// pagesim/mm/types.h and the four bits that types.h spells as literals inside its composites
// (__GFP_IO, __GFP_FS, __GFP_DIRECT_RECLAIM, __GFP_HARDWALL). Names of bits the model does not
// define (__GFP_ZERO, __GFP_NORETRY, __GFP_ACCOUNT, __GFP_NOFAIL, ...) and unknown names are
// accepted and contribute nothing.
//
// Note: the kernel's GFP_TRANSHUGE (no __GFP_KSWAPD_RECLAIM, with __GFP_NOWARN) is not the
// model's mm::GFP_TRANSHUGE (GFP_HIGHUSER_MOVABLE | __GFP_COMP); gfp_from_text follows the
// kernel, since the text is what the kernel passed.
#pragma once

#include <string>
#include <string_view>

#include "pagesim/mm/types.h"

namespace pagesim::trace {

// v5.17 values of the bits that types.h spells only as literals.
inline constexpr mm::gfp_t kGfpIo = 0x40u;             // __GFP_IO
inline constexpr mm::gfp_t kGfpFs = 0x80u;             // __GFP_FS
inline constexpr mm::gfp_t kGfpDirectReclaim = 0x400u;  // __GFP_DIRECT_RECLAIM
inline constexpr mm::gfp_t kGfpHardwall = 0x100000u;    // __GFP_HARDWALL

inline constexpr mm::gfp_t kModelGfpMask =
    mm::__GFP_DMA | mm::__GFP_HIGHMEM | mm::__GFP_DMA32 | mm::__GFP_MOVABLE | mm::__GFP_RECLAIMABLE |
    mm::__GFP_HIGH | kGfpIo | kGfpFs | mm::__GFP_ATOMIC | kGfpDirectReclaim | mm::__GFP_KSWAPD_RECLAIM |
    mm::__GFP_NOWARN | mm::__GFP_RETRY_MAYFAIL | mm::__GFP_COMP | kGfpHardwall | mm::__GFP_THISNODE;

// "GFP_KERNEL_ACCOUNT|__GFP_ZERO|__GFP_COMP" -> GFP_KERNEL | __GFP_COMP. "0x..." parts are
// masks in the model's (5.17) layout, kept to kModelGfpMask; "none", empty parts and unknown
// names add nothing. Never throws.
mm::gfp_t gfp_from_text(std::string_view flags);

// The model's bits as the kernel would print them: greedy over the same name table in the same
// order, leftovers as one "0x..." part, "none" for 0. gfp_from_text(gfp_to_text(g)) ==
// (g & kModelGfpMask).
std::string gfp_to_text(mm::gfp_t gfp);

}  // namespace pagesim::trace
