#include <gtest/gtest.h>

#include <fstream>
#include <random>
#include <sstream>

#include "file_bytes.h"
#include "xrpm/formats/ibm_classic_reader.h"

namespace xrpm {
namespace {

using testing::FileBytes;

std::string Data(const std::string& name) {
  return std::string(FORMATS_TEST_DATA) + "/" + name;
}

std::vector<std::string> Codes(const Diagnostics& d) {
  std::vector<std::string> c;
  for (const Diagnostic& x : d.kept()) c.push_back(x.code);
  return c;
}

std::string ReaderDiagnostics(const Diagnostics& d) {
  std::string s;
  for (const Diagnostic& x : d.kept()) s += x.ToString() + "\n";
  return s;
}

size_t Find(const Snapshot& s, ObjectId id) {
  for (size_t i = 0; i < s.object_count(); ++i)
    if (s.object_id[i] == id) return i;
  ADD_FAILURE() << "no object " << std::hex << id;
  return 0;
}

std::vector<ObjectId> Refs(const Snapshot& s, ObjectId id) {
  auto r = s.object_refs(Find(s, id));
  return {r.begin(), r.end()};
}

TEST(IbmClassicReader, ReadsTheSpecExamples) {
  Diagnostics d;
  formats::IbmReadStats st;
  Snapshot s = formats::ReadIbmClassicFile(Data("spec_examples.txt"), d, {}, &st);
  ASSERT_EQ(s.sections.size(), 1u);
  EXPECT_EQ(s.sections[0].name, "J2RE 6.0 IBM J9 2.5 Linux x86-32 build 20081016_024574_lHdRSr");
  EXPECT_TRUE(s.sections[0].closed);
  ASSERT_EQ(s.object_count(), 4u);
  EXPECT_EQ(s.type_name_of(Find(s, 0x00436E90)), "java.lang.String");
  EXPECT_EQ(s.object_size[Find(s, 0x00436E90)], 28u);
  EXPECT_EQ(Refs(s, 0x00436E90), (std::vector<ObjectId>{0x00436EB0}));
  EXPECT_EQ(s.type_name_of(Find(s, 0x00436EB0)), "char[]");
  EXPECT_EQ(s.object_size[Find(s, 0x00436EB0)], 44u);
  EXPECT_TRUE(Refs(s, 0x00436EB0).empty());
  // The array's references wrap over four lines, with trailing blanks and nulls among them.
  EXPECT_EQ(s.type_name_of(Find(s, 0x004380C0)), "java.util.Hashtable$Entry[]");
  EXPECT_EQ(s.object_size[Find(s, 0x004380C0)], 108u);
  EXPECT_EQ(Refs(s, 0x004380C0),
            (std::vector<ObjectId>{0x00421660, 0x004381C0, 0x00438130, 0x00438160, 0x00421618,
                                   0x00421690, 0x00438178, 0x004381A8, 0x004381F0, 0x004381D8,
                                   0x00438190, 0x004216A8}));
  EXPECT_EQ(s.type_name_of(Find(s, 0x00438130)), "java.util.Hashtable$Entry");
  EXPECT_EQ(Refs(s, 0x00438130), (std::vector<ObjectId>{0x004219B8, 0x004341F0}));
  // The class record: its heap reference is a static root of java.lang.Runnable; its class
  // block references (itself, 0x4152F018 is not a heap object but is not known as a class
  // either, so it is a root too) and nulls are not.
  int runnable = -1;
  for (size_t t = 0; t < s.types.size(); ++t)
    if (s.types[t].name == "java.lang.Runnable") runnable = static_cast<int>(t);
  ASSERT_GE(runnable, 0);
  EXPECT_EQ(s.types[runnable].id, 0x41532E68u);
  bool found_static = false;
  for (size_t r = 0; r < s.root_count(); ++r) {
    EXPECT_EQ(s.root_kind_of(r), RootKind::kStatic);
    EXPECT_EQ(s.root_container[r], 0x41532E68u);
    if (s.root_object[r] == 0x00499790) found_static = true;
  }
  EXPECT_TRUE(found_static);
  EXPECT_EQ(st.null_refs, 11u + 1u + 2u);
  EXPECT_EQ(st.class_records, 1u);
  EXPECT_EQ(st.object_records, 4u);
  EXPECT_EQ(st.object_arrays, 1u);
  EXPECT_EQ(st.primitive_arrays, 1u);
  // The excerpt references objects and classes it does not list, and its trailer counts the
  // whole heap it came from; nothing else is wrong with it.
  for (const Diagnostic& x : d.kept()) {
    EXPECT_TRUE(x.code == "dangling-ref" || x.code == "dangling-root" ||
                x.code == "missing-class" || x.code == "trailer-mismatch")
        << x.ToString();
  }
  EXPECT_NE(ReaderDiagnostics(d).find("trailer says Classes: 321, the file has 1"),
            std::string::npos)
      << ReaderDiagnostics(d);
  EXPECT_NE(ReaderDiagnostics(d).find("spec_examples.txt:13: class record references 0x4152f018"),
            std::string::npos)
      << ReaderDiagnostics(d);
}

TEST(IbmClassicReader, ReadsJ9NativeStyleExactly) {
  Diagnostics d;
  formats::IbmReadStats st;
  Snapshot s = formats::ReadIbmClassicFile(Data("j9_native_style.txt"), d, {}, &st);
  EXPECT_TRUE(d.empty()) << ReaderDiagnostics(d);
  ASSERT_EQ(s.object_count(), 5u);
  ASSERT_EQ(s.type_count(), 5u);
  // Types keyed by class block address, in order of first use.
  EXPECT_EQ(s.types[0].id, 0x00010100u);
  EXPECT_EQ(s.types[0].name, "java.lang.String");
  EXPECT_EQ(s.types[1].name, "char[]");
  EXPECT_EQ(s.types[2].name, "java.lang.Object[]");
  EXPECT_EQ(s.types[3].name, "java.lang.Object");
  EXPECT_EQ(s.types[4].name, "java.lang.Class");
  for (const TypeInfo& t : s.types) EXPECT_FALSE(t.placeholder);
  EXPECT_EQ(Refs(s, 0x00436E90), (std::vector<ObjectId>{0x00436EB0}));
  EXPECT_EQ(Refs(s, 0x00436EE0), (std::vector<ObjectId>{0x00436E90, 0x00436F00}));
  EXPECT_TRUE(Refs(s, 0x00436F10).empty());  // its reference to a class block is no edge
  EXPECT_EQ(s.total_bytes(), 32u + 48 + 24 + 16 + 40);
  ASSERT_EQ(s.root_count(), 3u);
  EXPECT_EQ(s.root_object[0], 0x00436E90u);
  EXPECT_EQ(s.root_container[0], 0x00010100u);
  EXPECT_EQ(s.root_object[1], 0x00436F10u);
  EXPECT_EQ(s.root_object[2], 0x00436EE0u);
  EXPECT_EQ(s.root_container[2], 0x00010500u);
  for (size_t r = 0; r < 3; ++r) {
    EXPECT_EQ(s.root_kind_of(r), RootKind::kStatic);
    EXPECT_EQ(s.root_flags[r], 0);
  }
  EXPECT_EQ(st.class_refs, 5u + 1u + 4u);  // class of each object, a reflection ref, supers
  EXPECT_EQ(st.null_refs, 0u);             // J9 counts nulls in the trailer but lists none
  EXPECT_EQ(st.refs, 16u);
  EXPECT_TRUE(st.saw_breakdown && st.saw_eof);
}

TEST(IbmClassicReader, ReadsDtfjStyleWithCrlfCompactColonsAndShortNulls) {
  Diagnostics d;
  formats::IbmReadStats st;
  Snapshot s = formats::ReadIbmClassicFile(Data("dtfj_style.txt"), d, {}, &st);
  EXPECT_TRUE(d.empty()) << ReaderDiagnostics(d);
  EXPECT_EQ(s.sections[0].name,
            "JRE 1.8.0 IBM J9 2.9 Windows 7 amd64-64 build pwa6480sr6-20171231_01");
  ASSERT_EQ(s.object_count(), 2u);
  EXPECT_EQ(Refs(s, 0x436E90), (std::vector<ObjectId>{0x436EB0}));
  EXPECT_EQ(st.null_refs, 2u);
  ASSERT_EQ(s.root_count(), 1u);
  EXPECT_EQ(s.root_object[0], 0x436E90u);
}

// Builds a small consistent file with the trailers spelled as `breakdown` and `eof` say.
std::string WithTrailers(const std::string& breakdown, const std::string& eof) {
  return "// Version: v\n"
         "0x00001000 [16] OBJ java/lang/Object\n\t0x00000100 0x00001010 0x00000000   \n"
         "0x00001010 [24] OBJ [I\n\t0x00000200\t\n"
         "0x00000100 [0] CLS java/lang/Object\n\t0x00001000 \n"
         "0x00000200 [0] CLS [I\n\t\n" +
         breakdown + "\n" + eof + "\n";
}

TEST(IbmClassicReader, AcceptsEveryTrailerSpelling) {
  const std::string breakdowns[] = {
      "// Breakdown - Classes: 2, Objects: 1, ObjectArrays: 0, PrimitiveArrays: 1",
      "// Breakdown - Classes:2, Objects:1, ObjectArrays:0, PrimitiveArrays:1",
      "// Breakdown - Classes: 2,Objects: 1,ObjectArrays: 0,PrimitiveArrays: 1   ",
      "// Breakdown - Classes: 2, Objects: 1, ObjectArrays: 0, \nPrimitiveArrays: 1",
  };
  const std::string eofs[] = {
      "// EOF:  Total 'Objects',Refs(null) : 4,5(1)",
      "// EOF: Total 'Objects',Refs(null) : 4,5(1)",
      "// EOF: Total 'Objects',Refs(null) :4,5(1)",
      "// EOF:  Total 'Objects',Refs(null) : 4,5(1)  \r",
      "// EOF:  Total 'Objects',Refs(null) :\n4,5(1)",
      "// EOF:  Total 'Objects',Refs(null) : 4,3(1)",  // class block refs not counted
      "// EOF:  Total 'Objects',Refs(null) : 4,5",     // no null count
  };
  for (const auto& b : breakdowns) {
    for (const auto& e : eofs) {
      Diagnostics d;
      formats::IbmReadStats st;
      Snapshot s = formats::ReadIbmClassic(WithTrailers(b, e), "t", d, {}, &st);
      EXPECT_TRUE(d.empty()) << b << " / " << e << "\n" << ReaderDiagnostics(d);
      EXPECT_EQ(s.object_count(), 2u);
      EXPECT_TRUE(st.saw_breakdown && st.saw_eof);
    }
  }
}

TEST(IbmClassicReader, ReportsWrongTrailerCounts) {
  Diagnostics d;
  formats::ReadIbmClassic(WithTrailers("// Breakdown - Classes: 3, Objects: 1, ObjectArrays: 0, "
                                       "PrimitiveArrays: 1",
                                       "// EOF:  Total 'Objects',Refs(null) : 4,7(1)"),
                          "t", d);
  EXPECT_EQ(Codes(d), (std::vector<std::string>{"trailer-mismatch", "trailer-mismatch"}))
      << ReaderDiagnostics(d);
  EXPECT_NE(ReaderDiagnostics(d).find("t:10: the trailer says Classes: 3, the file has 2"),
            std::string::npos);
  EXPECT_NE(ReaderDiagnostics(d).find("t:11: the trailer says Refs(null) 7(1)"), std::string::npos)
      << ReaderDiagnostics(d);
}

struct Expect {
  const char* file;
  std::vector<std::pair<std::string, uint64_t>> diags;  // (code, line), in order
};

TEST(IbmClassicReader, MalformedCorpusGetsDiagnosticsWithLines) {
  const Expect corpus[] = {
      {"bad_address.txt", {{"bad-number", 2}}},
      {"bad_size.txt", {{"bad-size", 2}}},
      {"unknown_record.txt", {{"bad-record", 2}, {"trailer-mismatch", 7}}},
      {"missing_type.txt", {{"missing-type", 2}}},
      {"bad_ref_token.txt", {{"bad-number", 3}}},
      {"long_hex.txt", {{"bad-number", 3}}},
      {"stray_refs.txt", {{"stray-refs", 2}}},
      {"garbage_line.txt", {{"bad-record", 4}}},
      {"truncated.txt", {{"missing-trailer", 5}, {"missing-trailer", 5}}},
      {"trailer_mismatch.txt", {{"trailer-mismatch", 6}, {"trailer-mismatch", 7}}},
      {"bad_trailer.txt", {{"bad-trailer", 7}}},
      {"bad_breakdown.txt", {{"bad-trailer", 6}, {"bad-trailer", 6}, {"bad-trailer", 6}}},
      {"duplicate_object.txt", {{"duplicate-object", 4}}},
      {"duplicate_class.txt", {{"duplicate-class", 6}}},
      {"dangling_ref.txt", {{"dangling-ref", 2}}},
      {"missing_class.txt", {{"missing-class", 2}}},
      {"class_name_mismatch.txt", {{"class-name-mismatch", 4}}},
      {"missing_class_ref.txt", {{"missing-class-ref", 2}}},
      {"after_eof.txt", {{"after-eof", 8}}},
      {"size_overflow.txt", {{"size-overflow", 2}}},
      {"missing_header.txt", {{"missing-header", 1}}},
      {"duplicate_header.txt", {{"duplicate-header", 4}}},
      {"null_object.txt", {{"bad-number", 2}}},
  };
  for (const Expect& e : corpus) {
    SCOPED_TRACE(e.file);
    Diagnostics d;
    const std::string path = Data(std::string("malformed/") + e.file);
    formats::ReadIbmClassicFile(path, d);
    std::vector<std::pair<std::string, uint64_t>> got;
    for (const Diagnostic& x : d.kept()) {
      got.emplace_back(x.code, x.line);
      EXPECT_EQ(x.file, path);
      EXPECT_FALSE(x.message.empty());
    }
    EXPECT_EQ(got, e.diags) << ReaderDiagnostics(d);
    // Strict mode stops at the first problem with the same diagnostic.
    try {
      formats::ReadIbmClassicFile(path, d, formats::ReadOptions{.strict = true});
      ADD_FAILURE() << "strict read did not throw";
    } catch (const InputError& err) {
      EXPECT_EQ(err.diagnostic().code, e.diags.front().first);
      EXPECT_EQ(err.diagnostic().line, e.diags.front().second);
      EXPECT_NE(std::string(err.what()).find(path + ":"), std::string::npos) << err.what();
    }
  }
}

TEST(IbmClassicReader, LenientReadKeepsWhatIsValid) {
  Diagnostics d;
  Snapshot s = formats::ReadIbmClassicFile(Data("malformed/bad_ref_token.txt"), d);
  ASSERT_EQ(s.object_count(), 1u);
  EXPECT_TRUE(s.object_refs(0).empty());  // 0xGG dropped, the class ref is no edge
  Snapshot t = formats::ReadIbmClassicFile(Data("malformed/missing_class.txt"), d);
  ASSERT_EQ(t.type_count(), 1u);
  EXPECT_EQ(t.types[0].name, "java.lang.Object");  // named from the OBJ line
  Snapshot dup = formats::ReadIbmClassicFile(Data("malformed/duplicate_object.txt"), d);
  EXPECT_EQ(dup.object_count(), 1u);  // the first is kept
  EXPECT_EQ(dup.ref_count(), 0u);
  Snapshot u = formats::ReadIbmClassicFile(Data("malformed/truncated.txt"), d);
  EXPECT_FALSE(u.sections[0].closed);
  EXPECT_EQ(u.object_count(), 1u);
}

TEST(IbmClassicReader, InputWithoutAnyHeapdumpIsAnError) {
  for (const char* f : {"malformed/not_ibm.txt", "malformed/empty.txt"}) {
    Diagnostics d;
    EXPECT_THROW(formats::ReadIbmClassicFile(Data(f), d), InputError) << f;
  }
  Diagnostics d;
  EXPECT_THROW(formats::ReadIbmClassicFile(Data("no/such/file.txt"), d), InputError);
}

TEST(IbmClassicReader, SniffsTheFormat) {
  EXPECT_TRUE(formats::LooksLikeIbmClassic(FileBytes(Data("spec_examples.txt"))));
  EXPECT_TRUE(formats::LooksLikeIbmClassic("\n\n0x00001000 [16] OBJ java/lang/Object\n"));
  EXPECT_FALSE(formats::LooksLikeIbmClassic(FileBytes(Data("malformed/not_ibm.txt"))));
  EXPECT_FALSE(formats::LooksLikeIbmClassic(""));
  EXPECT_FALSE(formats::LooksLikeIbmClassic("{\"snapshot\":"));
}

// Hostile input: random bytes and every truncation / corruption of a valid file must load
// leniently or throw InputError, never crash or hang; diagnostics stay bounded.
TEST(IbmClassicReader, SurvivesGarbageAndCorruption) {
  std::mt19937 rng(7);
  for (int round = 0; round < 200; ++round) {
    std::string junk(rng() % 2000, '\0');
    static constexpr std::string_view kAlphabet = "0x[]OBJCLS \n\t/";
    for (char& c : junk)
      c = static_cast<char>(rng() % 4 == 0 ? kAlphabet[rng() % kAlphabet.size()] : rng());
    Diagnostics d(false, 50);
    try {
      formats::ReadIbmClassic(junk, "junk", d);
    } catch (const InputError&) {
    }
    EXPECT_LE(d.kept().size(), 50u);
  }
  const std::string good = FileBytes(Data("j9_native_style.txt"));
  for (size_t cut = 0; cut <= good.size(); ++cut) {
    Diagnostics d;
    try {
      Snapshot s = formats::ReadIbmClassic(good.substr(0, cut), "cut", d);
      EXPECT_LE(s.object_count(), 5u);
    } catch (const InputError&) {
    }
  }
  for (int round = 0; round < 500; ++round) {
    std::string bad = good;
    for (int k = 0; k < 3; ++k) bad[rng() % bad.size()] = static_cast<char>(rng());
    Diagnostics d;
    try {
      formats::ReadIbmClassic(bad, "flip", d);
    } catch (const InputError&) {
    }
  }
}

TEST(IbmClassicReader, SixtyFourBitClassAddressesGetOrdinalTypeIds) {
  const std::string text =
      "// Version: 64\n"
      "0x00007F0000001000 [16] OBJ java/lang/Object\n\t0x00007F1000000100 0x00007F0000001010 \n"
      "0x00007F0000001010 [16] OBJ java/lang/Object\n\t0x00007F1000000100 \n"
      "0x00007F1000000100 [0] CLS java/lang/Object\n\t0x00007F0000001000 \n"
      "// Breakdown - Classes: 1, Objects: 2, ObjectArrays: 0, PrimitiveArrays: 0\n"
      "// EOF:  Total 'Objects',Refs(null) : 3,4(0)\n";
  Diagnostics d;
  Snapshot s = formats::ReadIbmClassic(text, "t", d);
  EXPECT_TRUE(d.empty()) << ReaderDiagnostics(d);
  ASSERT_EQ(s.type_count(), 1u);
  EXPECT_EQ(s.types[0].id, 1u);
  ASSERT_EQ(s.root_count(), 1u);
  EXPECT_EQ(s.root_container[0], 1u);
  EXPECT_EQ(Refs(s, 0x00007F0000001000), (std::vector<ObjectId>{0x00007F0000001010}));
}

}  // namespace
}  // namespace xrpm
