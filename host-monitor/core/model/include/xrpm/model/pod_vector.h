// PodVector<T>: a growable contiguous array of trivially copyable values whose growth
// never needs a second copy of the data in memory.
//
// Why: a 10 M-object snapshot keeps ~30 M references in one array; std::vector's
// doubling holds the old and the new block at once (3x the data at the peak). Large
// PodVectors live in anonymous mmap'd memory and grow with mremap, which moves page tables
// instead of bytes, so the peak equals the data plus at most one growth step of untouched
// (uncommitted) address space. The mapping is advised for transparent huge pages (given on
// request where /sys/kernel/mm/transparent_hugepage/enabled = madvise, Debian's default): a
// column filled batch by batch faults once per 2 MiB instead of per 4 KiB page (~14 us a fault
// on the paravirtualised machines we measure on), and passes touching 40-80 MB at random miss
// the TLB far less. From 2 MiB up a mapping starts on a 2 MiB boundary and moves only to one:
// a move to any other address splits every huge page already filled into 4 KiB pages. This
// is the one place the advice is given.
//
// Thread-safety: none (like std::vector); concurrent const access is safe.
#pragma once

#include <sys/mman.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <new>
#include <span>
#include <type_traits>
#include <utility>

namespace xrpm {

template <class T>
class PodVector {
  static_assert(std::is_trivially_copyable_v<T>, "PodVector holds trivially copyable values");

 public:
  PodVector() = default;
  explicit PodVector(size_t n, T value = T{}) { resize(n, value); }
  PodVector(const PodVector& o) { assign(o.data_, o.data_ + o.size_); }
  PodVector(PodVector&& o) noexcept { swap(o); }
  PodVector& operator=(const PodVector& o) {
    if (this != &o) assign(o.data_, o.data_ + o.size_);
    return *this;
  }
  PodVector& operator=(PodVector&& o) noexcept {
    if (this != &o) {
      release();
      swap(o);
    }
    return *this;
  }
  ~PodVector() { release(); }

  void swap(PodVector& o) noexcept {
    std::swap(data_, o.data_);
    std::swap(size_, o.size_);
    std::swap(cap_, o.cap_);
    std::swap(mapped_, o.mapped_);
  }

  size_t size() const { return size_; }
  size_t capacity() const { return cap_; }
  bool empty() const { return size_ == 0; }
  T* data() { return data_; }
  const T* data() const { return data_; }
  T& operator[](size_t i) { return data_[i]; }
  const T& operator[](size_t i) const { return data_[i]; }
  T& back() { return data_[size_ - 1]; }
  const T& back() const { return data_[size_ - 1]; }
  T* begin() { return data_; }
  T* end() { return data_ + size_; }
  const T* begin() const { return data_; }
  const T* end() const { return data_ + size_; }
  std::span<T> span() { return {data_, size_}; }
  std::span<const T> span() const { return {data_, size_}; }
  operator std::span<const T>() const { return span(); }

  void push_back(const T& v) {
    if (size_ == cap_) grow(size_ + 1);
    data_[size_++] = v;
  }
  void append(const T* first, const T* last) {
    size_t n = static_cast<size_t>(last - first);
    if (size_ + n > cap_) grow(size_ + n);
    if (n) std::memcpy(data_ + size_, first, n * sizeof(T));
    size_ += n;
  }
  void assign(const T* first, const T* last) {
    size_ = 0;
    append(first, last);
  }
  void resize(size_t n, T value = T{}) {
    if (n > cap_) reserve(n);
    for (size_t i = size_; i < n; ++i) data_[i] = value;
    size_ = n;
  }
  // Sets the size to n without writing the new elements: they keep what was stored through
  // data() within capacity() (fresh mapped memory reads as zero). For writers that fill a
  // reserved column in place, possibly from several threads.
  void resize_uninitialized(size_t n) {
    if (n > cap_) reserve(n);
    size_ = n;
  }
  void reserve(size_t n) {
    if (n > cap_) realloc_to(n);
  }
  void clear() { size_ = 0; }
  void pop_back() { --size_; }
  // Gives back capacity beyond size() (keeps the data where it is when mapped).
  void shrink_to_fit() {
    if (cap_ > size_) realloc_to(size_);
  }
  // Bytes of memory held (capacity), for memory accounting.
  size_t bytes_reserved() const { return cap_ * sizeof(T); }

  friend bool operator==(const PodVector& a, const PodVector& b) {
    return a.size_ == b.size_ &&
           (a.size_ == 0 || std::memcmp(a.data_, b.data_, a.size_ * sizeof(T)) == 0);
  }

