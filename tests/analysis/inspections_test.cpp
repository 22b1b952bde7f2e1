// The automatic inspections (analysis/inspections.h) on the planted heap of
// tests/support/inspect_game.h: each finding, and the near-misses that must not be reported.
#include <gtest/gtest.h>

#include <algorithm>
#include <stdexcept>

#include "inspect_game.h"
#include "xrpm/analysis/inspections.h"

namespace xrpm::analysis {
namespace {

struct Heap {
  Snapshot snap = testing::MakeInspectGame();
  GraphIndex g = GraphIndex::Build(snap, {.reverse = false});  // inspections walk forward only
  std::vector<ObjectId> Ids(const Finding& f) const {
    std::vector<ObjectId> ids;
    for (uint32_t v : f.objects) ids.push_back(snap.object_id[v]);
    std::sort(ids.begin(), ids.end());
    return ids;
  }
};

const Inspection& Named(const std::vector<Inspection>& all, std::string_view name) {
  for (const Inspection& i : all)
    if (i.name == name) return i;
  throw std::runtime_error("no inspection " + std::string(name));
}

using V = std::vector<ObjectId>;

TEST(Inspections, CheckedFindingByFinding) {
  Heap h;
  const std::vector<Inspection> all = RunInspections(h.g);
  ASSERT_EQ(all.size(), 6u);
  for (const Inspection& i : all) EXPECT_FALSE(i.skipped) << i.name;

  const Inspection& dup = Named(all, "duplicate-strings");
  ASSERT_EQ(dup.findings.size(), 1u);  // "Solo" is held once
  EXPECT_EQ(dup.findings[0].what, "Score: ");
  EXPECT_EQ(dup.findings[0].count, 3u);
  EXPECT_EQ(dup.findings[0].bytes, 68u);  // all copies but one
  EXPECT_NE(dup.findings[0].path.find("Bubbles.Bubble.name"), std::string::npos)
      << dup.findings[0].path;

  const Inspection& ev = Named(all, "event-handler-leaks");
  ASSERT_EQ(ev.findings.size(), 1u);  // the third handler's target is held by the list too
  EXPECT_EQ(ev.findings[0].what, "static Bubbles.GameEvents.Popped -> Bubbles.Bubble");
  EXPECT_EQ(ev.findings[0].count, 2u);
  EXPECT_EQ(ev.findings[0].bytes, 48u);
  EXPECT_EQ(h.Ids(ev.findings[0]), (V{0x1700, 0x1710}));
  EXPECT_NE(ev.findings[0].path.find("_target"), std::string::npos) << ev.findings[0].path;

  const Inspection& disp = Named(all, "disposed-but-held");
  ASSERT_EQ(disp.findings.size(), 1u);
  EXPECT_EQ(disp.findings[0].what, "Microsoft.Xna.Framework.Graphics.Texture2D");
  EXPECT_EQ(h.Ids(disp.findings[0]), V{0x1800});
  EXPECT_EQ(disp.findings[0].bytes, 32u);

  const Inspection& sp = Named(all, "sparse-collections");
  ASSERT_EQ(sp.findings.size(), 2u);
  EXPECT_EQ(sp.findings[0].what, "System.Object[]");
  EXPECT_EQ(h.Ids(sp.findings[0]), V{0x1a00});
  EXPECT_EQ(sp.findings[0].bytes, 144u * 30 / 32);
  EXPECT_EQ(sp.findings[1].what, "System.Collections.Generic.List<System.String>");
  EXPECT_EQ(h.Ids(sp.findings[1]), V{0x1900});
  EXPECT_EQ(sp.findings[1].bytes, 80u);

  const Inspection& box = Named(all, "boxed-values");
  ASSERT_EQ(box.findings.size(), 1u);
  EXPECT_EQ(box.findings[0].what, "System.Int32");
  EXPECT_EQ(h.Ids(box.findings[0]), (V{0x1b00, 0x1b10}));
  EXPECT_EQ(box.findings[0].bytes, 24u);

  const Inspection& fin = Named(all, "finalizable");
  ASSERT_EQ(fin.findings.size(), 1u);
  EXPECT_EQ(h.Ids(fin.findings[0]), V{0x1800});
}

// With the capture's type finalizers, live objects of those types join the queue's, once each;
// an unreachable one (@1820, disposed and dropped) does not.
TEST(Inspections, FinalizableListsLiveObjectsOfTypesWithAFinalizer) {
  Heap h;
  for (TypeInfo& t : h.snap.types)
    t.has_finalizer = t.name == "Microsoft.Xna.Framework.Graphics.Texture2D";
  InspectOptions o;
  o.only = {"finalizable"};
  const std::vector<Inspection> all = RunInspections(h.g, o);
  const Inspection& fin = Named(all, "finalizable");
  ASSERT_EQ(fin.findings.size(), 1u);
  EXPECT_EQ(fin.findings[0].what, "Microsoft.Xna.Framework.Graphics.Texture2D");
  EXPECT_EQ(h.Ids(fin.findings[0]), (V{0x1800, 0x1810}));
  EXPECT_EQ(fin.findings[0].count, 2u);
  EXPECT_EQ(fin.findings[0].bytes, 64u);
}

// The lean index `xrpm inspect` builds (no copy of the references, no instance lists) finds
// exactly what a full index finds, paths with their fields included.
TEST(Inspections, LeanIndexFindsTheSameAsAFullOne) {
  Heap h;
  const GraphIndex full = GraphIndex::Build(h.snap);
  const GraphIndex lean =
      GraphIndex::Build(h.snap, {.reverse = false, .forward = false, .instances = false});
  EXPECT_FALSE(lean.has_forward());
  EXPECT_LT(lean.MemoryBytes(), full.MemoryBytes());
  for (uint32_t v = 0; v < full.node_count(); ++v) {
    std::vector<uint32_t> out;
    lean.ForEachOut(v, [&](uint32_t w) { out.push_back(w); });
    const auto want = full.Out(v);
    EXPECT_EQ(out, std::vector<uint32_t>(want.begin(), want.end())) << "node " << v;
    EXPECT_EQ(lean.OutCount(v), want.size());
    EXPECT_TRUE(lean.In(v).empty());
  }
  const std::vector<Inspection> a = RunInspections(full), b = RunInspections(lean);
  ASSERT_EQ(a.size(), b.size());
  for (size_t i = 0; i < a.size(); ++i) {
    SCOPED_TRACE(a[i].name);
    ASSERT_EQ(a[i].findings.size(), b[i].findings.size());
    for (size_t k = 0; k < a[i].findings.size(); ++k) {
      EXPECT_EQ(a[i].findings[k].what, b[i].findings[k].what);
      EXPECT_EQ(a[i].findings[k].count, b[i].findings[k].count);
      EXPECT_EQ(a[i].findings[k].bytes, b[i].findings[k].bytes);
      EXPECT_EQ(a[i].findings[k].path, b[i].findings[k].path);
      EXPECT_EQ(a[i].findings[k].objects, b[i].findings[k].objects);
    }
  }
  // The event-handler leak's path still names the fields along it (found again per step).
  const Inspection& ev = Named(b, "event-handler-leaks");
  ASSERT_EQ(ev.findings.size(), 1u);
  EXPECT_NE(ev.findings[0].path.find("._invocationList"), std::string::npos) << ev.findings[0].path;
}

TEST(Inspections, WithoutValuesThoseNeedingValuesAreSkipped) {
  Heap h;
  h.snap.fields.values.clear();
  const std::vector<Inspection> all = RunInspections(h.g);
  EXPECT_TRUE(Named(all, "duplicate-strings").skipped);
  EXPECT_TRUE(Named(all, "disposed-but-held").skipped);
  EXPECT_TRUE(Named(all, "sparse-collections").skipped);
  const Inspection& ev = Named(all, "event-handler-leaks");
  EXPECT_FALSE(ev.skipped);  // field slots are enough
  ASSERT_EQ(ev.findings.size(), 1u);
  EXPECT_EQ(ev.findings[0].count, 2u);
  EXPECT_EQ(Named(all, "boxed-values").findings.size(), 1u);
  EXPECT_EQ(Named(all, "finalizable").findings.size(), 1u);
}

TEST(Inspections, BoxedValueTypesComeFromTheLayoutsNotOnlyNames) {
  InspectOptions o;
  o.only = {"boxed-values"};
  auto boxed_what = [&](Snapshot& snap) {
    const GraphIndex g = GraphIndex::Build(snap, {.reverse = false});
    const auto all = RunInspections(g, o);
    return all[0].findings.empty() ? std::string() : all[0].findings[0].what;
  };
  auto type_of = [](Snapshot& snap, std::string_view name) -> uint32_t {
    for (uint32_t t = 0; t < snap.type_count(); ++t)
      if (snap.types[t].name == name) return t;
    return kNoIndex;
  };
  // A game's own primitive-like box: one non-reference m_value field.
  Snapshot a = testing::MakeInspectGame();
  const uint32_t box = type_of(a, "System.Int32");
  ASSERT_NE(box, kNoIndex);
  a.types[box].name = "Game.Score";
  EXPECT_EQ(boxed_what(a), "Game.Score");
  // Not that shape, and no field stores it inline: an ordinary class.
  a.fields.layouts[box].fields[0].name = "points";
  EXPECT_EQ(boxed_what(a), "");
  // A field that stores Game.Score inline makes it a value type.
  const uint32_t bubble = type_of(a, "Bubbles.Bubble");
  FieldLayout inline_score = a.fields.layouts[box].fields[0];
  inline_score.name = "best";
  inline_score.type_name = "Game.Score";
  a.fields.layouts[bubble].fields.push_back(inline_score);
  EXPECT_EQ(boxed_what(a), "Game.Score");
}

// With type traits (a capture that says what each type is) the runtime's word decides: a
// struct no field declares is boxed, a class shaped like a box is not, and nothing says it
// guessed. Without traits the inspection guesses and says so in its note.
TEST(Inspections, BoxedValuesFollowTheRuntimesTraitsWhenTheSnapshotHasThem) {
  InspectOptions o;
  o.only = {"boxed-values", "sparse-collections"};
  Snapshot a = testing::MakeInspectGame();
  auto run = [&] {
    const GraphIndex g = GraphIndex::Build(a, {.reverse = false});
    return RunInspections(g, o);
  };
  auto type_of = [&](std::string_view name) -> uint32_t {
    for (uint32_t t = 0; t < a.type_count(); ++t)
      if (a.types[t].name == name) return t;
    return kNoIndex;
  };
  const uint32_t box = type_of("System.Int32"), bubble = type_of("Bubbles.Bubble");
  ASSERT_NE(box, kNoIndex);
  ASSERT_NE(bubble, kNoIndex);
  {  // no traits: names and layouts (Int32 by name), and a note saying so
    const auto all = run();
    const Inspection& boxed = Named(all, "boxed-values");
    ASSERT_EQ(boxed.findings.size(), 1u);
    EXPECT_EQ(boxed.findings[0].what, "System.Int32");
    EXPECT_NE(boxed.note.find("no type traits"), std::string::npos) << boxed.note;
    EXPECT_NE(Named(all, "sparse-collections").note.find("no type traits"), std::string::npos);
  }
  // Traits for every type: classes, except Bubble said a value type (no field declares it).
  for (TypeInfo& t : a.types) t.traits.kind = TypeKind::kClass;
  for (uint32_t t = 0; t < a.type_count(); ++t)
    if (a.types[t].name.ends_with("[]")) {
      a.types[t].traits.kind = TypeKind::kArray;
      a.types[t].traits.array_rank = 1;
      a.types[t].traits.element_type = a.types[t].name.substr(0, a.types[t].name.size() - 2);
    }
  a.types[bubble].traits.kind = TypeKind::kValueType;
  {
    const auto all = run();
    const Inspection& boxed = Named(all, "boxed-values");
    ASSERT_EQ(boxed.findings.size(), 1u);  // System.Int32 is a class now: the runtime said so
    EXPECT_EQ(boxed.findings[0].what, "Bubbles.Bubble");
    EXPECT_TRUE(boxed.note.empty()) << boxed.note;
    const Inspection& sparse = Named(all, "sparse-collections");
    EXPECT_TRUE(sparse.note.empty()) << sparse.note;
    EXPECT_EQ(sparse.findings.size(), 2u);  // the same as by names: Object[] and the List
  }
  // An enum is a value type too.
  a.types[bubble].traits.kind = TypeKind::kClass;
  a.types[box].traits.kind = TypeKind::kEnum;
  a.types[box].traits.enum_underlying = "System.Int32";
  const auto all = run();
  ASSERT_EQ(Named(all, "boxed-values").findings.size(), 1u);
  EXPECT_EQ(Named(all, "boxed-values").findings[0].what, "System.Int32");
  // A two-dimensional array of references is no sparse array of references.
  const uint32_t objects = type_of("System.Object[]");
  ASSERT_NE(objects, kNoIndex);
  a.types[objects].traits.array_rank = 2;
  const auto two = run();
  for (const Finding& f : Named(two, "sparse-collections").findings)
    EXPECT_NE(f.what, "System.Object[]");
}

TEST(Inspections, OnlyThresholdsAndUnknownNames) {
  Heap h;
  InspectOptions o;
  o.only = {"sparse-collections"};
  o.sparse_ratio = 0.35;  // now the 5-of-16 list and array count too
  const std::vector<Inspection> all = RunInspections(h.g, o);
  ASSERT_EQ(all.size(), 1u);
  EXPECT_EQ(all[0].total_count, 4u);
  o.only = {"nope"};
  EXPECT_THROW(RunInspections(h.g, o), std::invalid_argument);
}

TEST(Inspections, DiffShowsWhatIsNewOrGrew) {
  Heap before;
  InspectOptions o;
  o.only = {"boxed-values", "duplicate-strings"};
  const auto b = RunInspections(before.g, o);
  auto later = b;
  later[0].findings[0].count += 2;  // three more copies of "Score: "
  later[0].findings[0].bytes += 68;
  const auto d = DiffInspections(b, later);
  ASSERT_EQ(d.size(), 2u);
  ASSERT_EQ(d[0].findings.size(), 1u);
  EXPECT_EQ(d[0].findings[0].count, 2u);
  EXPECT_EQ(d[0].findings[0].bytes, 68u);
  EXPECT_TRUE(d[1].findings.empty());  // boxed values did not grow
}

}  // namespace
}  // namespace xrpm::analysis
