// Test helper: a whole file's bytes as a string (binary, "" when it cannot be read).
//
// Thread-safety: reentrant.
#pragma once

#include <fstream>
#include <iterator>
#include <string>

namespace xrpm::testing {

inline std::string FileBytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

}  // namespace xrpm::testing
