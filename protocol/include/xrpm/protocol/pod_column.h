// PodColumn<T>: a growable array of a trivially copyable T, the numeric columns of a heap batch
// (heap_batch.h). It offers the part of std::vector's interface the batch code uses (no
// insertion but at the end: Append, AppendRange), plus Extend(n): room for n more elements at
// the end, returned as a pointer to write, left uninitialised. The encoder appends a few words per
// object on the walk thread, inside the game's pause; with std::vector each such append was a
// library call (range insert, memmove) costing more than the words it copied. Here an append is one
// capacity check and a loop.
//
// Growth doubles the capacity (amortised O(1) per element); memory comes from malloc/realloc
// and a failure throws std::bad_alloc, as std::vector's would. A batch's columns stay small
// (constants.h's batch limits) and are reused batch after batch; the model's large columns are
// xrpm/model/pod_vector.h (mmap, huge pages, growth without a second copy), which this layer,
// shared with the C++17 agent, cannot use.
//
// Thread-safety: none; a value type like std::vector.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdlib>
#include <cstring>
#include <initializer_list>
#include <iterator>
#include <new>
#include <type_traits>
#include <utility>
#include <vector>

namespace xrpm {
namespace protocol {

template <class T>
class PodColumn {
  static_assert(std::is_trivially_copyable<T>::value, "PodColumn holds plain values");

 public:
  using value_type = T;
  using size_type = size_t;
  using iterator = T*;
  using const_iterator = const T*;

  PodColumn() = default;
  PodColumn(std::initializer_list<T> init) { assign(init.begin(), init.end()); }
  explicit PodColumn(size_t n, T value = T()) { assign(n, value); }
  PodColumn(const PodColumn& o) { assign(o.begin(), o.end()); }
  PodColumn(PodColumn&& o) noexcept : data_(o.data_), size_(o.size_), cap_(o.cap_) {
    o.data_ = nullptr;
    o.size_ = o.cap_ = 0;
  }
  PodColumn& operator=(const PodColumn& o) {
    if (this != &o) assign(o.begin(), o.end());
    return *this;
  }
  PodColumn& operator=(PodColumn&& o) noexcept {
    PodColumn(std::move(o)).swap(*this);
    return *this;
  }
  ~PodColumn() { std::free(data_); }

  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  size_t capacity() const { return cap_; }
  T* data() { return data_; }
  const T* data() const { return data_; }
  T* begin() { return data_; }
  T* end() { return data_ + size_; }
  const T* begin() const { return data_; }
  const T* end() const { return data_ + size_; }
  T& operator[](size_t i) { return data_[i]; }
  const T& operator[](size_t i) const { return data_[i]; }
  T& back() { return data_[size_ - 1]; }
  const T& back() const { return data_[size_ - 1]; }

  // Room for n more elements at the end, uninitialised: the caller writes all n.
  T* Extend(size_t n) {
    if (cap_ - size_ < n) Grow(size_ + n);
    T* at = data_ + size_;
    size_ += n;
    return at;
  }
  // Appends n elements; short runs (a handful of references or values) by a plain loop.
  void Append(const T* from, size_t n) {
    T* to = Extend(n);
    if (n > 8) {
      std::memcpy(to, from, n * sizeof(T));
    } else {
      for (size_t i = 0; i < n; ++i) to[i] = from[i];
    }
  }

  // Appends [first, last), each element converted to T (16-bit code units widened to words).
  template <class It, class = typename std::iterator_traits<It>::iterator_category>
  void AppendRange(It first, It last) {
    const size_t n = static_cast<size_t>(std::distance(first, last));
    T* to = Extend(n);
    for (size_t i = 0; i < n; ++i, ++first) to[i] = static_cast<T>(*first);
  }

  void push_back(T v) {
    if (size_ == cap_) Grow(size_ + 1);
    data_[size_++] = v;
  }
  void clear() { size_ = 0; }
  void reserve(size_t n) {
    if (n > cap_) Reallocate(n);
  }
  void shrink_to_fit() {
    if (size_ == 0) {
      std::free(data_);
      data_ = nullptr;
      cap_ = 0;
    } else if (size_ < cap_) {
      Reallocate(size_);
    }
  }
  void resize(size_t n, T value = T()) {
    if (n > size_) {
      T* to = Extend(n - size_);
      std::fill(to, data_ + n, value);
    } else {
      size_ = n;
    }
  }
  void assign(size_t n, T value) {
    size_ = 0;
    resize(n, value);
  }
  template <class It, class = typename std::iterator_traits<It>::iterator_category>
  void assign(It first, It last) {
    size_ = 0;
    AppendRange(first, last);
  }
  void swap(PodColumn& o) noexcept {
    std::swap(data_, o.data_);
    std::swap(size_, o.size_);
    std::swap(cap_, o.cap_);
  }

  friend bool operator==(const PodColumn& a, const PodColumn& b) {
    return a.size_ == b.size_ && (a.size_ == 0 || std::equal(a.begin(), a.end(), b.begin()));
  }
  friend bool operator!=(const PodColumn& a, const PodColumn& b) { return !(a == b); }
  friend bool operator==(const PodColumn& a, const std::vector<T>& b) {
    return a.size_ == b.size() && std::equal(a.begin(), a.end(), b.begin());
  }
  friend bool operator==(const std::vector<T>& b, const PodColumn& a) { return a == b; }
  friend bool operator!=(const PodColumn& a, const std::vector<T>& b) { return !(a == b); }
  friend bool operator!=(const std::vector<T>& b, const PodColumn& a) { return !(a == b); }

 private:
  void Grow(size_t needed) {
    size_t n = cap_ ? cap_ * 2 : 16;
    if (n < needed) n = needed;
    Reallocate(n);
  }
  void Reallocate(size_t n) {
    if (n > static_cast<size_t>(-1) / sizeof(T)) throw std::bad_alloc();
    void* p = std::realloc(data_, n * sizeof(T));
    if (p == nullptr) throw std::bad_alloc();
    data_ = static_cast<T*>(p);
    cap_ = n;
  }

  T* data_ = nullptr;
  size_t size_ = 0;
  size_t cap_ = 0;
};

}  // namespace protocol
}  // namespace xrpm
