// Helpers shared by the scenario tests.
#pragma once

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

namespace pagesim::scenario::testing {

// A fresh directory under gtest's temporary directory, named for the running test.
inline std::filesystem::path fresh_dir(const std::string& tag = "") {
  const ::testing::TestInfo* t = ::testing::UnitTest::GetInstance()->current_test_info();
  std::string name = std::string("pagesim_scn_") + t->test_suite_name() + "_" + t->name() + tag;
  for (char& c : name)
    if (c == '/') c = '_';
  const std::filesystem::path dir = std::filesystem::path(::testing::TempDir()) / name;
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir;
}

inline std::string write_file(const std::filesystem::path& path, const std::string& text) {
  std::ofstream(path, std::ios::binary) << text;
  return path.string();
}

inline std::string first_line(const std::string& s) { return s.substr(0, s.find('\n')); }

}  // namespace pagesim::scenario::testing
