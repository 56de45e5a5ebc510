// GoogleTest parameter names for kernel presets: "v5.17+eric" -> "v5_17_eric".
#pragma once

#include <gtest/gtest.h>

#include <string>

namespace pagesim::test {

inline std::string preset_test_name(const ::testing::TestParamInfo<std::string>& info) {
  std::string s = info.param;
  for (char& c : s)
    if (c == '.' || c == '+') c = '_';
  return s;
}

}  // namespace pagesim::test
