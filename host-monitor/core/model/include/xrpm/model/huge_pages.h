// Backing the big columns and tables on transparent huge pages.
//
// The readers, the id lookups and the dominator and index passes touch entries of 40-80 MB
// arrays at random; with 4 KiB pages nearly every access also misses the TLB. Where the kernel
// offers transparent huge pages on request (/sys/kernel/mm/transparent_hugepage/enabled =
// madvise, the Debian default), the arrays are advised before first touch so the kernel backs
// them with 2 MiB pages. Best effort: without THP nothing changes. Small arrays (malloc'ed by
// PodVector) are left alone.
//
// Thread-safety: none (like PodVector).
#pragma once

#include <sys/mman.h>

#include <cstddef>
#include <cstdint>

#include "xrpm/model/pod_vector.h"

namespace xrpm {

// Asks for huge pages for the 2 MiB-aligned part of [data, data + bytes), if it holds one.
inline void AdviseHugePages(void* data, size_t bytes) {
  constexpr size_t kHuge = size_t{2} << 20;
  const uintptr_t begin = reinterpret_cast<uintptr_t>(data);
  const uintptr_t first = (begin + kHuge - 1) & ~uintptr_t(kHuge - 1);
  const uintptr_t end = (begin + bytes) & ~uintptr_t(kHuge - 1);
  if (data != nullptr && end > first)
    madvise(reinterpret_cast<void*>(first), end - first, MADV_HUGEPAGE);
}

// Resizes v to n elements of `value`, asking for huge pages before the memory is first touched.
template <class T>
void ResizeHuge(PodVector<T>& v, size_t n, T value = T{}) {
  if (n > v.capacity() && n * sizeof(T) >= (size_t{2} << 20)) {
    v.reserve(n);
    AdviseHugePages(v.data(), v.capacity() * sizeof(T));
  }
  v.resize(n, value);
}

}  // namespace xrpm
