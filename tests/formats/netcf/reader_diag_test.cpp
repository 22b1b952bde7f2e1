// Every diagnostic the NETCF reader reports: its code, its line, what is kept, and strict mode.
#include <gtest/gtest.h>

#include <algorithm>

#include "xrpm/formats/netcf_reader.h"

namespace xrpm {
namespace {

struct Result {
  Snapshot snap;
  Diagnostics diags;
};

Result ReadDiag(std::string_view text, unsigned threads = 1) {
  Result r;
  formats::ReadOptions ro;
  ro.threads = threads;
  r.snap = formats::ReadNetcf(text, "d.gclog", r.diags, ro);
  return r;
}

// The (line, code) pairs reported, in order.
std::vector<std::pair<uint64_t, std::string>> Found(const Diagnostics& d) {
  std::vector<std::pair<uint64_t, std::string>> v;
  for (const Diagnostic& x : d.kept()) v.emplace_back(x.line, x.code);
  return v;
}

using Pairs = std::vector<std::pair<uint64_t, std::string>>;

TEST(NetcfDiag, UnknownRecord) {
  Result r = ReadDiag("a 2 x\nq 1 2\nobject 1 1 1\nc x\n");
  EXPECT_EQ(Found(r.diags), (Pairs{{2, "unknown-record"}, {3, "unknown-record"}}));
  EXPECT_NE(r.diags.kept()[0].message.find("'q 1 2'"), std::string::npos);
  EXPECT_EQ(r.diags.kept()[0].ToString().rfind("d.gclog:2: ", 0), 0u);
}

TEST(NetcfDiag, BadNumbersDropTheRecordButABadReferenceOnlyItself) {
  Result r = ReadDiag(
      "a 2 x\nt 1 T\n"
      "o 1g 1 4\n"                    // 3: bad id
      "o 10 1 100000000\n"            // 4: size out of range
      "o 20 1 4 10 zz 30\n"           // 5: bad ref, object kept
      "o 30 1 4 11112222333344445\n"  // 6: ref overflows 64 bits
      "c x\n");
  EXPECT_EQ(Found(r.diags), (Pairs{{3, "bad-number"},
                                   {4, "bad-number"},
                                   {5, "bad-number"},
                                   {5, "dangling-ref"},
                                   {6, "bad-number"}}));
  ASSERT_EQ(r.snap.object_count(), 2u);
  EXPECT_EQ(r.snap.object_refs(0).size(), 2u);
  EXPECT_EQ(r.snap.object_refs(1).size(), 0u);
}

TEST(NetcfDiag, LeadingZerosAreNotOverflow) {
  Result r = ReadDiag("a 2 x\nt 1 T\no 000000000000000000000ff 1 4\nc x\n");
  EXPECT_TRUE(r.diags.empty());
  EXPECT_EQ(r.snap.object_id[0], 0xffu);
}

TEST(NetcfDiag, MissingFields) {
  Result r = ReadDiag("a 2 x\nt 1\no 1 1\nr 1 1\nr 2 4 0\nc\n");
  EXPECT_EQ(Found(r.diags), (Pairs{{2, "missing-field"},
                                   {3, "missing-field"},
                                   {4, "missing-field"},
                                   {5, "missing-field"},
                                   {5, "dangling-root"},
                                   {6, "missing-field"}}));
  // The static root without a container is kept with container 0.
  ASSERT_EQ(r.snap.root_count(), 1u);
  EXPECT_EQ(r.snap.root_container[0], 0u);
  EXPECT_TRUE(r.snap.sections[0].closed);
}

TEST(NetcfDiag, AppDomainWithoutNameOrVersion) {
  Result r = ReadDiag("a\no 1 1 1\n");
  ASSERT_EQ(r.snap.sections.size(), 1u);
  EXPECT_EQ(r.snap.sections[0].version, 2u);
  EXPECT_EQ(r.snap.sections[0].name, "");
  auto f = Found(r.diags);
  EXPECT_EQ(f[0], (std::pair<uint64_t, std::string>{1, "missing-field"}));
}

TEST(NetcfDiag, ExtraFieldAndRootKindAndFlags) {
  Result r =
      ReadDiag("a 2 x\nt 1 T\no 1 1 4\nr 1 1 0 9\nr 1 6 0\nr 1 3 10\nr 1 3 100\nr 1 3 9\nc x\n");
  EXPECT_EQ(Found(r.diags), (Pairs{{4, "extra-field"},
                                   {5, "bad-root-kind"},
                                   {6, "unknown-root-flags"},
                                   {7, "bad-number"},
                                   {8, "unknown-root-flags"}}));
  ASSERT_EQ(r.snap.root_count(), 3u);  // extra field ignored, unknown flags kept
  EXPECT_EQ(r.snap.root_flags[1], 0x10u);
  // ... but bit 8, xrpm's own conservative flag, which a .gclog cannot carry.
  EXPECT_EQ(r.snap.root_flags[2], kRootPinned);
}

TEST(NetcfDiag, OutsideSectionKeepsRecordsInUnnamedSection) {
  Result r = ReadDiag("t 1 T\no 1 1 4\na 2 x\nc x\no 2 1 4\n");
  EXPECT_EQ(Found(r.diags),
            (Pairs{{1, "outside-section"}, {5, "outside-section"}, {5, "unknown-type"}}));
  ASSERT_EQ(r.snap.sections.size(), 3u);
  EXPECT_EQ(r.snap.sections[0].name, "");
  EXPECT_FALSE(r.snap.sections[0].closed);
  EXPECT_EQ(r.snap.object_count(), 2u);
  EXPECT_EQ(r.snap.type_name_of(0), "T");
}

TEST(NetcfDiag, RecordsWithoutAnyARecordTakeTheNameOfTheCRecord) {
  Result r = ReadDiag("o 1 1 4\nc game.exe 5\n");
  ASSERT_EQ(r.snap.sections.size(), 1u);
  EXPECT_EQ(r.snap.sections[0].name, "game.exe");
  EXPECT_TRUE(r.snap.sections[0].closed);
  EXPECT_EQ(r.snap.sections[0].end_ms, 5u);
}

TEST(NetcfDiag, UnclosedSections) {
  Result r = ReadDiag("a 2 one\nt 1 T\no 1 1 4\na 2 two\no 2 1 4\n");
  EXPECT_EQ(Found(r.diags),
            (Pairs{{1, "unclosed-section"}, {4, "unclosed-section"}, {5, "unknown-type"}}));
  ASSERT_EQ(r.snap.sections.size(), 2u);
  EXPECT_FALSE(r.snap.sections[0].closed);
  EXPECT_FALSE(r.snap.sections[1].closed);
  EXPECT_EQ(r.snap.sections[0].objects_end, 1u);
  EXPECT_EQ(r.snap.sections[1].objects_begin, 1u);
  EXPECT_NE(r.diags.kept()[0].message.find("line 4"), std::string::npos);
}

TEST(NetcfDiag, UnmatchedEndAndNameMismatch) {
  Result r = ReadDiag("a 2 x 10\nc y 20\nc x\n");
  EXPECT_EQ(Found(r.diags), (Pairs{{2, "end-name-mismatch"}, {3, "unmatched-end"}}));
  EXPECT_EQ(r.snap.sections[0].end_name, "y");
  EXPECT_EQ(r.snap.sections[0].end_ms, 0x20u);
}

TEST(NetcfDiag, DuplicateTypeKeepsTheFirst) {
  Result r = ReadDiag("a 2 x\nt 1 A\nt 1 B\no 5 1 4\nc x\n");
  EXPECT_EQ(Found(r.diags), (Pairs{{3, "duplicate-type"}}));
  EXPECT_EQ(r.snap.type_name_of(0), "A");
  EXPECT_EQ(r.snap.type_count(), 1u);
}

TEST(NetcfDiag, UnknownTypeBecomesAPlaceholderReportedAtFirstUse) {
  Result r = ReadDiag("a 2 x\nt 1 A\no 5 1 4\no 6 1f 4\no 7 1f 8\nc x\n");
  EXPECT_EQ(Found(r.diags), (Pairs{{4, "unknown-type"}}));
  ASSERT_EQ(r.snap.type_count(), 2u);
  EXPECT_TRUE(r.snap.types[1].placeholder);
  EXPECT_EQ(r.snap.types[1].name, "<unknown type 1f>");
  EXPECT_EQ(r.snap.types[1].id, 0x1fu);
  EXPECT_NE(r.diags.kept()[0].message.find("2 object(s)"), std::string::npos);
}

TEST(NetcfDiag, TypeIdsArePerSection) {
  Result r = ReadDiag("a 2 x\nt 1 A\no 5 1 4\nc x\na 2 y\nt 1 B\no 6 1 4\nc y\n");
  EXPECT_TRUE(r.diags.empty());
  EXPECT_EQ(r.snap.type_name_of(0), "A");
  EXPECT_EQ(r.snap.type_name_of(1), "B");
  EXPECT_EQ(r.snap.types[1].section, 1u);
}

TEST(NetcfDiag, DuplicateObjectKeepsTheFirst) {
  Result r = ReadDiag("a 2 x\nt 1 A\no 5 1 4 6\no 6 1 8\no 5 1 c 6 6\nr 5 1 0\nc x\n");
  EXPECT_EQ(Found(r.diags), (Pairs{{5, "duplicate-object"}}));
  ASSERT_EQ(r.snap.object_count(), 2u);
  EXPECT_EQ(r.snap.object_size[0], 4u);
  EXPECT_EQ(r.snap.ref_count(), 1u);
  EXPECT_EQ(r.snap.sections[0].objects_end, 2u);
}

TEST(NetcfDiag, DanglingReferencesAndRootsAreKeptRaw) {
  Result r = ReadDiag("a 2 x\nr 6 1 0\nt 1 A\no 5 1 4 7 6\no 6 1 8\nr 9 3 2\nc x\n");
  EXPECT_EQ(Found(r.diags), (Pairs{{4, "dangling-ref"}, {6, "dangling-root"}}));
  EXPECT_EQ(r.snap.object_refs(0)[0], 7u);
  EXPECT_EQ(r.snap.root_count(), 2u);  // the root before its object is fine
}

TEST(NetcfDiag, NothingValidIsAnInputError) {
  Diagnostics d;
  try {
    const char bytes[] = "\x89PNG\r\n\x1a\n\0\0\0 binary\n";
    formats::ReadNetcf(std::string_view(bytes, sizeof bytes - 1), "x.png", d);
    FAIL() << "expected InputError";
  } catch (const InputError& e) {
    EXPECT_EQ(e.diagnostic().code, "no-records");
  }
  EXPECT_EQ(d.counts().at("unknown-record"), 3u);
}

// Regression: an empty or blank file used to load silently as an empty snapshot
// ("Diagnostics: none", exit 0 even under --strict). It is not a heap dump: a no-records
// warning when lenient, an InputError under strict.
TEST(NetcfDiag, EmptyAndBlankInputsWarnNoRecordsAndFailStrict) {
  for (std::string_view t : {"", "\n\n", "  \r\n\t\n", " "}) {
    Result r = ReadDiag(t);
    ASSERT_EQ(r.diags.total(), 1u) << '"' << t << '"';
    EXPECT_EQ(r.diags.counts().at("no-records"), 1u);
    EXPECT_EQ(r.diags.kept()[0].file, "d.gclog");
    EXPECT_EQ(r.snap.sections.size(), 0u);
    Diagnostics strict_sink;
    formats::ReadOptions o;
    o.strict = true;
    try {
      formats::ReadNetcf(t, "t.gclog", strict_sink, o);
      ADD_FAILURE() << "strict read of a blank file loaded";
    } catch (const InputError& e) {
      EXPECT_EQ(e.diagnostic().code, "no-records");
      EXPECT_NE(e.diagnostic().message.find(t.empty() ? "empty" : "blank"), std::string::npos);
    }
  }
}

TEST(NetcfDiag, DiagnosticsAreCappedButCounted) {
  std::string text = "a 2 x\nt 1 A\n";
  for (int i = 0; i < 5000; ++i) text += "? junk\n";
  for (int i = 0; i < 3000; ++i) text += "o " + std::to_string(1000 + i) + " 1 4 dead\n";
  text += "c x\n";
  for (unsigned threads : {1u, 3u}) {
    Result r = ReadDiag(text, threads);
    EXPECT_EQ(r.diags.total(), 8000u);
    EXPECT_EQ(r.diags.kept().size(), 1000u);
    EXPECT_EQ(r.diags.dropped(), 7000u);
    EXPECT_EQ(r.diags.counts().at("unknown-record"), 5000u);
    EXPECT_EQ(r.diags.counts().at("dangling-ref"), 3000u);
    EXPECT_EQ(r.diags.kept().back().line, 1002u);  // the first 1000 problems, in line order
  }
}

TEST(NetcfDiag, LinesAreExactWhateverTheChunking) {
  std::string text;
  for (int s = 0; s < 5; ++s) {
    text += "a 2 s" + std::to_string(s) + "\n";
    for (int i = 0; i < 3000; ++i) {
      text += "o " + std::to_string(s * 100000 + i + 1) + " 1 8 " +
              std::to_string(i % 977 == 0 ? 999999 : s * 100000 + 1) + "\n";
      if (i % 1301 == 0) text += "t 1 T\n";
      if (i % 1777 == 0) text += "r 7 1 0\n";
    }
    if (s != 2) text += "c s" + std::to_string(s) + "\n";
  }
  Result one = ReadDiag(text, 1);
  for (unsigned threads : {2u, 5u, 16u}) {
    Result many = ReadDiag(text, threads);
    EXPECT_EQ(Found(many.diags), Found(one.diags)) << threads;
    EXPECT_TRUE(many.snap == one.snap) << threads;
  }
  EXPECT_GT(one.diags.total(), 10u);
}

TEST(NetcfDiag, StrictThrowsOnTheFirstProblemWithItsLine) {
  struct Case {
    std::string text;
    uint64_t line;
    std::string code;
  };
  const std::vector<Case> cases = {
      {"a 2 x\nq\nc x\n", 2, "unknown-record"},
      {"a 2 x\nt 1 A\no 1 1 zz\nc x\n", 3, "bad-number"},
      {"a 2 x\nt 1\nc x\n", 2, "missing-field"},
      {"a 2 x\nt 1 A\no 1 1 4\nr 1 1 0 1\nc x\n", 4, "extra-field"},
      {"a 2 x\nt 1 A\no 1 1 4\nr 1 7 0\nc x\n", 4, "bad-root-kind"},
      {"a 2 x\nt 1 A\no 1 1 4\nr 1 1 10\nc x\n", 4, "unknown-root-flags"},
      {"t 1 A\n", 1, "outside-section"},
      {"a 2 x\nt 1 A\n", 1, "unclosed-section"},
      {"a 2 x\nc x\nc x\n", 3, "unmatched-end"},
      {"a 2 x\nc y\n", 2, "end-name-mismatch"},
      {"a 2 x\nt 1 A\nt 1 B\nc x\n", 3, "duplicate-type"},
      {"a 2 x\no 1 1 4\nc x\n", 2, "unknown-type"},
      {"a 2 x\nt 1 A\no 1 1 4\no 1 1 4\nc x\n", 4, "duplicate-object"},
      {"a 2 x\nt 1 A\no 1 1 4 2\nc x\n", 3, "dangling-ref"},
      {"a 2 x\nt 1 A\nr 2 1 0\nc x\n", 3, "dangling-root"},
  };
  for (const Case& c : cases) {
    for (unsigned threads : {1u, 2u}) {
      Diagnostics d;
      formats::ReadOptions ro;
      ro.strict = true;
      ro.threads = threads;
      try {
        formats::ReadNetcf(c.text, "s.gclog", d, ro);
        ADD_FAILURE() << "no error for " << c.code;
      } catch (const InputError& e) {
        EXPECT_EQ(e.diagnostic().code, c.code) << c.text;
        EXPECT_EQ(e.diagnostic().line, c.line) << c.text;
        EXPECT_EQ(e.diagnostic().file, "s.gclog");
      }
    }
    // The same input loads leniently.
    Result r = ReadDiag(c.text);
    EXPECT_EQ(r.diags.counts().count(c.code), 1u) << c.code;
  }
  // A Diagnostics sink in strict mode has the same effect as formats::ReadOptions::strict.
  Diagnostics strict_sink(true);
  EXPECT_THROW(formats::ReadNetcf("a 2 x\nq\n", "s", strict_sink), InputError);
}

}  // namespace
}  // namespace xrpm
