// A small game heap with object contents for the model, format, analysis and CLI
// tests: type layouts with every primitive kind, an enum, strings (non-ASCII, a cut one), a
// list with its array, a static event whose delegate holds one bubble, and labelled roots.
//
//   local in Bubbles.Game1.Update, thread 1 -> Game1@1000
//     Game1.bubbles -> List<Bubble>@1100 ._items -> Bubble[]@1200 [0] -> Bubble@1300 (.name
//     -> "Bubble 0"), [2] -> Bubble@1380 (.name -> "Blase ü€…" cut)
//   static Bubbles.GameEvents.Popped -> EventHandler@1600 ._target -> Bubble@1340 ("Bubble 1",
//     IsAlive false, state Popped)
//
// Thread-safety: plain functions over values.
#pragma once

#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "xrpm/model/snapshot.h"

namespace xrpm::testing {

// Appends little-endian values to an object's packed value bytes.
struct Values {
  std::vector<uint8_t> b;
  template <class T>
  Values& Put(T v) {
    const auto* p = reinterpret_cast<const uint8_t*>(&v);
    b.insert(b.end(), p, p + sizeof v);
    return *this;
  }
};

inline FieldLayout Field(std::string name, std::string type, uint32_t offset, FieldKind kind,
                         FieldKind underlying = FieldKind::kInt32, uint32_t enum_type = kNoSlot) {
  FieldLayout f;
  f.name = std::move(name);
  f.type_name = std::move(type);
  f.offset = offset;
  f.kind = kind;
  f.underlying = underlying;
  f.enum_type = enum_type;
  return f;
}

class FieldsHeapBuilder {
 public:
  FieldsHeapBuilder() {
    AppDomainSection sec;
    sec.name = "bubbles.exe";
    s.AddSection(std::move(sec));
  }
  uint32_t Type(TypeId id, std::string name, TypeShape shape, std::vector<FieldLayout> fields = {},
                std::vector<StaticFieldLayout> statics = {}) {
    const uint32_t t = s.AddType(id, std::move(name), 0);
    TypeLayout l;
    l.shape = shape;
    l.fields = std::move(fields);
    l.statics = std::move(statics);
    PackLayout(l);
    s.fields.layouts.push_back(std::move(l));
    return t;
  }
  // refs: (target id, slot)
  void Object(ObjectId id, uint32_t type, uint32_t size,
              std::vector<std::pair<ObjectId, uint32_t>> refs, std::vector<uint8_t> values) {
    std::vector<ObjectId> ids;
    for (const auto& [target, slot] : refs) {
      ids.push_back(target);
      s.fields.ref_slot.push_back(slot);
    }
    s.AddObject(id, type, size, ids);
    s.fields.AddValues(values);
  }
  void Root(ObjectId object, RootKind kind, TypeId container, std::string label) {
    s.AddRoot(object, kind, 0, container);
    uint32_t index = kNoSlot;
    if (!label.empty()) {
      index = static_cast<uint32_t>(s.fields.root_labels.size());
      s.fields.root_labels.push_back(std::move(label));
    }
    s.fields.root_label.push_back(index);
  }
  Snapshot Take() {
    s.CloseSectionRanges();
    return std::move(s);
  }
  Snapshot s;
};

inline std::vector<uint8_t> StringBytes(std::string_view utf8, uint32_t full_length,
                                        bool cut = false) {
  return HeapFields::EncodeString(utf8, full_length, cut);
}

// Replaces object i's value bytes (the columns are rebuilt; for bad-input tests).
inline void ReplaceValues(Snapshot& s, size_t object, const std::vector<uint8_t>& bytes) {
  HeapFields f = s.fields;
  f.values.clear();
  for (size_t i = 0; i < s.object_count(); ++i) {
    const auto v = s.fields.values_of(i);
    f.AddValues(i == object ? bytes : std::vector<uint8_t>(v.begin(), v.end()));
  }
  s.fields = std::move(f);
}

inline Snapshot MakeFieldsGame() {
  FieldsHeapBuilder h;
  h.s.fields.values_captured = true;
  h.s.fields.string_cap = 8;
  h.s.fields.enums.push_back({"Bubbles.BubbleState", {{0, "Floating"}, {1, "Popped"}}, false});
  using K = FieldKind;
  const uint32_t game = h.Type(
      0x10, "Bubbles.Game1", TypeShape::kClass,
      {Field("bubbles", "System.Collections.Generic.List`1<Bubbles.Bubble>", 8, K::kReference),
       Field("score", "System.Int32", 12, K::kInt32),
       Field("paused", "System.Boolean", 16, K::kBoolean)});
  const uint32_t list =
      h.Type(0x11, "System.Collections.Generic.List`1<Bubbles.Bubble>", TypeShape::kClass,
             {Field("_items", "Bubbles.Bubble[]", 8, K::kReference),
              Field("_size", "System.Int32", 12, K::kInt32)});
  const uint32_t arr = h.Type(0x12, "Bubbles.Bubble[]", TypeShape::kArray);
  const uint32_t bubble = h.Type(
      0x13, "Bubbles.Bubble", TypeShape::kClass,
      {Field("name", "System.String", 8, K::kReference),
       Field("IsAlive", "System.Boolean", 12, K::kBoolean),
       Field("initial", "System.Char", 14, K::kChar),
       Field("position.X", "System.Single", 16, K::kSingle),
       Field("position.Y", "System.Single", 20, K::kSingle),
       Field("state", "Bubbles.BubbleState", 24, K::kEnum, K::kInt32, 0),
       Field("radius", "System.Double", 28, K::kDouble), Field("id", "System.Int64", 36, K::kInt64),
       Field("tint", "System.Byte", 44, K::kByte), Field("delta", "System.SByte", 45, K::kSByte),
       Field("layer", "System.Int16", 46, K::kInt16),
       Field("mask", "System.UInt16", 48, K::kUInt16),
       Field("flags", "System.UInt32", 50, K::kUInt32),
       Field("ticks", "System.UInt64", 54, K::kUInt64),
       Field("handle", "System.IntPtr", 62, K::kIntPtr)});
  const uint32_t str = h.Type(0x14, "System.String", TypeShape::kString);
  h.Type(0x15, "Bubbles.GameEvents", TypeShape::kClass, {},
         {{"Popped", "System.EventHandler"}, {"count", "System.Int32"}});
  const uint32_t handler = h.Type(0x16, "System.EventHandler", TypeShape::kClass,
                                  {Field("_target", "System.Object", 8, K::kReference),
                                   Field("_methodPtr", "System.IntPtr", 12, K::kIntPtr)});

  h.Object(0x1000, game, 24, {{0x1100, 0}}, Values().Put<int32_t>(1234).Put<uint8_t>(0).b);
  h.Object(0x1100, list, 20, {{0x1200, 0}}, Values().Put<int32_t>(2).b);
  h.Object(0x1200, arr, 32, {{0x1300, 0}, {0x1380, 2}}, HeapFields::EncodeArrayLength(4));
  auto bubble_values = [](bool alive, char16_t initial, float x, int32_t state, int64_t id) {
    return Values()
        .Put<uint8_t>(alive)
        .Put<uint16_t>(initial)
        .Put<float>(x)
        .Put<float>(2.5f)
        .Put<int32_t>(state)
        .Put<double>(0.125)
        .Put<int64_t>(id)
        .Put<uint8_t>(200)
        .Put<int8_t>(-3)
        .Put<int16_t>(-300)
        .Put<uint16_t>(65000)
        .Put<uint32_t>(4000000000u)
        .Put<uint64_t>(18000000000000000000ull)
        .Put<int64_t>(0x7f00)
        .b;
  };
  h.Object(0x1300, bubble, 72, {{0x1500, 0}}, bubble_values(true, u'A', 1.5f, 0, 40));
  h.Object(0x1340, bubble, 72, {{0x1540, 0}}, bubble_values(false, u'é', -1.0f, 1, 41));
  h.Object(0x1380, bubble, 72, {{0x1580, 0}}, bubble_values(true, u'Z', 0, 7, -42));
  h.Object(0x1500, str, 32, {}, StringBytes("Bubble 0", 8));
  h.Object(0x1540, str, 32, {}, StringBytes("Bubble 1", 8));
  h.Object(0x1580, str, 64, {}, StringBytes("Blase \xc3\xbc\xe2\x82\xac\xef\xbf\xbd", 20, true));
  h.Object(0x1600, handler, 24, {{0x1340, 0}}, Values().Put<int64_t>(0x6000001).b);
  h.Root(0x1000, RootKind::kLocal, 0, "in Bubbles.Game1.Update, thread 1");
  h.Root(0x1600, RootKind::kStatic, 0x15, "Bubbles.GameEvents.Popped");
  return h.Take();
}

}  // namespace xrpm::testing
