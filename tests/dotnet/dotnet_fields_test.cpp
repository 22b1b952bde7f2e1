// ctest-labels: cpu_timing
// Fields and values in captures of a real .NET program (csharp/Graph under xrpm-dotnet, taken
// with the `xrpm capture` CLI): a known object's field names and values (an int, a bool, an enum
// of the program's and one of the base library, a string made at run time and a literal one,
// an array's length, an embedded struct and generic ones flattened, a reference), each reference's
// field or element, paths that name the fields they go through, the inspections that need fields
// and values running, and what --no-values and --string-cap leave.
#include <gtest/gtest.h>

#include <set>
#include <string>
#include <string_view>
#include <unordered_map>

#include "graph_run.h"
#include "xrpm/model/object_fields.h"

namespace xrpm::testing {
namespace {

size_t IndexOfType(const Snapshot& s, const std::string& type) {
  for (size_t i = 0; i < s.object_count(); ++i)
    if (s.type_name_of(i) == type) return i;
  return kNoIndex;
}

size_t IndexOfId(const Snapshot& s, ObjectId id) {
  for (size_t i = 0; i < s.object_count(); ++i)
    if (s.object_id[i] == id) return i;
  return kNoIndex;
}

// Field `name` of object i (missing when the layout has no such field).
FieldValue FieldOf(const Snapshot& s, size_t i, std::string_view name) {
  const TypeLayout* l = LayoutOf(s, i);
  if (!l) return FieldValue{};
  const uint32_t f = FindField(*l, name);
  return f == kNoSlot ? FieldValue{} : ReadField(s, i, f);
}

// The object a reference field of object i holds (kNoIndex: null, missing or not captured).
size_t Held(const Snapshot& s, size_t i, std::string_view name) {
  const FieldValue v = FieldOf(s, i, name);
  return v.kind == FieldValue::Kind::kRef ? IndexOfId(s, v.ref) : kNoIndex;
}

std::string TextOf(const Snapshot& s, size_t i) {
  const auto t = i == kNoIndex ? std::nullopt : StringOf(s, i);
  return t ? std::string(t->text) : "<no text>";
}

// `xrpm inspect FILE --json`: whether inspection `name` ran (its "skipped" is null).
bool Ran(const std::string& json, const std::string& name) {
  const size_t at = json.find("\"name\": \"" + name + "\"");
  if (at == std::string::npos) return false;
  const size_t skipped = json.find("\"skipped\":", at);
  const std::string ran = "\"skipped\": null";
  return skipped != std::string::npos && json.compare(skipped, ran.size(), ran) == 0;
}

TEST(DotnetFields, AKnownObjectsFieldNamesAndValues) {
  SKIP_WITHOUT_DOTNET();
  GraphRun g;
  ASSERT_GE(g.gate_fd, 0);
  ASSERT_FALSE(g.run.endpoint.empty()) << g.run.proc->log().All();
  ASSERT_FALSE(g.run.proc->log().WaitFor("Graph: ready", 60000).empty()) << g.run.proc->log().All();
  const Snapshot s = CaptureWithCli(g.run.endpoint, g.dir.Path("fields.xrpm"));
  ASSERT_TRUE(s.fields.has_layouts());
  ASSERT_TRUE(s.fields.has_values());
  EXPECT_EQ(CheckFields(s), "") << "the capture passes the model's own check";

  const size_t sample = IndexOfType(s, "Graph.Sample");
  ASSERT_NE(sample, kNoIndex);
  const FieldValue count = FieldOf(s, sample, "Count");
  EXPECT_EQ(count.kind, FieldValue::Kind::kSigned);
  EXPECT_EQ(count.i, 42);
  const FieldValue alive = FieldOf(s, sample, "Alive");
  EXPECT_EQ(alive.kind, FieldValue::Kind::kBool);
  EXPECT_TRUE(alive.b);
  const FieldValue mood = FieldOf(s, sample, "Mood");  // the program's enum (of bytes)
  EXPECT_EQ(mood.kind, FieldValue::Kind::kEnum);
  EXPECT_EQ(mood.enum_name, "Happy");
  EXPECT_EQ(mood.i, 7);
  const FieldValue day = FieldOf(s, sample, "Day");  // the base library's
  EXPECT_EQ(day.kind, FieldValue::Kind::kEnum);
  EXPECT_EQ(day.enum_name, "Friday");
  EXPECT_EQ(TextOf(s, Held(s, sample, "Label")), "sample-" + std::to_string(kItems));
  EXPECT_EQ(TextOf(s, Held(s, sample, "Title")), "a literal title") << "a literal (non-GC heap)";
  const size_t numbers = Held(s, sample, "Numbers");
  ASSERT_NE(numbers, kNoIndex);
  EXPECT_EQ(ArrayLengthOf(s, numbers), std::optional<uint32_t>(7));
  const FieldValue x = FieldOf(s, sample, "Position.X");  // an embedded struct, flattened
  EXPECT_EQ(x.kind, FieldValue::Kind::kFloat);
  EXPECT_EQ(x.d, 1.5);
  EXPECT_EQ(FieldOf(s, sample, "Position.Y").d, -2.0);
  const size_t friend_item = Held(s, sample, "Friend");
  ASSERT_NE(friend_item, kNoIndex);
  EXPECT_EQ(s.type_name_of(friend_item), "Graph.Item");
  EXPECT_EQ(EdgeName(s, sample, s.object_id[friend_item]), "Friend");
  // Generic structs, flattened through their instantiation's class.
  EXPECT_TRUE(FieldOf(s, sample, "Maybe.hasValue").b);
  EXPECT_EQ(FieldOf(s, sample, "Maybe.value").i, 5);
  EXPECT_EQ(TextOf(s, Held(s, sample, "Pair.key")), "pair");
  const size_t pair_item = Held(s, sample, "Pair.value");
  ASSERT_NE(pair_item, kNoIndex);
  EXPECT_EQ(EdgeName(s, sample, s.object_id[pair_item]), "Pair.value");
  // Declared types are named in the layout.
  const TypeLayout* layout = LayoutOf(s, sample);
  ASSERT_NE(layout, nullptr);
  const uint32_t label_field = FindField(*layout, "Label");
  ASSERT_NE(label_field, kNoSlot);
  EXPECT_EQ(layout->fields[label_field].type_name, "System.String");

  // Every reference of the program's objects names its field or element: a node's Next, the
  // node array's elements by index, the list's backing array.
  size_t unnamed = 0, named = 0;
  std::unordered_map<ObjectId, size_t> index;
  for (size_t i = 0; i < s.object_count(); ++i) index.emplace(s.object_id[i], i);
  for (size_t i = 0; i < s.object_count(); ++i) {
    const std::string& t = s.type_name_of(i);
    if (t.rfind("Graph.", 0) != 0 && t != "System.Collections.Generic.List<Graph.Item>") continue;
    for (ObjectId r : s.object_refs(i)) {
      const std::string name = EdgeName(s, i, r);
      ++(name.empty() ? unnamed : named);
      if (t == "Graph.Node") {
        EXPECT_EQ(name, "Next");
      } else if (t == "Graph.Node[]") {
        EXPECT_EQ(name.substr(0, 1), "[") << name;
      } else if (t == "System.Collections.Generic.List<Graph.Item>") {
        EXPECT_EQ(name, "_items");
      }
    }
  }
  EXPECT_EQ(unnamed, 0u);
  EXPECT_GE(named, static_cast<size_t>(kItems + kNodes));
  // Every item has its own index (values read from each object in its final place).
  std::set<int64_t> indexes;
  for (size_t i = 0; i < s.object_count(); ++i) {
    if (s.type_name_of(i) != "Graph.Item") continue;
    const FieldValue v = FieldOf(s, i, "Index");
    EXPECT_EQ(v.kind, FieldValue::Kind::kSigned);
    indexes.insert(v.i);
  }
  EXPECT_EQ(indexes.size(), static_cast<size_t>(kItems));
  EXPECT_EQ(indexes.empty() ? -1 : *indexes.rbegin(), kItems - 1);
  // Strings carry their text: the dictionary's keys ("key-0", ...; not the literal "key-").
  size_t keys = 0;
  for (size_t i = 0; i < s.object_count(); ++i)
    keys += s.type_name_of(i) == "System.String" && TextOf(s, i).rfind("key-", 0) == 0 &&
            TextOf(s, i).size() > 4;
  EXPECT_EQ(keys, static_cast<size_t>(kEntries));

  g.Release();
  EXPECT_EQ(g.run.proc->Wait(60000), 0) << g.run.proc->log().All();
}

TEST(DotnetFields, PathsNameTheFieldsOnTheWay) {
  SKIP_WITHOUT_DOTNET();
  GraphRun g;
  ASSERT_GE(g.gate_fd, 0);
  ASSERT_FALSE(g.run.endpoint.empty()) << g.run.proc->log().All();
  ASSERT_FALSE(g.run.proc->log().WaitFor("Graph: ready", 60000).empty()) << g.run.proc->log().All();
  const std::string path = g.dir.Path("paths.xrpm");
  CaptureWithCli(g.run.endpoint, path);
  const RunResult planted = RunXrpm("paths " + path + " --type Graph.StaticOnly", true);
  ASSERT_EQ(planted.exit_code, 0) << planted.out;
  EXPECT_NE(planted.out.find("static Graph.Holder.Planted -> "
                             "System.Collections.Generic.List<Graph.StaticOnly>._items -> "
                             "Graph.StaticOnly[]"),
            std::string::npos)
      << planted.out;
  const RunResult entries = RunXrpm("paths " + path + " --type Graph.Entry", true);
  ASSERT_EQ(entries.exit_code, 0) << entries.out;
  EXPECT_NE(entries.out.find("Graph.Entry>._entries -> "), std::string::npos) << entries.out;
  const RunResult numbers = RunXrpm("paths " + path + " --type System.Int32[]", true);
  EXPECT_NE(numbers.out.find("Graph.Sample.Numbers -> System.Int32[]"), std::string::npos)
      << numbers.out;
  g.Release();
  EXPECT_EQ(g.run.proc->Wait(60000), 0) << g.run.proc->log().All();
}

// Without fields only boxed-values and finalizable ran; with them all six do. --no-values keeps
// layouts and slots (the event-handler inspection runs) but no values (the three that read
// values are skipped); --string-cap cuts text and keeps the length.
TEST(DotnetFields, InspectRunsTheInspectionsThatNeedFieldsAndValues) {
  SKIP_WITHOUT_DOTNET();
  GraphRun g;
  ASSERT_GE(g.gate_fd, 0);
  ASSERT_FALSE(g.run.endpoint.empty()) << g.run.proc->log().All();
  ASSERT_FALSE(g.run.proc->log().WaitFor("Graph: ready", 60000).empty()) << g.run.proc->log().All();
  const std::string full = g.dir.Path("full.xrpm");
  CaptureWithCli(g.run.endpoint, full);
  const RunResult all = RunXrpm("inspect " + full + " --json", true);
  ASSERT_EQ(all.exit_code, 0) << all.out;
  for (const char* name : {"duplicate-strings", "event-handler-leaks", "disposed-but-held",
                           "sparse-collections", "boxed-values", "finalizable"})
    EXPECT_TRUE(Ran(all.out, name)) << name << "\n" << all.out;

  const std::string bare = g.dir.Path("no-values.xrpm");
  const Snapshot nv = CaptureWithCli(g.run.endpoint, bare, " --no-values");
  EXPECT_TRUE(nv.fields.has_layouts());
  EXPECT_FALSE(nv.fields.has_values());
  EXPECT_EQ(CheckFields(nv), "");
  const size_t sample = IndexOfType(nv, "Graph.Sample");
  ASSERT_NE(sample, kNoIndex);
  EXPECT_EQ(FieldOf(nv, sample, "Count").kind, FieldValue::Kind::kMissing);
  const size_t friend_item = Held(nv, sample, "Friend");
  ASSERT_NE(friend_item, kNoIndex) << "references are kept with their fields";
  EXPECT_EQ(EdgeName(nv, sample, nv.object_id[friend_item]), "Friend");
  const RunResult some = RunXrpm("inspect " + bare + " --json", true);
  ASSERT_EQ(some.exit_code, 0) << some.out;
  EXPECT_TRUE(Ran(some.out, "event-handler-leaks")) << some.out;
  EXPECT_FALSE(Ran(some.out, "duplicate-strings")) << some.out;
  EXPECT_FALSE(Ran(some.out, "disposed-but-held")) << some.out;
  EXPECT_FALSE(Ran(some.out, "sparse-collections")) << some.out;

  const Snapshot cut = CaptureWithCli(g.run.endpoint, g.dir.Path("cut.xrpm"), " --string-cap 4");
  const size_t cut_sample = IndexOfType(cut, "Graph.Sample");
  ASSERT_NE(cut_sample, kNoIndex);
  const size_t label = Held(cut, cut_sample, "Label");
  ASSERT_NE(label, kNoIndex);
  const auto text = StringOf(cut, label);
  ASSERT_TRUE(text.has_value());
  EXPECT_EQ(text->text, "samp");
  EXPECT_TRUE(text->cut);
  EXPECT_EQ(text->full_length, std::string("sample-" + std::to_string(kItems)).size());

  g.Release();
  EXPECT_EQ(g.run.proc->Wait(60000), 0) << g.run.proc->log().All();
}

}  // namespace
}  // namespace xrpm::testing
