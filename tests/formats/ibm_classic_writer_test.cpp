#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "test_heaps.h"
#include "xrpm/formats/ibm_classic_reader.h"
#include "xrpm/formats/ibm_classic_writer.h"

namespace xrpm {
namespace {

using testing::Canonical;
using testing::HeapShape;
using testing::MakeHeap;

std::string WriteIbm(const Snapshot& s, formats::IbmWriteStats* st = nullptr) {
  std::string out;
  formats::IbmWriteStats w =
      formats::WriteIbmClassic(s, [&](std::string_view b) { out.append(b); });
  if (st) *st = w;
  return out;
}

std::string WriterDiagnostics(const Diagnostics& d) {
  std::string s;
  for (const Diagnostic& x : d.kept()) s += x.ToString() + "\n";
  return s;
}

std::set<std::pair<TypeId, std::string>> UsedTypes(const Snapshot& s) {
  std::set<std::pair<TypeId, std::string>> t;
  for (size_t i = 0; i < s.object_count(); ++i)
    t.emplace(s.types[s.object_type[i]].id, s.types[s.object_type[i]].name);
  return t;
}

Snapshot IbmSample() {
  Snapshot s;
  s.AddSection({.version = 2, .name = "bubbles.exe", .start_ms = 0x763f9d2, .end_ms = 0x763fbef});
  uint32_t str = s.AddType(0x2, "System.String", 0);
  uint32_t arr = s.AddType(0x1d, "System.Object[]", 0);
  const ObjectId refs[] = {0x1ce11f, 0x1ce14c};
  s.AddObject(0x1ce056, arr, 0x118, refs);
  s.AddObject(0x1ce11f, str, 0x1c, {});
  s.AddObject(0x1ce14c, str, 0x20, {});
  s.AddRoot(0x1ce056, RootKind::kStatic, 0, 0x1d);
  s.AddRoot(0x1ce11f, RootKind::kHandle, kRootWeak | kRootPinned);
  s.CloseSectionRanges();
  return s;
}

TEST(IbmClassicWriter, WritesTheLayoutJ9Writes) {
  formats::IbmWriteStats st;
  const std::string text = WriteIbm(IbmSample(), &st);
  const size_t nl = text.find('\n');
  EXPECT_EQ(text.substr(0, 34), "// Version: .NET heap, xrpm 0.1.0 ") << text;
  EXPECT_EQ(text.substr(nl + 1),
            "// xrpm AppDomain: bubbles.exe\n"
            "0x001CE056 [280] OBJ [LSystem/Object;\n\t0x0000001D 0x001CE11F 0x001CE14C \n"
            "0x001CE11F [28] OBJ System/String\n\t0x00000002 \n"
            "0x001CE14C [32] OBJ System/String\n\t0x00000002 \n"
            "0x00000002 [0] CLS System/String\n\t\n"
            "0x0000001D [0] CLS [LSystem/Object;\n\t0x001CE056 \n"
            "0x001CF000 [0] CLS xrpm/roots/handle$pinned$weak\n\t0x001CE11F \n"
            "// Breakdown - Classes: 3, Objects: 2, ObjectArrays: 1, PrimitiveArrays: 0\n"
            "// EOF:  Total 'Objects',Refs(null) : 6,7(0)\n");
  EXPECT_TRUE(st.type_ids_as_addresses);
  EXPECT_EQ(st.static_roots, 1u);
  EXPECT_EQ(st.pseudo_class_roots, 1u);
}

// NETCF model -> classic -> model: the same objects (ids, type names, sizes, references in
// order), the same type ids, the same roots (kind, flags, static containers), no diagnostics,
// and trailer counts that agree with what the reader counted.
TEST(IbmClassicWriter, RoundTripKeepsObjectsSizesReferencesAndRoots) {
  for (uint32_t seed : {1u, 2u, 3u}) {
    HeapShape shape;
    shape.seed = seed;
    shape.objects = seed == 3 ? 20000 : 300;
    Snapshot original = MakeHeap(shape);
    formats::IbmWriteStats ws;
    std::string text = WriteIbm(original, &ws);
    Diagnostics d;
    formats::IbmReadStats rs;
    Snapshot back = formats::ReadIbmClassic(text, "rt", d, {}, &rs);
    EXPECT_TRUE(d.empty()) << WriterDiagnostics(d);
    EXPECT_EQ(Canonical(back), Canonical(original)) << "seed " << seed;
    EXPECT_EQ(UsedTypes(back), UsedTypes(original));
    EXPECT_EQ(back.sections.at(0).name, original.sections[0].name);
    EXPECT_EQ(back.total_bytes(), original.total_bytes());
    EXPECT_EQ(rs.object_records, original.object_count());
    EXPECT_EQ(rs.class_records, ws.classes);
    EXPECT_EQ(rs.object_arrays, ws.object_arrays);
    EXPECT_EQ(rs.primitive_arrays, ws.primitive_arrays);
    EXPECT_EQ(rs.refs, ws.refs);
    EXPECT_GT(ws.object_arrays, 0u);
    EXPECT_GT(ws.primitive_arrays, 0u);  // System.Byte[] and System.Char[] objects
    // And the second write is the same file: the output does not depend on type order.
    EXPECT_EQ(WriteIbm(back), text);
  }
}

TEST(IbmClassicWriter, DanglingReferencesSurviveAndAreReported) {
  HeapShape shape;
  shape.dangling = 0.2;
  Snapshot original = MakeHeap(shape);
  Diagnostics d;
  Snapshot back = formats::ReadIbmClassic(WriteIbm(original), "rt", d);
  EXPECT_EQ(Canonical(back), Canonical(original));
  ASSERT_FALSE(d.empty());
  for (const Diagnostic& x : d.kept()) EXPECT_EQ(x.code, "dangling-ref") << x.ToString();
}

TEST(IbmClassicWriter, TypeIdsInsideTheHeapGetSyntheticClassAddresses) {
  HeapShape shape;
  shape.first_type_id = 0x1ce100;  // collides with the object address range
  Snapshot original = MakeHeap(shape);
  formats::IbmWriteStats ws;
  std::string text = WriteIbm(original, &ws);
  EXPECT_FALSE(ws.type_ids_as_addresses);
  Diagnostics d;
  Snapshot back = formats::ReadIbmClassic(text, "rt", d);
  EXPECT_TRUE(d.empty()) << WriterDiagnostics(d);
  EXPECT_EQ(Canonical(back), Canonical(original));  // statics keep their class (by name)
  ObjectId max_end = 0;
  for (size_t i = 0; i < original.object_count(); ++i)
    max_end = std::max<ObjectId>(max_end, original.object_id[i] + original.object_size[i]);
  for (const TypeInfo& t : back.types) EXPECT_GT(t.id, max_end) << t.name;
}

TEST(IbmClassicWriter, SeveralSectionsBecomeOneHeapWithDistinctClasses) {
  Snapshot a = MakeHeap({.seed = 4, .objects = 50, .types = 3, .base = 0x10000, .name = "a.exe"});
  Snapshot b = MakeHeap({.seed = 5, .objects = 50, .types = 3, .base = 0x90000, .name = "b.exe"});
  // Concatenate b into a as a second section: the same type ids name different types there.
  Snapshot s = a;
  AppDomainSection sec = b.sections[0];
  uint32_t si = s.AddSection(sec);
  std::vector<uint32_t> remap;
  for (const TypeInfo& t : b.types) remap.push_back(s.AddType(t.id, "Other." + t.name, si));
  for (size_t i = 0; i < b.object_count(); ++i)
    s.AddObject(b.object_id[i], remap[b.object_type[i]], b.object_size[i], b.object_refs(i));
  for (size_t r = 0; r < b.root_count(); ++r)
    s.AddRoot(b.root_object[r], b.root_kind_of(r), b.root_flags[r], b.root_container[r]);
  s.CloseSectionRanges();

  formats::IbmWriteStats ws;
  std::string text = WriteIbm(s, &ws);
  EXPECT_FALSE(ws.type_ids_as_addresses);  // ids repeat across sections
  EXPECT_NE(text.find("\n// xrpm AppDomain: a.exe\n// xrpm AppDomain: b.exe\n0x"),
            std::string::npos)
      << text.substr(0, 200);
  Diagnostics d;
  Snapshot back = formats::ReadIbmClassic(text, "rt", d);
  EXPECT_TRUE(d.empty()) << WriterDiagnostics(d);
  ASSERT_EQ(back.sections.size(), 1u);
  EXPECT_EQ(back.sections[0].name, "a.exe, b.exe");
  EXPECT_EQ(Canonical(back), Canonical(s));
}

// Regression: System.Byte[] was written `OBJ [LSystem/Byte;` (an object array of a
// class System/Byte to Java tools) while the Breakdown counted it as a primitive array. .NET
// primitive arrays are now JVM primitive arrays, and read back under their .NET names, also the
// ones that share a letter (named by `// xrpm class` comments).
TEST(IbmClassicWriter, DotNetPrimitiveArraysAreJvmPrimitiveArraysAndReadBack) {
  struct Case {
    const char* name;
    const char* sig;
  };
  const Case cases[] = {{"System.Boolean[]", "[Z"},        {"System.Byte[]", "[B"},
                        {"System.SByte[]", "[B"},          {"System.Char[]", "[C"},
                        {"System.Int16[]", "[S"},          {"System.UInt16[]", "[S"},
                        {"System.Int32[]", "[I"},          {"System.UInt32[]", "[I"},
                        {"System.Int64[]", "[J"},          {"System.UInt64[]", "[J"},
                        {"System.IntPtr[]", "[J"},         {"System.UIntPtr[]", "[J"},
                        {"System.Single[]", "[F"},         {"System.Double[]", "[D"},
                        {"System.Int32[][]", "[[I"},       {"System.Object[]", "[LSystem/Object;"},
                        {"System.String", "System/String"}};
  Snapshot s;
  s.AddSection({.version = 2, .name = "game.exe"});
  for (size_t i = 0; i < std::size(cases); ++i) {
    const uint32_t t = s.AddType(static_cast<TypeId>(2 + i), cases[i].name, 0);
    s.AddObject(0x10000 + 0x100 * i, t, 16, {});
  }
  s.CloseSectionRanges();
  formats::IbmWriteStats st;
  const std::string text = WriteIbm(s, &st);
  for (size_t i = 0; i < std::size(cases); ++i) {
    char rec[64];
    std::snprintf(rec, sizeof rec, "0x%08zX [16] OBJ %s\n", 0x10000 + 0x100 * i, cases[i].sig);
    EXPECT_NE(text.find(rec), std::string::npos) << cases[i].name << " as " << rec;
  }
  EXPECT_EQ(text.find("LSystem/Byte;"), std::string::npos);
  EXPECT_EQ(st.primitive_arrays, 14u);  // every one-dimensional primitive array, as written
  EXPECT_EQ(st.object_arrays, 2u);      // [[I and [LSystem/Object;
  EXPECT_NE(text.find("PrimitiveArrays: 14\n"), std::string::npos);
  EXPECT_NE(text.find("// xrpm class 0x00000004: System.SByte[]\n"), std::string::npos) << text;
  // Back: the same names; the reader's own Breakdown check agrees with the records.
  Diagnostics d;
  formats::IbmReadStats rs;
  const Snapshot back = formats::ReadIbmClassic(text, "rt", d, {}, &rs);
  EXPECT_TRUE(d.empty()) << WriterDiagnostics(d);
  EXPECT_EQ(rs.primitive_arrays, 14u);
  ASSERT_EQ(back.object_count(), std::size(cases));
  for (size_t i = 0; i < std::size(cases); ++i)
    EXPECT_EQ(back.type_name_of(i), cases[i].name) << cases[i].sig;
  // NETCF -> classic -> NETCF keeps the type names.
  EXPECT_EQ(Canonical(back), Canonical(s));
}

// Regression: `// Version:` carried the application's name. It is the producer's
// version string now (runtime, xrpm's version, platform); the name goes into `// xrpm
// AppDomain:` and is read back from there. A Java heap says so; a J9 file keeps its header.
TEST(IbmClassicWriter, VersionLineNamesTheProducerAndTheAppNameIsKeptApart) {
  const std::string text = WriteIbm(IbmSample());
  const std::string first = text.substr(0, text.find('\n'));
  EXPECT_EQ(first.find("bubbles"), std::string::npos) << first;
  EXPECT_NE(first.find(".NET heap"), std::string::npos) << first;
  EXPECT_NE(first.find("xrpm 0.1.0"), std::string::npos) << first;
  EXPECT_NE(first.find("Linux"), std::string::npos) << first;
  Diagnostics d;
  EXPECT_EQ(formats::ReadIbmClassic(text, "rt", d).sections.at(0).name, "bubbles.exe");

  Snapshot java;
  java.AddSection({.version = 2, .name = "J2RE 6.0 IBM J9 2.5 Linux x86-32 build 1"});
  java.AddObject(0x1000, java.AddType(1, "java.lang.String", 0), 24, {});
  java.AddObject(0x1018, java.AddType(2, "byte[]", 0), 24, {});
  java.CloseSectionRanges();
  const std::string jt = WriteIbm(java);
  EXPECT_EQ(jt.rfind("// Version: Java heap, xrpm 0.1.0 ", 0), 0u) << jt;
  EXPECT_NE(jt.find("OBJ [B\n"), std::string::npos);
  const Snapshot jb = formats::ReadIbmClassic(jt, "rt", d);
  EXPECT_EQ(jb.type_name_of(1), "byte[]");  // not System.Byte[]: not a .NET heap
  EXPECT_EQ(jb.sections.at(0).name, "J2RE 6.0 IBM J9 2.5 Linux x86-32 build 1");
}

TEST(IbmClassicWriter, SixtyFourBitHeapsUseWideAddresses) {
  HeapShape shape;
  shape.base = 0x00007F0000000000;
  Snapshot original = MakeHeap(shape);
  std::string text = WriteIbm(original);
  EXPECT_NE(text.find("0x00007F0000000000 ["), std::string::npos);
  Diagnostics d;
  Snapshot back = formats::ReadIbmClassic(text, "rt", d);
  EXPECT_TRUE(d.empty()) << WriterDiagnostics(d);
  EXPECT_EQ(Canonical(back), Canonical(original));
}

TEST(IbmClassicWriter, FlaggedStaticKeepsKindAndFlagsButNotItsContainer) {
  Snapshot s = IbmSample();
  s.AddRoot(0x1ce14c, RootKind::kStatic, kRootWeak, 0x2);
  s.CloseSectionRanges();
  Diagnostics d;
  Snapshot back = formats::ReadIbmClassic(WriteIbm(s), "rt", d);
  EXPECT_TRUE(d.empty()) << WriterDiagnostics(d);
  bool found = false;
  for (size_t r = 0; r < back.root_count(); ++r) {
    if (back.root_object[r] != 0x1ce14c) continue;
    found = true;
    EXPECT_EQ(back.root_kind_of(r), RootKind::kStatic);
    EXPECT_EQ(back.root_flags[r], kRootWeak);
    EXPECT_EQ(back.root_container[r], 0u);  // the documented loss
  }
  EXPECT_TRUE(found);
}

TEST(IbmClassicWriter, NullReferencesAreCountedInTheTrailer) {
  Snapshot s = IbmSample();
  const ObjectId refs[] = {0x1ce056, 0, 0x1ce11f};
  s.AddObject(0x1ce200, 0, 0x10, refs);
  s.CloseSectionRanges();
  formats::IbmWriteStats ws;
  std::string text = WriteIbm(s, &ws);
  EXPECT_EQ(ws.null_refs, 1u);
  EXPECT_NE(text.find("Refs(null) : 7,11(1)"), std::string::npos) << text;
  Diagnostics d;
  formats::IbmReadStats rs;
  Snapshot back = formats::ReadIbmClassic(text, "rt", d, {}, &rs);
  EXPECT_TRUE(d.empty()) << WriterDiagnostics(d);
  EXPECT_EQ(rs.null_refs, 1u);
  auto r = back.object_refs(3);
  EXPECT_EQ(std::vector<ObjectId>(r.begin(), r.end()), (std::vector<ObjectId>{0x1ce056, 0x1ce11f}));
}

TEST(IbmClassicWriter, SavesAtomically) {
  std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("xrpm_ibm_" + std::to_string(getpid()));
  std::filesystem::create_directories(dir);
  const std::string path = (dir / "heap.txt").string();
  formats::WriteIbmClassicFile(IbmSample(), path);
  std::ifstream f(path, std::ios::binary);
  std::stringstream ss;
  ss << f.rdbuf();
  EXPECT_EQ(ss.str(), WriteIbm(IbmSample()));
  EXPECT_EQ(std::distance(std::filesystem::directory_iterator(dir), {}), 1);  // no temp left
  EXPECT_THROW(formats::WriteIbmClassicFile(IbmSample(), (dir / "missing" / "heap.txt").string()),
               std::runtime_error);
  Diagnostics d;
  Snapshot back = formats::ReadIbmClassicFile(path, d);
  EXPECT_EQ(Canonical(back), Canonical(IbmSample()));
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace xrpm
