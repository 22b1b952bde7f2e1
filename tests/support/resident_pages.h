// Test helper: how many 4 KiB pages of [p, p + bytes) are resident (mincore), for tests that
// check what a piece of code faulted in or left untouched. 0 when mincore fails.
//
// Thread-safety: reentrant.
#pragma once

#include <sys/mman.h>

#include <cstddef>
#include <vector>

namespace xrpm::testing {

inline size_t ResidentPages(const void* p, size_t bytes) {
  std::vector<unsigned char> v((bytes + 4095) / 4096);
  if (mincore(const_cast<void*>(p), bytes, v.data()) != 0) return 0;
  size_t n = 0;
  for (unsigned char c : v) n += c & 1;
  return n;
}

}  // namespace xrpm::testing
