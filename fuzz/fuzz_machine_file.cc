// libFuzzer target: the machine-file loader on arbitrary text (InputError or a model).
#include <cstddef>
#include <cstdint>
#include <string>

#include "pagesim/error.h"
#include "pagesim/vt/machine_model.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  try {
    pagesim::vt::parse_machine_model(std::string(reinterpret_cast<const char*>(data), size), "fuzz.yaml");
  } catch (const pagesim::InputError&) {
  }
  return 0;
}
