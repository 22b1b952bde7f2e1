#include "test_heaps.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <unordered_map>

namespace xrpm::testing {

Snapshot MakeHeap(const HeapShape& shape) {
  std::mt19937_64 rng(shape.seed);
  Snapshot s;
  s.AddSection({.version = 2, .name = shape.name, .start_ms = 0x763f9d2, .end_ms = 0x763fbef});
  static const char* kNames[] = {"System.String",
                                 "System.Object[]",
                                 "System.Byte[]",
                                 "System.Int32[][]",
                                 "Bubbles.Game1",
                                 "Bubbles.Bubble",
                                 "System.Collections.Hashtable+bucket[]",
                                 "System.Collections.Generic.List`1[[System.String, mscorlib]]",
                                 "Bubbles.Particle",
                                 "System.RuntimeType",
                                 "System.Char[]",
                                 "Microsoft.Xna.Framework.Vector2[]"};
  std::vector<uint32_t> types;
  for (size_t t = 0; t < shape.types; ++t) {
    std::string name = t < std::size(kNames) ? kNames[t] : "Bubbles.Generated" + std::to_string(t);
    types.push_back(s.AddType(shape.first_type_id + static_cast<TypeId>(t), name, 0));
  }
  std::vector<ObjectId> ids;
  ObjectId addr = shape.base;
  std::vector<uint32_t> sizes;
  for (size_t i = 0; i < shape.objects; ++i) {
    uint32_t size = 12 + 4 * static_cast<uint32_t>(rng() % 40);
    ids.push_back(addr);
    sizes.push_back(size);
    addr += size + 4 * (rng() % 3);
  }
  std::vector<ObjectId> refs;
  for (size_t i = 0; i < shape.objects; ++i) {
    refs.clear();
    size_t n = rng() % 6;
    for (size_t k = 0; k < n && !ids.empty(); ++k) {
      if (shape.dangling > 0 && std::uniform_real_distribution<>(0, 1)(rng) < shape.dangling)
        refs.push_back(addr + 0x100 + 4 * (rng() % 1000));  // past the last object: dangling
      else
        refs.push_back(ids[rng() % ids.size()]);
    }
    s.AddObject(ids[i], types[rng() % types.size()], sizes[i], refs);
  }
  if (shape.all_root_kinds && !ids.empty()) {
    for (int kind = 0; kind < kRootKindCount; ++kind) {
      for (int k = 0; k < 3; ++k) {
        ObjectId o = ids[rng() % ids.size()];
        uint8_t flags = k == 0 ? 0 : k == 1 ? kRootPinned : kRootWeak | kRootInterior;
        TypeId container = 0;
        if (kind == static_cast<int>(RootKind::kStatic)) {
          container = shape.first_type_id + static_cast<TypeId>(rng() % shape.types);
          flags = 0;  // statics are plain (a flagged static loses its container: see tests)
        }
        s.AddRoot(o, static_cast<RootKind>(kind), flags, container);
      }
    }
  }
  s.CloseSectionRanges();
  return s;
}

Canon Canonical(const Snapshot& s) {
  Canon c;
  for (size_t i = 0; i < s.object_count(); ++i) {
    auto r = s.object_refs(i);
    c.objects.push_back(
        {s.object_id[i], s.type_name_of(i), s.object_size[i], {r.begin(), r.end()}});
  }
  std::unordered_map<uint64_t, std::string> type_name;  // section << 32 | id
  for (const TypeInfo& t : s.types) type_name.try_emplace(uint64_t{t.section} << 32 | t.id, t.name);
  for (uint32_t sec = 0; sec < std::max<size_t>(1, s.sections.size()); ++sec) {
    uint64_t b = s.sections.empty() ? 0 : s.sections[sec].roots_begin;
    uint64_t e = s.sections.empty() ? s.root_count() : s.sections[sec].roots_end;
    for (uint64_t r = b; r < e; ++r) {
      std::string container;
      if (s.root_kind[r] == static_cast<uint8_t>(RootKind::kStatic) && s.root_container[r]) {
        auto it = type_name.find(uint64_t{sec} << 32 | s.root_container[r]);
        container = it == type_name.end() ? "?" : it->second;
      }
      c.roots.push_back({s.root_object[r], s.root_kind[r], s.root_flags[r], container});
    }
  }
  std::sort(c.roots.begin(), c.roots.end());
  return c;
}

std::map<std::string, size_t> CountByType(const Snapshot& s) {
  std::map<std::string, size_t> n;
  for (size_t i = 0; i < s.object_count(); ++i) ++n[s.type_name_of(i)];
  return n;
}

std::map<std::string, std::string> StaticRootTypes(const Snapshot& s) {
  std::unordered_map<ObjectId, size_t> index;
  for (size_t i = 0; i < s.object_count(); ++i) index.emplace(s.object_id[i], i);
  std::map<std::string, std::string> types;
  for (size_t r = 0; r < s.root_count(); ++r) {
    if (s.root_kind_of(r) != RootKind::kStatic) continue;
    auto it = index.find(s.root_object[r]);
    if (it == index.end()) {
      ADD_FAILURE() << "static root " << s.fields.label_of_root(r) << " names no captured object";
      continue;
    }
    types[std::string(s.fields.label_of_root(r))] = s.type_name_of(it->second);
  }
  return types;
}

Snapshot OneObjectCapture() {
  Snapshot s;
  s.AddSection({.name = "bubbles.exe"});
  s.AddType(1, "Game.Bubble", 0);
  s.AddObject(0x10, 0, 12, {});
  s.root_origins = {"thread 1 / Game1.Update"};
  s.AddRoot(0x10, RootKind::kLocal, 0, 0, 0);
  s.CloseSectionRanges();
  s.capture = CaptureInfo{};
  s.capture->device.app_name = "bubbles.exe";
  return s;
}

}  // namespace xrpm::testing
