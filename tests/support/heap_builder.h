// HeapBuilder: terse construction of small hand-made Snapshots for the analysis tests.
//
//   HeapBuilder h;
//   h.Obj(0x10, "Game", 40, {0x20});   // id, type name, size, referenced ids
//   h.Root(0x10, RootKind::kStatic);
//   Snapshot s = h.Build();
//
// Thread-safety: none (test helper).
#pragma once

#include <initializer_list>
#include <map>
#include <string>
#include <vector>

#include "xrpm/model/snapshot.h"

namespace xrpm::testing {

class HeapBuilder {
 public:
  explicit HeapBuilder(std::string app = "test.exe") { s_.AddSection({.name = std::move(app)}); }

  uint32_t Type(const std::string& name) {
    auto it = types_.find(name);
    if (it != types_.end()) return it->second;
    const uint32_t t = s_.AddType(static_cast<TypeId>(s_.types.size() + 1), name, 0);
    types_.emplace(name, t);
    return t;
  }
  TypeId RawTypeId(const std::string& name) { return s_.types[Type(name)].id; }

  HeapBuilder& Obj(ObjectId id, const std::string& type, uint32_t size,
                   std::initializer_list<ObjectId> refs = {}) {
    std::vector<ObjectId> r(refs);
    s_.AddObject(id, Type(type), size, r);
    return *this;
  }
  HeapBuilder& Obj(ObjectId id, const std::string& type, uint32_t size,
                   const std::vector<ObjectId>& refs) {
    s_.AddObject(id, Type(type), size, refs);
    return *this;
  }
  HeapBuilder& Root(ObjectId id, RootKind kind = RootKind::kLocal, uint8_t flags = 0,
                    TypeId container = 0) {
    s_.AddRoot(id, kind, flags, container);
    return *this;
  }
  Snapshot Build() {
    s_.CloseSectionRanges();
    return std::move(s_);
  }

 private:
  Snapshot s_;
  std::map<std::string, uint32_t> types_;
};

}  // namespace xrpm::testing
