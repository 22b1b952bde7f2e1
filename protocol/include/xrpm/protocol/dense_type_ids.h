// DenseTypeIds<V>: a value per type id, for the lookups a capture's host makes once per object
// (the assembler's type index, the field checker's type tables, the value plans). Agents
// number the types of a capture 1, 2, ...: ids below kLimit are kept in an array, so a lookup
// is one load; Find answers `absent` for an id never set and for any larger id, which the
// caller keeps in its own map (a foreign agent's sparse ids).
//
// Memory: sizeof(V) per id up to the largest id set (at most kLimit of them).
// Thread-safety: none; one capture, one thread.
#pragma once

#include <cstdint>
#include <vector>

namespace xrpm {
namespace protocol {

template <class V>
class DenseTypeIds {
 public:
  static constexpr uint32_t kLimit = 1u << 16;

  explicit DenseTypeIds(V absent) : absent_(absent) {}

  // Whether `id` is kept here (else the caller's map is the only place for it).
  static bool Covers(uint32_t id) { return id < kLimit; }
  V Find(uint32_t id) const { return id < values_.size() ? values_[id] : absent_; }
  void Set(uint32_t id, V v) {
    if (!Covers(id)) return;
    if (id >= values_.size()) values_.resize(id + 1, absent_);
    values_[id] = v;
  }

 private:
  V absent_;
  std::vector<V> values_;
};

}  // namespace protocol
}  // namespace xrpm