 private:
  static constexpr size_t kMapThresholdBytes = size_t{1} << 20;  // below: malloc
  static constexpr size_t kHugePageBytes = size_t{2} << 20;      // x86-64's and arm64's PMD

  void grow(size_t need) {
    size_t n = cap_ < 16 ? 16 : cap_ + cap_ / 2;  // 1.5x: less untouched slack at the peak
    if (n < need) n = need;
    realloc_to(n);
  }

  void realloc_to(size_t n) {
    const size_t bytes = n * sizeof(T);
    if (n == 0) {
      release();
      return;
    }
    if (bytes < kMapThresholdBytes && !mapped_) {
      void* p = std::realloc(data_, bytes);
      if (!p) throw std::bad_alloc();
      data_ = static_cast<T*>(p);
      cap_ = n;
      return;
    }
    const size_t map_bytes = round_map(bytes);
    if (mapped_) {
      const size_t old_bytes = round_map(cap_ * sizeof(T));
      // In place when the address space after the mapping is free (always, to shrink), unless
      // that would leave a mapping of huge-page size unaligned.
      void* p = map_bytes < kHugePageBytes || HugeAligned(data_)
                    ? mremap(data_, old_bytes, map_bytes, 0)
                    : MAP_FAILED;
      if (p == MAP_FAILED) {
        // Moved to a huge-page boundary: the page tables move whole 2 MiB entries, so the pages
        // already filled stay huge (a move to any other address splits every one of them).
        void* dest = MapAligned(map_bytes);
        if (dest == MAP_FAILED) throw std::bad_alloc();
        p = mremap(data_, old_bytes, map_bytes, MREMAP_MAYMOVE | MREMAP_FIXED, dest);
        if (p == MAP_FAILED) {
          munmap(dest, map_bytes);
          throw std::bad_alloc();
        }
      }
      data_ = static_cast<T*>(p);
    } else {
      void* p = MapAligned(map_bytes);
      if (p == MAP_FAILED) throw std::bad_alloc();
#ifdef MADV_HUGEPAGE
      // The whole mapping, once: mremap keeps the advice, and advising only part of it would
      // split it into mappings of different kinds, which mremap refuses to move (EFAULT).
      madvise(p, map_bytes, MADV_HUGEPAGE);
#endif
      if (size_) std::memcpy(p, data_, size_ * sizeof(T));
      std::free(data_);
      data_ = static_cast<T*>(p);
      mapped_ = true;
    }
    cap_ = map_bytes / sizeof(T);
  }

  // A fresh anonymous mapping of `bytes`; one of huge-page size or more starts on a huge-page
  // boundary (mapped with a huge page of slack, the unaligned ends given back).
  static void* MapAligned(size_t bytes) {
    const size_t slack = bytes >= kHugePageBytes ? kHugePageBytes : 0;
    void* p =
        mmap(nullptr, bytes + slack, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED || slack == 0) return p;
    const uintptr_t start = reinterpret_cast<uintptr_t>(p);
    const uintptr_t aligned = (start + kHugePageBytes - 1) & ~uintptr_t{kHugePageBytes - 1};
    if (aligned > start) munmap(p, aligned - start);
    const size_t tail = slack - (aligned - start);
    if (tail) munmap(reinterpret_cast<void*>(aligned + bytes), tail);
    return reinterpret_cast<void*>(aligned);
  }
  static bool HugeAligned(const void* p) {
    return (reinterpret_cast<uintptr_t>(p) & (kHugePageBytes - 1)) == 0;
  }

  void release() {
    if (data_) {
      if (mapped_)
        munmap(data_, round_map(cap_ * sizeof(T)));
      else
        std::free(data_);
    }
    data_ = nullptr;
    size_ = cap_ = 0;
    mapped_ = false;
  }

  static size_t round_pages(size_t bytes) {
    constexpr size_t kPage = 4096;
    return (bytes + kPage - 1) & ~(kPage - 1);
  }
  // A mapping's size: whole pages, and whole huge pages from one huge page up.
  static size_t round_map(size_t bytes) {
    return bytes < kHugePageBytes ? round_pages(bytes)
                                  : (bytes + kHugePageBytes - 1) & ~(kHugePageBytes - 1);
  }

  T* data_ = nullptr;
  size_t size_ = 0;
  size_t cap_ = 0;
  bool mapped_ = false;
};

}  // namespace xrpm
