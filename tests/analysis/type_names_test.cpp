// The analysis keys every name rule on canonical type names (xrpm/model/type_name.h): Mono's
// List<int> is a List to sparse-collections, one generic type written by two sources is one row
// of a diff and one group of an index, and lookups take either form.
#include <gtest/gtest.h>

#include "fields_game.h"
#include "heap_builder.h"
#include "xrpm/analysis/diff.h"
#include "xrpm/analysis/heap_analysis.h"
#include "xrpm/analysis/inspections.h"

namespace xrpm::analysis {
namespace {

using testing::Field;
using testing::FieldsHeapBuilder;
using testing::HeapBuilder;
using testing::Values;

// What xrpm-mono captures of `var l = new List<int>(4096)` nine times (mono_type_get_name's
// names; Mono's corefx fields), plus a Dictionary<string, int>(4096) left empty and the near
// misses: a List<int> of 4096 holding 4000, a Dictionary holding 4000.
Snapshot MonoCollections() {
  FieldsHeapBuilder h;
  h.s.fields.values_captured = true;
  using K = FieldKind;
  const uint32_t list =
      h.Type(0x10, "System.Collections.Generic.List<System.Int32>", TypeShape::kClass,
             {Field("_items", "System.Int32[]", 8, K::kReference),
              Field("_size", "System.Int32", 16, K::kInt32),
              Field("_version", "System.Int32", 20, K::kInt32)});
  const uint32_t ints = h.Type(0x11, "System.Int32[]", TypeShape::kArray);
  const uint32_t dict = h.Type(
      0x12, "System.Collections.Generic.Dictionary<System.String,System.Int32>", TypeShape::kClass,
      {Field("_buckets", "System.Int32[]", 8, K::kReference),
       Field("_entries",
             "System.Collections.Generic.Dictionary.Entry<System.String,System.Int32>[]", 16,
             K::kReference),
       Field("_count", "System.Int32", 24, K::kInt32),
       Field("_freeCount", "System.Int32", 28, K::kInt32)});
  auto i32 = [](std::initializer_list<int32_t> vs) {
    Values v;
    for (int32_t x : vs) v.Put<int32_t>(x);
    return v.b;
  };
  auto len = [](uint32_t n) { return HeapFields::EncodeArrayLength(n); };
  ObjectId id = 0x10000;
  for (int i = 0; i < 10; ++i, id += 0x10000) {
    const int32_t size = i < 9 ? 0 : 4000;  // the tenth is nearly full
    h.Object(id, list, 32, {{id + 0x100, 0}}, i32({size, 1}));
    h.Object(id + 0x100, ints, 16400, {}, len(4096));
    h.Root(id, RootKind::kLocal, 0, "");
  }
  for (int32_t count : {0, 4000}) {
    h.Object(id, dict, 40, {{id + 0x100, 0}}, i32({count, 0}));
    h.Object(id + 0x100, ints, 16400, {}, len(4096));
    h.Root(id, RootKind::kLocal, 0, "");
    id += 0x10000;
  }
  return h.Take();
}

TEST(TypeNames, SparseCollectionsFindsMonoNamedCollections) {
  const Snapshot s = MonoCollections();
  const GraphIndex g = GraphIndex::Build(s, {.reverse = false});
  InspectOptions o;
  o.only = {"sparse-collections"};
  const std::vector<Inspection> all = RunInspections(g, o);
  ASSERT_EQ(all.size(), 1u);
  ASSERT_FALSE(all[0].skipped);
  ASSERT_EQ(all[0].findings.size(), 2u);
  EXPECT_EQ(all[0].findings[0].what, "System.Collections.Generic.List<System.Int32>");
  EXPECT_EQ(all[0].findings[0].count, 9u);  // not the nearly full tenth
  EXPECT_EQ(all[0].findings[0].bytes, 9u * 16400);
  EXPECT_EQ(all[0].findings[1].what,
            "System.Collections.Generic.Dictionary<System.String, System.Int32>");
  EXPECT_EQ(all[0].findings[1].count, 1u);
  // The arrays backing them are counted with their collections, not as arrays of their own.
  EXPECT_EQ(all[0].total_count, 10u);
}

// The NETCF runtime's .gclog and a Mono capture of the same program: one row per type.
Snapshot Bubbles(bool netcf, int bubbles) {
  HeapBuilder h(netcf ? "bubbles.exe" : "Bubbles.exe");
  const std::string list =
      netcf ? "System.Collections.Generic.List`1[[Bubbles.Bubble, Bubbles, Version=1.0.0.0, "
              "Culture=neutral, PublicKeyToken=null]]"
            : "System.Collections.Generic.List<Bubbles.Bubble>";
  const std::string dict =
      netcf ? "System.Collections.Generic.Dictionary`2[[System.String, mscorlib],"
              "[Microsoft.Xna.Framework.Graphics.Texture2D, Microsoft.Xna.Framework]]"
            : "System.Collections.Generic.Dictionary<System.String,"
              "Microsoft.Xna.Framework.Graphics.Texture2D>";
  std::vector<ObjectId> items;
  for (int i = 0; i < bubbles; ++i) {
    const ObjectId list_id = 0x2000 + 0x100 * static_cast<ObjectId>(i);
    items.push_back(list_id);
    h.Obj(list_id, list, 24, {list_id + 0x10});
    h.Obj(list_id + 0x10, "Bubbles.Bubble", 32);
  }
  h.Obj(0x1000, "Bubbles.Game1", 40, items);
  h.Obj(0x1100, dict, 48);
  h.Root(0x1000).Root(0x1100);
  Snapshot s = h.Build();
  s.source = netcf ? "bubbles.gclog" : "bubbles.xrpm";
  return s;
}

const TypeSeries* Row(const HeapDiff& d, const std::string& name) {
  for (const auto& r : d.rows)
    if (r.name == name) return &r;
  return nullptr;
}

TEST(TypeNames, DiffMatchesOneGenericTypeWrittenByTwoSources) {
  const Snapshot a = Bubbles(true, 2), b = Bubbles(false, 5);
  const HeapAnalysis aa = HeapAnalysis::Run(a), ab = HeapAnalysis::Run(b);
  const std::vector<HeapSummary> sums{Summarize(aa), Summarize(ab)};
  const HeapDiff d = DiffSummaries(sums);
  EXPECT_EQ(d.rows.size(), 4u);  // Game1, Bubble, the list and the dictionary: no duplicates
  const TypeSeries* list = Row(d, "System.Collections.Generic.List<Bubbles.Bubble>");
  ASSERT_TRUE(list);
  EXPECT_TRUE(list->present[0] && list->present[1]);
  EXPECT_EQ(list->count_delta, 3);
  EXPECT_FALSE(list->is_new);
  const TypeSeries* dict = Row(d,
                               "System.Collections.Generic.Dictionary<System.String, "
                               "Microsoft.Xna.Framework.Graphics.Texture2D>");
  ASSERT_TRUE(dict);
  EXPECT_EQ(dict->count_delta, 0);
  EXPECT_FALSE(dict->is_new || dict->vanished);
}

TEST(TypeNames, IndexGroupsAndFindsEitherForm) {
  // Two AppDomains of one capture whose types came written in two forms.
  HeapBuilder h;
  h.Obj(0x10, "System.Collections.Generic.List`1[Bubbles.Bubble]", 24)
      .Obj(0x20, "System.Collections.Generic.List<Bubbles.Bubble>", 24)
      .Root(0x10)
      .Root(0x20);
  const Snapshot s = h.Build();
  const GraphIndex g = GraphIndex::Build(s);
  ASSERT_EQ(g.group_count(), 1u);
  EXPECT_EQ(g.group_size(0), 2u);
  EXPECT_EQ(g.group_name(0), "System.Collections.Generic.List<Bubbles.Bubble>");
  EXPECT_EQ(g.FindGroup("System.Collections.Generic.List<Bubbles.Bubble>"), 0u);
  EXPECT_EQ(g.FindGroup("System.Collections.Generic.List`1[Bubbles.Bubble]"), 0u);
  EXPECT_EQ(g.FindGroup("System.Collections.Generic.List`1[[Bubbles.Bubble, Bubbles]]"), 0u);
  EXPECT_EQ(g.FindGroup("System.Collections.Generic.List<Bubbles.Particle>"), kNoIndex);
}

}  // namespace
}  // namespace xrpm::analysis
