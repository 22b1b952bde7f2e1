// Sizing the analysis engine's big arrays on transparent huge pages.
//
// The dominator and index passes touch 4-byte entries of 40-80 MB arrays at random; with 4 KiB
// pages nearly every access also misses the TLB. Where the kernel offers transparent huge pages
// on request (/sys/kernel/mm/transparent_hugepage/enabled = madvise, the Debian default), the
// arrays are advised before first touch so the kernel backs them with 2 MiB pages. Best effort:
// without THP nothing changes. Small arrays (malloc'ed by PodVector) are left alone.
//
// Thread-safety: none (like PodVector).
#pragma once

#include <sys/mman.h>

#include <cstddef>
#include <cstdint>

#include "xrpm/model/pod_vector.h"

namespace xrpm::analysis::detail {

// Resizes v to n elements of `value`, asking for huge pages before the memory is first touched.
template <class T>
void ResizeHuge(PodVector<T>& v, size_t n, T value = T{}) {
  constexpr size_t kHuge = size_t{2} << 20;
  if (n > v.capacity() && n * sizeof(T) >= kHuge) {
    v.reserve(n);
    const uintptr_t begin = reinterpret_cast<uintptr_t>(v.data());
    const uintptr_t first = (begin + kHuge - 1) & ~uintptr_t(kHuge - 1);
    const uintptr_t end = (begin + v.capacity() * sizeof(T)) & ~uintptr_t(kHuge - 1);
    if (end > first) madvise(reinterpret_cast<void*>(first), end - first, MADV_HUGEPAGE);
  }
  v.resize(n, value);
}

}  // namespace xrpm::analysis::detail
