// ctest-labels: threaded
// The scenarios as a user sees them through the ground-truth dump: every root descriptor and
// flag in a bubbles dump, realistic types, the leak growing, synthetic determinism, and a GC
// stress run that would catch any address held across an allocation.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <set>
#include <unordered_map>

#include "xrpm/emulator/game_loop.h"
#include "xrpm/emulator/ground_truth.h"
#include "xrpm/emulator/runtime.h"
#include "xrpm/emulator/scenario.h"

namespace xrpm::emulator {
namespace {

struct Device {
  Runtime rt;
  std::unique_ptr<Scenario> scenario;
  GameLoop loop;
  Device(ScenarioParams p, uint64_t frames, RuntimeConfig c = {})
      : rt(WithHeap(c)), scenario(MakeScenario(p)), loop(rt, *scenario, LoopConfig{0, frames}) {
    loop.Setup();
  }
  static RuntimeConfig WithHeap(RuntimeConfig c) {
    c.heap_reserve_bytes = std::min<uint64_t>(c.heap_reserve_bytes, 512u << 20);
    return c;
  }
  Snapshot RunAndDump() {
    loop.RunHere();
    return DumpToSnapshot(rt);
  }
};

size_t CountType(const Snapshot& s, const std::string& name) {
  size_t n = 0;
  for (size_t i = 0; i < s.object_count(); ++i) n += s.type_name_of(i) == name;
  return n;
}

// Every reference and root names an object of the snapshot; every type id is described.
void ExpectClosed(const Snapshot& s) {
  std::set<ObjectId> ids(s.object_id.begin(), s.object_id.end());
  ASSERT_EQ(ids.size(), s.object_count()) << "object ids are unique";
  for (ObjectId r : s.refs) ASSERT_TRUE(ids.count(r)) << std::hex << r;
  for (ObjectId r : s.root_object) ASSERT_TRUE(ids.count(r)) << std::hex << r;
  for (const TypeInfo& t : s.types) ASSERT_FALSE(t.placeholder) << t.id;
}

TEST(Bubbles, DumpHasEveryRootDescriptorAndFlag) {
  Device d({"bubbles", 1}, 600);
  Snapshot s = d.RunAndDump();
  ExpectClosed(s);
  ASSERT_EQ(s.sections.size(), 1u);
  EXPECT_EQ(s.sections[0].name, "bubbles.exe");
  EXPECT_TRUE(s.sections[0].closed);
  ASSERT_TRUE(s.sections[0].start_ms && s.sections[0].end_ms);
  EXPECT_LE(*s.sections[0].start_ms, *s.sections[0].end_ms);

  std::set<int> kinds;
  uint8_t flags = 0;
  std::unordered_map<TypeId, size_t> type_by_id;
  for (size_t i = 0; i < s.type_count(); ++i) type_by_id[s.types[i].id] = i;
  std::set<std::string> static_classes;
  for (size_t r = 0; r < s.root_count(); ++r) {
    kinds.insert(s.root_kind[r]);
    flags |= s.root_flags[r];
    if (s.root_kind_of(r) == RootKind::kStatic) {
      ASSERT_TRUE(type_by_id.count(s.root_container[r]));
      static_classes.insert(s.types[type_by_id[s.root_container[r]]].name);
    }
    ASSERT_NE(s.root_origin[r], kNoIndex);
  }
  EXPECT_EQ(kinds, (std::set<int>{0, 1, 2, 3, 4, 5}));
  EXPECT_EQ(flags, kRootFlagPinned | kRootFlagWeak | kRootFlagInterior);
  EXPECT_TRUE(static_classes.count("Bubbles.Game1"));
  EXPECT_TRUE(static_classes.count("Bubbles.GameEvents"));
  EXPECT_TRUE(static_classes.count("Microsoft.Xna.Framework.Vector2"));

  for (const char* name :
       {"System.String", "System.Object[]", "System.Int32[]",
        "System.Collections.Generic.List<Bubbles.Bubble>", "Bubbles.Game1", "Bubbles.Bubble",
        "Bubbles.ScoreBoard", "System.EventHandler<Bubbles.PoppedEventArgs>",
        "Microsoft.Xna.Framework.Graphics.Texture2D", "System.AppDomain"})
    EXPECT_GT(CountType(s, name), 0u) << name;
  EXPECT_EQ(CountType(s, "Bubbles.Game1"), 1u);

  std::set<std::string> origins(s.root_origins.begin(), s.root_origins.end());
  for (const char* o :
       {"thread 1 (Main) / Microsoft.Xna.Framework.Game.Tick",
        "thread 1 (Main) / Microsoft.Xna.Framework.Graphics.GraphicsDevice.Present (native)",
        "thread 3 (AudioStreamer) / Bubbles.NativeMethods.XAudioSubmitBuffer (native)",
        "static Bubbles.Game1", "GC handle table", "finalizer queue"})
    EXPECT_TRUE(origins.count(o)) << o;
}

TEST(Bubbles, SizesFollowTheNetcfLayout) {
  Device d({"bubbles", 3}, 120);
  Snapshot s = d.RunAndDump();
  for (size_t i = 0; i < s.object_count(); ++i) {
    const std::string& t = s.type_name_of(i);
    uint32_t size = s.object_size[i];
    EXPECT_EQ(size % 4, 0u) << t;
    if (t == "System.Object") {
      EXPECT_EQ(size, 8u);
    } else if (t == "System.Int32") {
      EXPECT_EQ(size, 12u);  // boxed: header + value
    } else if (t == "Microsoft.Xna.Framework.Vector2") {
      EXPECT_EQ(size, 16u);
    } else if (t == "Bubbles.Bubble") {
      EXPECT_EQ(size,
                8u + 8 + 8 + 4 * 4 + 4 * 4 + 4);  // header, 2 Vector2, 4 scalars, 4 refs, a bool
    } else if (t == "System.String") {
      EXPECT_GE(size, 16u);
    }
  }
}

TEST(Bubbles, GcStressFindsNoStaleAddress) {
  // Every allocation collects and compacts, and freed memory is poisoned: any address a
  // scenario kept in C++ across an allocation would now point into garbage.
  RuntimeConfig c;
  c.gc_stress = true;
  Runtime rt(c);
  auto scenario = MakeScenario({"bubbles", 5});
  {
    MutatorScope m(rt.world());
    scenario->Setup(rt);
  }
  ASSERT_EQ(rt.VerifyHeap(), "");
  for (uint64_t f = 0; f < 150; ++f) {
    rt.BeginFrame();
    scenario->Frame(rt, f, 1.0 / 60);
    rt.EndFrame();
    ASSERT_EQ(rt.VerifyHeap(), "") << "frame " << f;
  }
  EXPECT_GT(rt.gc().collections(), 1000u);
}

TEST(Bubbles, IdsChangeBetweenSnapshots) {
  Device d({"bubbles", 2}, 300);
  Snapshot first = d.RunAndDump();
  // Follow the youngest bubble with a GC handle of our own: Game1.Instance.bubbles._items[n-1].
  // Older objects that were live at the first dump (particles, strings) die in the meantime,
  // so the second dump's compaction slides it down.
  Runtime& rt = d.rt;
  const TypeIndex game1 = rt.types().Find("Bubbles.Game1");
  Addr game = kNull;
  for (const StaticSlot& s : rt.statics().slots())
    if (s.owner == game1 && s.name == "Instance") game = s.value;
  ASSERT_NE(game, kNull);
  Addr list = rt.Ref(game, rt.types().Offset(game1, "bubbles"));
  ASSERT_GT(rt.I32(list, 12), 0);
  const auto n = static_cast<uint32_t>(rt.I32(list, 12));
  uint32_t h = rt.handles().Alloc(rt.Elem(rt.Ref(list, 8), n - 1), HandleType::kNormal);
  const Addr before = rt.handles().Target(h);

  GameLoop more(rt, *d.scenario, LoopConfig{0, 420});  // 420 more frames
  more.RunHere();
  Snapshot second = DumpToSnapshot(rt);
  const Addr after = rt.handles().Target(h);
  auto type_of = [](const Snapshot& s, ObjectId id) -> std::string {
    for (size_t i = 0; i < s.object_count(); ++i)
      if (s.object_id[i] == id) return s.type_name_of(i);
    return "";
  };
  EXPECT_EQ(type_of(first, before), "Bubbles.Bubble");
  EXPECT_EQ(type_of(second, after), "Bubbles.Bubble");
  EXPECT_NE(before, after) << "the compacting collection moved the bubble";
  EXPECT_GT(rt.counters().Total(Counter::kObjectsMovedByCompactor), 0);
}

TEST(Leak, HeapGrowsAndTheEventHoldsTheBubbles) {
  Device leak({"leak", 1}, 1200);
  Device fine({"bubbles", 1}, 1200);
  Snapshot l = leak.RunAndDump();
  Snapshot f = fine.RunAndDump();
  EXPECT_GT(CountType(l, "Bubbles.Bubble"), CountType(f, "Bubbles.Bubble") + 40);
  EXPECT_GT(l.total_bytes(), f.total_bytes() + 10000);

  // The path: static Bubbles.GameEvents -> EventHandler (multicast) -> Object[] -> EventHandler
  // -> Bubble.
  std::unordered_map<ObjectId, size_t> index;
  for (size_t i = 0; i < l.object_count(); ++i) index[l.object_id[i]] = i;
  const std::string handler = "System.EventHandler<Bubbles.PoppedEventArgs>";
  size_t reached = 0;
  for (size_t r = 0; r < l.root_count(); ++r) {
    if (l.root_kind_of(r) != RootKind::kStatic) continue;
    size_t ev = index[l.root_object[r]];
    if (l.type_name_of(ev) != handler) continue;
    for (ObjectId list : l.object_refs(ev)) {
      if (l.type_name_of(index[list]) != "System.Object[]") continue;
      for (ObjectId h : l.object_refs(index[list]))
        for (ObjectId target : l.object_refs(index[h]))
          reached += l.type_name_of(index[target]) == "Bubbles.Bubble";
    }
  }
  EXPECT_GT(reached, 50u);
  EXPECT_GT(leak.rt.counters().Total(Counter::kManagedBytesInUseAfterGc),
            fine.rt.counters().Total(Counter::kManagedBytesInUseAfterGc));
}

TEST(Synthetic, SameSeedSameHeapOtherSeedOtherHeap) {
  auto dump = [](uint64_t seed) {
    Device d({"synthetic", seed, 20000, 3, 16}, 40);
    Snapshot s = d.RunAndDump();
    for (auto& sec : s.sections) sec.start_ms = sec.end_ms = std::nullopt;
    return s;
  };
  Snapshot a = dump(7), b = dump(7), c = dump(8);
  EXPECT_TRUE(a == b);
  EXPECT_FALSE(a == c);
  ExpectClosed(a);
  EXPECT_GE(a.object_count(), 20000u);
  EXPECT_GE(a.ref_count(), 60000u);
  size_t synthetic_types = 0;
  for (const TypeInfo& t : a.types) synthetic_types += t.name.rfind("Synthetic.", 0) == 0;
  EXPECT_EQ(synthetic_types, 17u);  // 16 node types + Synthetic.Heap
}

TEST(Synthetic, BuildsLargeHeapsCompactly) {
  Device d({"synthetic", 1, 300000, 3, 64}, 0);
  // 300k objects of 20..32 bytes: the heap holds them back to back.
  EXPECT_LT(d.rt.heap().used_bytes(), 300000u * 33);
  EXPECT_GT(d.rt.heap().used_bytes(), 300000u * 20);
  GcResult r = d.rt.gc().Collect(GcReason::kCapture, true);
  EXPECT_GE(r.live_objects, 300000u);  // everything is reachable through the chain
  EXPECT_EQ(r.moved_objects, 0u);      // nothing died, so nothing moves
}

}  // namespace
}  // namespace xrpm::emulator
