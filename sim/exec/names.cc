// Names of the exec vocabulary's enums: call sites, line kinds, access kinds, lock classes.
#include <array>
#include <string_view>

#include "pagesim/exec/exec.h"

namespace pagesim {

std::string_view site_name(Site s) {
  static constexpr std::array<std::string_view, kNumSites> kNames = {
#define PAGESIM_SITE_NAME(id, name) name,
      PAGESIM_SITES(PAGESIM_SITE_NAME)
#undef PAGESIM_SITE_NAME
  };
  const auto i = static_cast<unsigned>(s);
  return i < kNumSites ? kNames[i] : "?";
}

std::string_view line_kind_name(LineKind k) {
  static constexpr std::array<std::string_view, kNumLineKinds> kNames = {
      "struct_page", "lock_word", "list_head", "zone_meta", "pcp_meta", "counter", "data"};
  const auto i = static_cast<unsigned>(k);
  return i < kNumLineKinds ? kNames[i] : "?";
}

std::string_view access_kind_name(AccessKind k) {
  switch (k) {
    case AccessKind::load: return "load";
    case AccessKind::store: return "store";
    case AccessKind::rmw: return "rmw";
    case AccessKind::prefetch: return "prefetch";
  }
  return "?";
}

std::string_view lock_class_name(LockClass c) {
  return c == LockClass::zone_lock ? "&zone->lock" : "hugetlb_lock";
}

}  // namespace pagesim
