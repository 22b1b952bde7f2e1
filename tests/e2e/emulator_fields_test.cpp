// ctest-labels: threaded
// Fields and values of real emulator captures, decoded with the protocol library
// alone (field_capture.h): the agent over 127.0.0.1, the runtime played a fixed number of
// frames on the test thread, so the heap the test reads afterwards is the heap captured.
//
// Bubbles: every type's layout (Vector2 fields flattened to Position.X / Position.Y, declared
// types, Boolean IsAlive), each Bubble's values equal to what its fields hold in the emulated
// heap, its Name string "Bubble N", its Label "+<points>"; the static event
// GameEvents.BubblePopped named on its root and followed through _invocationList, element
// indices and _target to subscribed Bubbles; frame roots labelled with their methods. A
// string cap cuts text and keeps the length; --no-values keeps layouts and slots, no values.
#include <gtest/gtest.h>

#include <cstring>
#include <regex>
#include <set>

#include "field_capture.h"
#include "test_util.h"
#include "xrpm/emulator/game_loop.h"
#include "xrpm/emulator/runtime.h"
#include "xrpm/emulator/scenario.h"
#include "xrpm/protocol/constants.h"

namespace xrpm::testing {
namespace {

using emulator::GameLoop;
using emulator::LoopConfig;
using emulator::Runtime;
using protocol::FieldKind;
using protocol::kNoSlot;

emulator::RuntimeConfig FieldsSmallHeap() {
  emulator::RuntimeConfig c;
  c.heap_reserve_bytes = 256u << 20;
  return c;
}

// A runtime that played `frames` frames of a scenario on this thread, served by an agent.
struct Served {
  Runtime rt{FieldsSmallHeap()};
  std::unique_ptr<emulator::Scenario> scenario;
  GameLoop loop;
  LogSink log;
  std::unique_ptr<agent::Agent> agent;
  Served(emulator::ScenarioParams p, uint64_t frames)
      : scenario(emulator::MakeScenario(p)), loop(rt, *scenario, LoopConfig{0, frames}) {
    loop.Setup();
    loop.RunHere();
    agent = StartAgent(rt, log);
  }
  std::unique_ptr<RawPeer> peer;
  wire::Welcome welcome;
  // Captures on one connection (the agent serves one host).
  bool Capture(bool values, uint32_t cap, FieldCapture* out, std::string* error) {
    if (!peer) {
      peer = RawPeer::Connect(agent->port());
      if (!peer) return *error = "cannot connect", false;
      if (!HandshakeFields(*peer, &welcome, error)) return false;
    }
    return CaptureFields(*peer, welcome, values, cap, out, error);
  }
};

uint32_t FloatBits(float f) {
  uint32_t b;
  std::memcpy(&b, &f, 4);
  return b;
}

const protocol::RawField* Field(const protocol::RawLayout& l, const std::string& name) {
  for (const protocol::RawField& f : l.fields)
    if (f.name == name) return &f;
  return nullptr;
}

TEST(EmulatorFields, BubblesCarriesLayoutsValuesStringsAndLabels) {
  Served s({"bubbles", 3}, 240);
  ASSERT_TRUE(s.agent);
  FieldCapture c;
  std::string error;
  ASSERT_TRUE(s.Capture(true, 0, &c, &error)) << error;
  EXPECT_TRUE(c.welcome.capabilities() & wire::CAP_FIELDS);
  EXPECT_TRUE(c.welcome.capabilities() & wire::CAP_VALUES);
  EXPECT_TRUE(c.begin.fields());
  EXPECT_TRUE(c.begin.values());
  EXPECT_EQ(c.begin.string_cap(), protocol::kDefaultStringCap);
  EXPECT_EQ(c.end.fields_dropped(), 0u);
  EXPECT_EQ(c.layouts.size(), c.type_names.size());  // every type has its layout

  const emulator::TypeTable& types = s.rt.types();
  const uint32_t bubble = types.Find("Bubbles.Bubble");
  ASSERT_TRUE(c.layouts.count(bubble));
  const protocol::RawLayout& bl = c.layouts.at(bubble);
  EXPECT_EQ(bl.shape, protocol::TypeShape::kClass);
  std::vector<std::string> names;
  for (const auto& f : bl.fields) names.push_back(f.name);
  EXPECT_EQ(names, (std::vector<std::string>{"Position.X", "Position.Y", "Velocity.X", "Velocity.Y",
                                             "Radius", "Color", "Points", "Age", "Label", "Trail",
                                             "Handler", "Name", "IsAlive"}));
  ASSERT_NE(Field(bl, "Name"), nullptr);
  EXPECT_EQ(Field(bl, "Name")->kind, FieldKind::kReference);
  EXPECT_EQ(Field(bl, "Name")->type_name, "System.String");
  EXPECT_EQ(Field(bl, "IsAlive")->kind, FieldKind::kBoolean);
  EXPECT_EQ(Field(bl, "Position.Y")->offset, types.Offset(bubble, "Position") + 4u);
  EXPECT_EQ(Field(bl, "Position.Y")->type_name, "System.Single");
  const protocol::RawLayout& strings = c.layouts.at(types.Find("System.String"));
  EXPECT_EQ(strings.shape, protocol::TypeShape::kString);
  EXPECT_EQ(c.layouts.at(types.Find("Bubbles.Bubble[]")).element_kind, FieldKind::kReference);
  EXPECT_EQ(c.layouts.at(types.Find("System.Int32")).shape, protocol::TypeShape::kValueType);

  // Every Bubble: values as the heap holds them, its name and label as text.
  const std::regex bubble_name("Bubble [0-9]+");
  size_t bubbles = 0, alive = 0;
  std::set<uint64_t> bubble_ids;
  for (size_t i = 0; i < c.object_id.size(); ++i) {
    if (c.object_type[i] != bubble) continue;
    ++bubbles;
    const auto a = static_cast<emulator::Addr>(c.object_id[i]);
    bubble_ids.insert(a);
    uint64_t bits = 0;
    ASSERT_TRUE(c.Value(i, "Position.X", &bits));
    EXPECT_EQ(bits, FloatBits(s.rt.F32(a, types.Offset(bubble, "Position"))));
    ASSERT_TRUE(c.Value(i, "Velocity.Y", &bits));
    EXPECT_EQ(bits, FloatBits(s.rt.F32(a, types.Offset(bubble, "Velocity") + 4)));
    ASSERT_TRUE(c.Value(i, "Color", &bits));
    EXPECT_EQ(static_cast<int64_t>(bits), s.rt.I32(a, types.Offset(bubble, "Color")));
    ASSERT_TRUE(c.Value(i, "Points", &bits));
    const auto points = static_cast<int64_t>(bits);
    EXPECT_EQ(points, s.rt.I32(a, types.Offset(bubble, "Points")));
    ASSERT_TRUE(c.Value(i, "IsAlive", &bits));
    alive += bits;
    const uint64_t name = c.RefAt(i, c.FieldIndex(i, "Name"));
    ASSERT_TRUE(c.index.count(name)) << "Bubble without a Name reference";
    EXPECT_TRUE(std::regex_match(c.Text(c.index.at(name)), bubble_name))
        << c.Text(c.index.at(name));
    const uint64_t label = c.RefAt(i, c.FieldIndex(i, "Label"));
    ASSERT_TRUE(c.index.count(label));
    EXPECT_EQ(c.Text(c.index.at(label)), "+" + std::to_string(points));
  }
  EXPECT_GT(bubbles, 5u);
  EXPECT_EQ(alive, bubbles);  // no leak: popped bubbles unsubscribe and die

  // static GameEvents.BubblePopped -> _invocationList -> [k] -> _target -> Bubble, for every
  // live Bubble (each subscribes once).
  const uint32_t events = types.Find("Bubbles.GameEvents");
  uint64_t handler = 0;
  for (size_t r = 0; r < c.root_object.size(); ++r) {
    const protocol::RawContainer& k = c.containers.at(c.root_container[r]);
    if (k.kind == 11 && k.id1 == events) {
      ASSERT_NE(c.root_slot[r], kNoSlot);
      EXPECT_EQ(c.layouts.at(events).statics.at(c.root_slot[r]).name, "BubblePopped");
      handler = c.root_object[r];
    }
  }
  ASSERT_TRUE(c.index.count(handler)) << "no root for static GameEvents.BubblePopped";
  const size_t h = c.index.at(handler);
  const uint64_t list = c.RefAt(h, c.FieldIndex(h, "_invocationList"));
  ASSERT_TRUE(c.index.count(list));
  const size_t li = c.index.at(list);
  EXPECT_EQ(c.values[c.object_first_value[li]], bubbles);  // the array's length
  std::set<uint64_t> targets;
  for (uint64_t r = c.object_first_ref[li]; r < c.object_first_ref[li] + c.object_ref_count[li];
       ++r) {
    EXPECT_EQ(c.ref_slot[r], r - c.object_first_ref[li]);  // element indices, no nulls
    const size_t d = c.index.at(c.refs[r]);
    targets.insert(c.RefAt(d, c.FieldIndex(d, "_target")));
  }
  EXPECT_EQ(targets, bubble_ids);

  // Frame roots carry their method; Game1.Instance its static field.
  size_t frames = 0;
  for (size_t r = 0; r < c.root_object.size(); ++r) {
    const protocol::RawContainer& k = c.containers.at(c.root_container[r]);
    if (k.descriptor == 1) {
      ++frames;
      const emulator::MethodId m = s.rt.methods().FromWireId(k.id2);
      EXPECT_EQ(k.label, m == emulator::kNoMethod ? "" : s.rt.methods()[m].name);
      EXPECT_FALSE(k.label.empty()) << "frame container of method " << k.id2 << " unlabelled";
    }
  }
  EXPECT_GT(frames, 0u);
}

TEST(EmulatorFields, TheStringCapCutsTextAndKeepsTheLength) {
  Served s({"bubbles", 5}, 60);
  ASSERT_TRUE(s.agent);
  FieldCapture c;
  std::string error;
  ASSERT_TRUE(s.Capture(true, 3, &c, &error)) << error;
  EXPECT_EQ(c.begin.string_cap(), 3u);
  const uint32_t bubble = s.rt.types().Find("Bubbles.Bubble");
  size_t checked = 0;
  for (size_t i = 0; i < c.object_id.size(); ++i) {
    if (c.object_type[i] != bubble) continue;
    const uint64_t name = c.RefAt(i, c.FieldIndex(i, "Name"));
    uint64_t length = 0;
    EXPECT_EQ(c.Text(c.index.at(name), &length), "Bub");
    EXPECT_GE(length, 8u);  // "Bubble N"
    ++checked;
  }
  EXPECT_GT(checked, 0u);
}

TEST(EmulatorFields, NoValuesKeepsLayoutsAndSlotsAndCostsLess) {
  Served s({"bubbles", 7}, 120);
  ASSERT_TRUE(s.agent);
  FieldCapture with, without;
  std::string error;
  ASSERT_TRUE(s.Capture(true, 0, &with, &error)) << error;
  ASSERT_TRUE(s.Capture(false, 0, &without, &error)) << error;
  EXPECT_TRUE(without.begin.fields());
  EXPECT_FALSE(without.begin.values());
  EXPECT_TRUE(without.values.empty());
  EXPECT_TRUE(without.object_value_count.empty());
  EXPECT_EQ(without.layouts.size(), with.layouts.size());
  EXPECT_EQ(without.object_id, with.object_id);  // the same heap (nothing ran in between)
  EXPECT_EQ(without.ref_slot, with.ref_slot);
  EXPECT_EQ(without.root_slot, with.root_slot);
  EXPECT_LT(without.wire_bytes, with.wire_bytes);
}

TEST(EmulatorFields, SyntheticValuesAreTheScenariosOwn) {
  Served s({"synthetic", 7, 5000, 3, 16}, 2);
  ASSERT_TRUE(s.agent);
  FieldCapture c;
  std::string error;
  ASSERT_TRUE(s.Capture(true, 0, &c, &error)) << error;
  size_t checked = 0;
  for (size_t i = 0; i < c.object_id.size(); ++i) {
    const protocol::RawLayout* l = c.Layout(i);
    if (!l || c.TypeName(i).rfind("Synthetic.", 0) != 0) continue;
    const auto a = static_cast<emulator::Addr>(c.object_id[i]);
    for (const protocol::RawField& f : l->fields) {
      if (f.kind != FieldKind::kInt32) continue;
      uint64_t bits = 0;
      ASSERT_TRUE(c.Value(i, f.name, &bits));
      EXPECT_EQ(static_cast<int64_t>(bits), s.rt.I32(a, static_cast<uint16_t>(f.offset)));
      ++checked;
    }
    for (uint64_t r = c.object_first_ref[i]; r < c.object_first_ref[i] + c.object_ref_count[i]; ++r)
      EXPECT_EQ(l->fields.at(c.ref_slot[r]).kind, FieldKind::kReference);
  }
  EXPECT_GT(checked, 1000u);
}

}  // namespace
}  // namespace xrpm::testing
