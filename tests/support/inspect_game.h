// A small game heap that plants each problem the automatic inspections look for a
// known number of times, plus the near-misses that must not be reported:
//
//   duplicate-strings   "Score: " x3 (Bubble.name), near-miss "Solo" x1
//   event-handler-leaks static Bubbles.GameEvents.Popped -> EventHandler ._invocationList ->
//                       Delegate[] -> 3 EventHandler; two targets (Bubble@1700, @1710) held only
//                       there, near-miss: the third's target Bubble@1300 is also in Game1.bubbles
//   disposed-but-held   Texture2D@1800 (isDisposed, held); near-misses @1810 (not disposed),
//                       @1820 (disposed, unreachable)
//   sparse-collections  List<String>@1900 empty of 16, Object[]@1a00 2 of 32; near-misses
//                       List<String>@1920 5 of 16 (31 %), Object[]@1a10 5 of 16, Bubble[] 3 of 4
//   boxed-values        System.Int32@1b00, @1b10 (in the Object[]); near-miss @1b20 unreachable
//   finalizable         Texture2D@1800 on the finalizer queue
//
// Thread-safety: plain functions over values.
#pragma once

#include "fields_game.h"

namespace xrpm::testing {

inline Snapshot MakeInspectGame() {
  FieldsHeapBuilder h;
  h.s.fields.values_captured = true;
  h.s.fields.string_cap = 1024;
  using K = FieldKind;
  const uint32_t game = h.Type(
      0x10, "Bubbles.Game1", TypeShape::kClass,
      {Field("bubbles", "List", 8, K::kReference), Field("title", "String", 12, K::kReference),
       Field("tex", "Texture2D", 16, K::kReference), Field("empty", "List", 20, K::kReference),
       Field("partial", "List", 24, K::kReference), Field("bag", "Object[]", 28, K::kReference),
       Field("bag2", "Object[]", 32, K::kReference)});
  const uint32_t list =
      h.Type(0x11, "System.Collections.Generic.List`1<Bubbles.Bubble>", TypeShape::kClass,
             {Field("_items", "Bubbles.Bubble[]", 8, K::kReference),
              Field("_size", "System.Int32", 12, K::kInt32)});
  const uint32_t slist =
      h.Type(0x12, "System.Collections.Generic.List`1<System.String>", TypeShape::kClass,
             {Field("_items", "System.String[]", 8, K::kReference),
              Field("_size", "System.Int32", 12, K::kInt32)});
  const uint32_t barr = h.Type(0x13, "Bubbles.Bubble[]", TypeShape::kArray);
  const uint32_t sarr = h.Type(0x14, "System.String[]", TypeShape::kArray);
  const uint32_t oarr = h.Type(0x15, "System.Object[]", TypeShape::kArray);
  const uint32_t bubble = h.Type(0x16, "Bubbles.Bubble", TypeShape::kClass,
                                 {Field("name", "System.String", 8, K::kReference),
                                  Field("IsAlive", "System.Boolean", 12, K::kBoolean)});
  const uint32_t str = h.Type(0x17, "System.String", TypeShape::kString);
  h.Type(0x18, "Bubbles.GameEvents", TypeShape::kClass, {}, {{"Popped", "System.EventHandler"}});
  const uint32_t handler = h.Type(0x19, "System.EventHandler", TypeShape::kClass,
                                  {Field("_target", "System.Object", 8, K::kReference),
                                   Field("_invocationList", "System.Object", 12, K::kReference)});
  const uint32_t darr = h.Type(0x1a, "System.Delegate[]", TypeShape::kArray);
  const uint32_t tex = h.Type(0x1b, "Microsoft.Xna.Framework.Graphics.Texture2D", TypeShape::kClass,
                              {Field("isDisposed", "System.Boolean", 8, K::kBoolean)});
  const uint32_t boxed = h.Type(0x1c, "System.Int32", TypeShape::kClass,
                                {Field("m_value", "System.Int32", 8, K::kInt32)});

  auto len = [](uint32_t n) { return HeapFields::EncodeArrayLength(n); };
  auto i32 = [](int32_t v) { return Values().Put<int32_t>(v).b; };
  auto b8 = [](bool v) { return Values().Put<uint8_t>(v ? 1 : 0).b; };
  h.Object(0x1000, game, 40,
           {{0x1100, 0},
            {0x1530, 1},
            {0x1800, 2},
            {0x1810, 2},
            {0x1900, 3},
            {0x1920, 4},
            {0x1a00, 5},
            {0x1a10, 6}},
           {});
  h.Object(0x1100, list, 20, {{0x1200, 0}}, i32(3));
  h.Object(0x1200, barr, 32, {{0x1300, 0}, {0x1310, 1}, {0x1320, 2}}, len(4));
  h.Object(0x1300, bubble, 24, {{0x1500, 0}}, b8(true));
  h.Object(0x1310, bubble, 24, {{0x1510, 0}}, b8(true));
  h.Object(0x1320, bubble, 24, {{0x1520, 0}}, b8(true));
  for (ObjectId id : {0x1500, 0x1510, 0x1520}) h.Object(id, str, 34, {}, StringBytes("Score: ", 7));
  h.Object(0x1530, str, 28, {}, StringBytes("Solo", 4));
  h.Object(0x1600, handler, 24, {{0x1610, 1}}, {});
  h.Object(0x1610, darr, 28, {{0x1620, 0}, {0x1630, 1}, {0x1640, 2}}, len(3));
  h.Object(0x1620, handler, 24, {{0x1700, 0}}, {});
  h.Object(0x1630, handler, 24, {{0x1710, 0}}, {});
  h.Object(0x1640, handler, 24, {{0x1300, 0}}, {});
  h.Object(0x1700, bubble, 24, {}, b8(false));
  h.Object(0x1710, bubble, 24, {}, b8(false));
  h.Object(0x1800, tex, 32, {}, b8(true));
  h.Object(0x1810, tex, 32, {}, b8(false));
  h.Object(0x1820, tex, 32, {}, b8(true));
  h.Object(0x1900, slist, 20, {{0x1910, 0}}, i32(0));
  h.Object(0x1910, sarr, 80, {}, len(16));
  h.Object(0x1920, slist, 20, {{0x1930, 0}}, i32(5));
  h.Object(0x1930, sarr, 80, {{0x1530, 0}, {0x1530, 1}, {0x1530, 2}, {0x1530, 3}, {0x1530, 4}},
           len(16));
  h.Object(0x1a00, oarr, 144, {{0x1b00, 0}, {0x1b10, 1}}, len(32));
  h.Object(0x1a10, oarr, 80, {{0x1b00, 0}, {0x1b00, 1}, {0x1b00, 2}, {0x1b00, 3}, {0x1b00, 4}},
           len(16));
  h.Object(0x1b00, boxed, 12, {}, i32(7));
  h.Object(0x1b10, boxed, 12, {}, i32(8));
  h.Object(0x1b20, boxed, 12, {}, i32(9));
  h.Root(0x1000, RootKind::kLocal, 0, "in Bubbles.Game1.Update, thread 1");
  h.Root(0x1600, RootKind::kStatic, 0x18, "Bubbles.GameEvents.Popped");
  h.Root(0x1800, RootKind::kFinalizer, 0, "");
  return h.Take();
}

}  // namespace xrpm::testing
