// libFuzzer target: the scenario loader on arbitrary text. Every input either loads or is
// refused with InputError; nothing else may escape, crash, hang or leak.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "pagesim/error.h"
#include "pagesim/scenario/load.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  pagesim::scenario::LoadOptions opt;
  opt.engines = {"uniprocessor", "native", "virtual"};
  try {
    pagesim::scenario::load_string(std::string_view(reinterpret_cast<const char*>(data), size), "fuzz.yaml", opt);
  } catch (const pagesim::InputError&) {
  }
  return 0;
}
