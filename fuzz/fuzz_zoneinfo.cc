// libFuzzer target: the /proc/zoneinfo reader on arbitrary text (InputError or its zones).
#include <cstddef>
#include <cstdint>
#include <string>

#include "pagesim/error.h"
#include "pagesim/replay/zoneinfo.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  try {
    const pagesim::replay::ZoneInfoFile f =
        pagesim::replay::parse_zoneinfo(std::string(reinterpret_cast<const char*>(data), size), "fuzz.zoneinfo");
    for (const pagesim::replay::ZoneInfo& z : f.zones) f.zone_of(z.start_pfn);  // the lookup a replay makes
  } catch (const pagesim::InputError&) {
  }
  return 0;
}
