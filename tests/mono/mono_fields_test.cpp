// Fields and values of a real Mono heap: Fields.exe (tests/mono/programs/Fields)
// holds known values; a capture with fields and values over 127.0.0.1, decoded with the
// protocol library alone (tests/capture/field_capture.h), must carry them field by field: each
// primitive kind, enums with their members, strings (non-ASCII, an unpaired surrogate shown as
// U+FFFD, a string longer than the cap cut with its length kept), a struct inside a class
// flattened, an array of structs, static fields naming their roots, and the static event
// followed to its three subscribers. Layouts are cached across captures by the port:
// a second capture of the same objects carries the same layouts, slots and values, and a class
// loaded between two captures is described in the second.
#include <gtest/gtest.h>
#include <signal.h>

#include <cmath>
#include <cstring>
#include <fstream>
#include <set>
#include <sstream>

#include "mono_fields_run.h"
#include "temp_dir.h"
#include "xrpm/protocol/constants.h"

namespace xrpm::testing {
namespace {

using protocol::FieldKind;
using protocol::kNoSlot;

const protocol::RawField* FieldNamed(const protocol::RawLayout& l, const std::string& name) {
  for (const protocol::RawField& f : l.fields)
    if (f.name == name) return &f;
  return nullptr;
}

size_t FindByType(const FieldCapture& c, const std::string& type, size_t from = 0) {
  for (size_t i = from; i < c.object_id.size(); ++i)
    if (c.TypeName(i) == type) return i;
  return SIZE_MAX;
}

float AsFloat(uint64_t bits) {
  float f;
  const auto u = static_cast<uint32_t>(bits);
  std::memcpy(&f, &u, 4);
  return f;
}

const std::vector<std::string> kFieldsArgs = {"--frame", "Fields.Program:Tick", "--frame-window-ms",
                                              "30000"};

double AsDouble(uint64_t bits) {
  double d;
  std::memcpy(&d, &bits, 8);
  return d;
}

// A layout as one line: shape, fields (name, declared type, offset, kind, enum and its members),
// statics.
std::string LayoutLine(const FieldCapture& c, const protocol::RawLayout& l) {
  std::ostringstream o;
  o << "shape " << static_cast<int>(l.shape) << " element " << static_cast<int>(l.element_kind)
    << " " << l.element_type_name;
  for (const protocol::RawField& f : l.fields) {
    o << " | " << f.name << ":" << f.type_name << "@" << f.offset << "/"
      << static_cast<int>(f.kind);
    if (f.is_enum && c.enums.count(f.enum_id)) {
      const protocol::RawEnum& e = c.enums.at(f.enum_id);
      o << " enum " << e.name;
      for (size_t m = 0; m < e.member_names.size(); ++m)
        o << " " << e.member_names[m] << "=" << e.member_values[m];
    }
  }
  for (const protocol::RawStaticField& f : l.statics)
    o << " | static " << f.name << ":" << f.type_name << "/" << static_cast<int>(f.kind);
  return o.str();
}

// The program's own objects (types Fields.*), one line each without addresses: type, values by
// field, each reference by its field (or element) with its target's type and, for a string,
// its text. Equal for two captures of the same, unchanged objects.
std::multiset<std::string> OwnObjects(const FieldCapture& c) {
  std::multiset<std::string> out;
  for (size_t i = 0; i < c.object_id.size(); ++i) {
    const std::string& type = c.TypeName(i);
    if (type.rfind("Fields.", 0) != 0) continue;
    std::ostringstream o;
    o << type;
    const protocol::RawLayout* l = c.Layout(i);
    if (!l) {
      out.insert(type + " without a layout");
      continue;
    }
    if (l->shape == protocol::TypeShape::kArray && !c.object_value_count.empty() &&
        c.object_value_count[i] > 0)
      o << " length " << c.values[c.object_first_value[i]];
    for (const protocol::RawField& f : l->fields) {
      uint64_t bits = 0;
      if (protocol::IsValueKind(f.kind) && c.Value(i, f.name, &bits))
        o << " " << f.name << "=" << bits;
    }
    for (uint64_t r = c.object_first_ref[i]; r < c.object_first_ref[i] + c.object_ref_count[i];
         ++r) {
      const uint32_t slot = c.ref_slot[r];
      o << " ";
      if (slot == kNoSlot)
        o << "?";
      else if (l->shape == protocol::TypeShape::kArray)
        o << "[" << slot << "]";
      else
        o << l->fields.at(slot).name;
      if (!c.index.count(c.refs[r])) continue;
      const size_t t = c.index.at(c.refs[r]);
      o << "->" << c.TypeName(t);
      if (c.TypeName(t) == "System.String") o << " \"" << c.Text(t) << "\"";
    }
    out.insert(o.str());
  }
  return out;
}

TEST(MonoFields, KnownValuesFieldByField) {
  SKIP_WITHOUT_MONO();
  MonoFieldsRun f(kFieldsArgs, "Fields.exe", {}, "Fields: ready");
  ASSERT_EQ(f.error, "");
  FieldCapture c;
  ASSERT_TRUE(f.Capture(&c)) << f.error;
  EXPECT_TRUE(c.begin.fields() && c.begin.values());
  EXPECT_EQ(c.end.fields_dropped(), 0u);

  // The Sample named "Bubble 42" (the other is its Next, "Bubble 7").
  size_t s = SIZE_MAX;
  for (size_t i = FindByType(c, "Fields.Sample"); i != SIZE_MAX;
       i = FindByType(c, "Fields.Sample", i + 1)) {
    const uint64_t name = c.RefAt(i, c.FieldIndex(i, "Name"));
    if (c.index.count(name) && c.Text(c.index.at(name)) == "Bubble 42") s = i;
  }
  ASSERT_NE(s, SIZE_MAX) << "no Fields.Sample named Bubble 42";
  const protocol::RawLayout& l = *c.Layout(s);
  const auto kind = [&](const char* f) {
    const protocol::RawField* p = FieldNamed(l, f);
    return p ? p->kind : FieldKind::kUnknown;
  };
  EXPECT_EQ(kind("Flag"), FieldKind::kBoolean);
  EXPECT_EQ(kind("Letter"), FieldKind::kChar);
  EXPECT_EQ(kind("Pointer"), FieldKind::kIntPtr);
  EXPECT_EQ(kind("Position.X"), FieldKind::kSingle);
  EXPECT_EQ(kind("Position.Y"), FieldKind::kSingle);
  EXPECT_EQ(kind("Cells"), FieldKind::kReference);
  EXPECT_EQ(FieldNamed(l, "Name")->type_name, "System.String");
  const auto value = [&](const char* f) {
    uint64_t bits = 0xDEADBEEF;
    EXPECT_TRUE(c.Value(s, f, &bits)) << f;
    return bits;
  };
  EXPECT_EQ(value("Flag"), 1u);
  EXPECT_EQ(value("Letter"), 0xE9u);
  EXPECT_EQ(static_cast<int64_t>(value("SmallSigned")), -100);
  EXPECT_EQ(value("Octet"), 250u);
  EXPECT_EQ(static_cast<int64_t>(value("Short")), -30000);
  EXPECT_EQ(value("UShort"), 60000u);
  EXPECT_EQ(static_cast<int64_t>(value("Int")), -123456789);
  EXPECT_EQ(value("UInt"), 4000000000u);
  EXPECT_EQ(static_cast<int64_t>(value("Long")), -9000000000000000000ll);
  EXPECT_EQ(value("ULong"), 18000000000000000000ull);
  EXPECT_EQ(static_cast<int64_t>(value("Pointer")), -42);
  EXPECT_EQ(AsFloat(value("Single")), 1.5f);
  EXPECT_EQ(AsDouble(value("Double")), -2.25);
  EXPECT_EQ(AsFloat(value("Position.X")), 3.5f);
  EXPECT_EQ(AsFloat(value("Position.Y")), -7.25f);

  // Enums: the underlying value, and the members by name.
  for (const char* f : {"Color", "Small", "Big"}) {
    const protocol::RawField* p = FieldNamed(l, f);
    ASSERT_NE(p, nullptr) << f;
    EXPECT_TRUE(p->is_enum) << f;
    ASSERT_NE(p->enum_id, 0u) << f;
    ASSERT_TRUE(c.enums.count(p->enum_id)) << f;
  }
  EXPECT_EQ(kind("Small"), FieldKind::kByte);
  EXPECT_EQ(kind("Big"), FieldKind::kInt64);
  const protocol::RawEnum& color = c.enums.at(FieldNamed(l, "Color")->enum_id);
  EXPECT_EQ(color.name, "Fields.Color");
  EXPECT_EQ(color.member_names, (std::vector<std::string>{"Red", "Green", "Blue"}));
  EXPECT_EQ(color.member_values, (std::vector<uint64_t>{0, 1, 7}));
  EXPECT_EQ(value("Color"), 7u);
  EXPECT_EQ(value("Small"), 200u);
  const protocol::RawEnum& big = c.enums.at(FieldNamed(l, "Big")->enum_id);
  EXPECT_EQ(static_cast<int64_t>(big.member_values.at(0)), -5000000000ll);
  EXPECT_EQ(static_cast<int64_t>(value("Big")), -5000000000ll);

  // Strings.
  const auto text = [&](const char* f, uint64_t* length = nullptr) {
    const uint64_t id = c.RefAt(s, c.FieldIndex(s, f));
    EXPECT_TRUE(c.index.count(id)) << f;
    return c.index.count(id) ? c.Text(c.index.at(id), length) : std::string();
  };
  EXPECT_EQ(text("Accented"),
            "Gr\xC3\xBC\xC3\x9F"
            "e, \xE4\xB8\x96\xE7\x95\x8C \xF0\x9F\x98\x80");
  EXPECT_EQ(text("Lone"),
            "a\xEF\xBF\xBD"
            "b");
  uint64_t length = 0;
  EXPECT_EQ(text("Long2000", &length), std::string(protocol::kDefaultStringCap, 'x'));
  EXPECT_EQ(length, 2000u);

  // An array of structs: its length, and its strings by element index.
  const uint64_t cells = c.RefAt(s, c.FieldIndex(s, "Cells"));
  ASSERT_TRUE(c.index.count(cells));
  const size_t ci = c.index.at(cells);
  const protocol::RawLayout& cl = *c.Layout(ci);
  EXPECT_EQ(cl.shape, protocol::TypeShape::kArray);
  EXPECT_EQ(cl.element_kind, FieldKind::kUnknown);  // a struct
  EXPECT_EQ(c.values[c.object_first_value[ci]], 2u);
  EXPECT_EQ(c.Text(c.index.at(c.RefAt(ci, 0))), "one");
  EXPECT_EQ(c.Text(c.index.at(c.RefAt(ci, 1))), "two");

  // Statics: Game.Instance names the Sample, Game.Popped the event's delegate, which leads
  // through its invocation list to the three Subscribers.
  uint64_t popped = 0;
  bool instance = false;
  for (size_t r = 0; r < c.root_object.size(); ++r) {
    const protocol::RawContainer& k = c.containers.at(c.root_container[r]);
    if (k.kind != 11 || c.type_names.at(static_cast<uint32_t>(k.id1)) != "Fields.Game") continue;
    ASSERT_NE(c.root_slot[r], kNoSlot);
    const std::string& name =
        c.layouts.at(static_cast<uint32_t>(k.id1)).statics.at(c.root_slot[r]).name;
    if (name == "Instance") instance = c.root_object[r] == c.object_id[s];
    if (name == "Popped") popped = c.root_object[r];
  }
  EXPECT_TRUE(instance) << "static Fields.Game.Instance does not name the Sample";
  ASSERT_TRUE(c.index.count(popped)) << "no root for static Fields.Game.Popped";
  std::set<uint64_t> subscribers;
  std::set<std::string> path_fields;
  const size_t h = c.index.at(popped);
  for (uint64_t r = c.object_first_ref[h]; r < c.object_first_ref[h] + c.object_ref_count[h]; ++r) {
    if (!c.index.count(c.refs[r])) continue;
    const size_t list = c.index.at(c.refs[r]);
    const protocol::RawLayout* ll = c.Layout(list);
    if (!ll || ll->shape != protocol::TypeShape::kArray) continue;
    path_fields.insert(c.Layout(h)->fields.at(c.ref_slot[r]).name);
    for (uint64_t e = c.object_first_ref[list];
         e < c.object_first_ref[list] + c.object_ref_count[list]; ++e) {
      const size_t d = c.index.at(c.refs[e]);
      for (uint64_t t = c.object_first_ref[d]; t < c.object_first_ref[d] + c.object_ref_count[d];
           ++t)
        if (c.index.count(c.refs[t]) && c.TypeName(c.index.at(c.refs[t])) == "Fields.Subscriber") {
          subscribers.insert(c.refs[t]);
          path_fields.insert(c.Layout(d)->fields.at(c.ref_slot[t]).name);
        }
    }
  }
  EXPECT_EQ(subscribers.size(), 3u);
  EXPECT_EQ(path_fields.size(), 2u);  // the invocation list's field and the target's
  for (const std::string& f : path_fields) EXPECT_FALSE(f.empty());
  EXPECT_EQ(f.run.proc->Stop(30000), 128 + SIGTERM) << "the program ran until stopped";
}

// The names of the types that have objects in `c` but no layout.
std::set<std::string> TypesWithoutLayout(const FieldCapture& c) {
  std::set<std::string> out;
  for (size_t i = 0; i < c.object_id.size(); ++i)
    if (!c.Layout(i)) out.insert(c.TypeName(i));
  return out;
}

// Each of `types` that still has objects in `c` has its layout there.
void ExpectLayoutsIn(const FieldCapture& c, const std::set<std::string>& types) {
  for (size_t i = 0; i < c.object_id.size(); ++i)
    if (types.count(c.TypeName(i))) {
      EXPECT_NE(c.Layout(i), nullptr) << c.TypeName(i) << " without a layout in two captures";
    }
}

// The port computes each class's layout once and keeps it across captures, describing in each
// capture only what it uses: the second capture of the same objects must carry the
// same layouts, slots, values and texts as the first, and a class loaded after a capture (the
// program makes its first Fields.LateLoaded when told to) is described in the next one.
TEST(MonoFields, CachedLayoutsRepeatAndALateClassIsDescribed) {
  SKIP_WITHOUT_MONO();
  TempDir tmp("xrpm-fields-late");
  const std::string late = tmp.path() + "/late";
  MonoFieldsRun f(kFieldsArgs, "Fields.exe", {late}, "Fields: ready");
  ASSERT_EQ(f.error, "");
  FieldCapture first, second;
  ASSERT_TRUE(f.Capture(&first)) << f.error;
  ASSERT_TRUE(f.Capture(&second)) << f.error;
  EXPECT_EQ(first.end.fields_dropped(), 0u);
  EXPECT_EQ(second.end.fields_dropped(), 0u);

  // Every object's type has its layout in its capture, except a class the runtime loaded while
  // that capture's collection began (field_layouts.h: after Prepare; the runtime's own threads
  // load e.g. ArrayPool<byte> at any moment): that one has its layout in the next capture. The
  // program's own types always do. A type described by both captures (type ids are the
  // port's, stable across captures) has the same layout in both.
  const std::set<std::string> late1 = TypesWithoutLayout(first);
  const std::set<std::string> late2 = TypesWithoutLayout(second);
  for (const std::set<std::string>* late : {&late1, &late2})
    for (const std::string& t : *late) {
      EXPECT_NE(t.rfind("Fields.", 0), 0u) << t;
    }
  ExpectLayoutsIn(second, late1);
  size_t common = 0;
  for (const auto& [id, l] : first.layouts) {
    if (!second.layouts.count(id)) continue;
    ++common;
    EXPECT_EQ(second.type_names.at(id), first.type_names.at(id));
    EXPECT_EQ(LayoutLine(second, second.layouts.at(id)), LayoutLine(first, l))
        << first.type_names.at(id);
  }
  EXPECT_GE(common, 10u);
  const std::multiset<std::string> own = OwnObjects(first);
  EXPECT_EQ(OwnObjects(second), own);
  EXPECT_GE(own.size(), 6u);  // 2 Samples, 3 Subscribers, 2 Cell[]s
  for (const std::string& line : own) EXPECT_EQ(line.find("?"), std::string::npos) << line;

  // The late class: not loaded at the first capture, described (with its enum) in the next.
  for (const auto& [id, name] : first.type_names) EXPECT_NE(name, "Fields.LateLoaded");
  std::ofstream(late) << "go";
  ASSERT_FALSE(f.run.proc->log().WaitFor("Fields: late", 30000).empty()) << f.run.proc->log().All();
  FieldCapture third;
  ASSERT_TRUE(f.Capture(&third)) << f.error;
  EXPECT_EQ(third.end.fields_dropped(), 0u);
  size_t n = 0;
  for (size_t i = 0; i < third.object_id.size(); ++i) {
    if (third.TypeName(i) != "Fields.LateLoaded") continue;
    ++n;
    const protocol::RawLayout* l = third.Layout(i);
    ASSERT_NE(l, nullptr) << "Fields.LateLoaded without a layout";
    uint64_t bits = 0;
    ASSERT_TRUE(third.Value(i, "Stamp", &bits));
    EXPECT_EQ(bits, 12345u);
    ASSERT_TRUE(third.Value(i, "Shade", &bits));
    EXPECT_EQ(bits, 1u);  // Color.Green
    const protocol::RawField* shade = FieldNamed(*l, "Shade");
    ASSERT_NE(shade, nullptr);
    ASSERT_TRUE(shade->is_enum && third.enums.count(shade->enum_id));
    EXPECT_EQ(third.enums.at(shade->enum_id).name, "Fields.Color");
    const uint64_t label = third.RefAt(i, third.FieldIndex(i, "Label"));
    ASSERT_TRUE(third.index.count(label));
    EXPECT_EQ(third.Text(third.index.at(label)), "late");
  }
  EXPECT_EQ(n, 1u);
  ExpectLayoutsIn(third, late2);
  EXPECT_EQ(f.run.proc->Stop(30000), 128 + SIGTERM) << "the program ran until stopped";
}

}  // namespace
}  // namespace xrpm::testing
