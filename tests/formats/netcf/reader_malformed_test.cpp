// A corpus of malformed and hostile lines: each gets a clear diagnostic at its own line and
// nothing crashes, hangs or allocates out of proportion to the input.
#include <gtest/gtest.h>
#include <sys/resource.h>

#include <string>

#include "xrpm/formats/netcf_reader.h"

namespace xrpm {
namespace {

struct Bad {
  std::string line;
  const char* code;
};

std::vector<Bad> Corpus() {
  std::vector<Bad> v = {
      {"x", "unknown-record"},
      {"oo 1 1 1", "unknown-record"},
      {"O 1 1 1", "unknown-record"},
      {"#comment", "unknown-record"},
      {std::string("\0\0\0\0", 4), "unknown-record"},
      {"\xff\xfe o", "unknown-record"},
      {"o", "missing-field"},
      {"o 1", "missing-field"},
      {"o 1 1", "missing-field"},
      {"o -1 1 1", "bad-number"},
      {"o 0x10 1 1", "bad-number"},
      {"o 1,2 1 1", "bad-number"},
      {"o 1 1 1 2,", "bad-number"},
      {"o 10000000000000000 1 1", "bad-number"},
      {"o 1 100000000 1", "bad-number"},
      {"o 1 1 100000000", "bad-number"},
      {"o 1 1 ffffffffffffffffffffffffffffffff", "bad-number"},
      {"o 1 1 1 " + std::string(100000, 'f'), "bad-number"},
      {"o 1 1 1 \xe2\x80\x8b", "bad-number"},
      {"t", "missing-field"},
      {"t 1", "missing-field"},
      {"t   \t ", "missing-field"},
      {"t zz Name", "bad-number"},
      {"t 100000000 Name", "bad-number"},
      {"r", "missing-field"},
      {"r 10", "missing-field"},
      {"r 10 1", "missing-field"},
      {"r 10 4 0", "missing-field"},
      {"r 10 4 0 zz", "bad-number"},
      {"r 10 1 0 0", "extra-field"},
      {"r 10 4 0 1 2", "extra-field"},
      {"r 10 6 0", "bad-root-kind"},
      {"r 10 ffffffffffffffff 0", "bad-root-kind"},
      {"r 10 1 100", "bad-number"},
      {"r 10 1 f8", "unknown-root-flags"},
      {"r 10 q 0", "bad-number"},
      {"c", "missing-field"},
      {"c other", "end-name-mismatch"},
      {"t 1 Again", "duplicate-type"},
      {"o 10 1 4", "duplicate-object"},
      {"o 11 2 4", "unknown-type"},
      {"o 12 1 4 bad0", "dangling-ref"},
      {"r bad0 1 0", "dangling-root"},
      {"a", "missing-field"},
      {"a zz app", "bad-number"},
      {"a 100000000 app", "bad-number"},
  };
  return v;
}

TEST(NetcfMalformed, EachLineGetsItsDiagnosticAtItsLine) {
  for (const Bad& b : Corpus()) {
    const std::string text = "a 2 app 1\nt 1 T\no 10 1 8\n" + b.line + "\no 20 1 8\nc app 2\n";
    Diagnostics d;
    Snapshot s;
    ASSERT_NO_THROW(s = formats::ReadNetcf(text, "m.gclog", d)) << b.line.substr(0, 60);
    bool found = false;
    for (const Diagnostic& x : d.kept()) {
      if (x.code == b.code && x.line == 4) found = true;
      EXPECT_FALSE(x.message.empty());
      EXPECT_LT(x.message.size(), 400u) << "messages quote at most a short excerpt";
    }
    EXPECT_TRUE(found) << "'" << b.line.substr(0, 60) << "' should report " << b.code
                       << " at line 4; got "
                       << (d.kept().empty() ? "nothing" : d.kept().front().ToString());
    // The valid records around it are intact.
    EXPECT_GE(s.object_count(), 2u) << b.line.substr(0, 60);
    EXPECT_EQ(s.object_id[0], 0x10u);
  }
}

TEST(NetcfMalformed, WholeCorpusInOneFileInStrictAndLenientMode) {
  std::string text = "a 2 app 1\nt 1 T\no 10 1 8\n";
  for (const Bad& b : Corpus()) text += b.line + "\n";
  for (unsigned threads : {1u, 4u}) {
    Diagnostics d;
    formats::ReadOptions ro;
    ro.threads = threads;
    EXPECT_NO_THROW(formats::ReadNetcf(text, "m", d, ro));
    EXPECT_GE(d.total(), Corpus().size());
    ro.strict = true;
    Diagnostics ds;
    EXPECT_THROW(formats::ReadNetcf(text, "m", ds, ro), InputError);
  }
}

// Deterministic random bytes and random mutations of a valid file: never a crash (run this
// binary under ASan/UBSan too: `scripts/test.sh asan`).
TEST(NetcfMalformed, RandomBytesAndMutations) {
  const std::string base = "a 2 app 1\nt 1 T\no 10 1 8 20\no 20 1 8 10\nr 10 4 1 1\nc app 2\n";
  const char alphabet[] = "atorc 0123456789abcdefxyz\n\r\t\0\xff-";
  uint64_t x = 12345;
  auto next = [&] {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    return x;
  };
  for (int i = 0; i < 3000; ++i) {
    std::string t;
    if (i % 2) {
      t = base;
      for (int k = 0; k < 1 + static_cast<int>(next() % 6); ++k)
        t[next() % t.size()] = alphabet[next() % (sizeof alphabet - 1)];
    } else {
      t.resize(next() % 200);
      for (char& c : t) c = alphabet[next() % (sizeof alphabet - 1)];
    }
    Diagnostics d;
    formats::ReadOptions ro;
    ro.threads = 1 + static_cast<unsigned>(i % 3);
    try {
      Snapshot s = formats::ReadNetcf(t, "r", d, ro);
      for (size_t o = 0; o < s.object_count(); ++o) ASSERT_LT(s.object_type[o], s.type_count());
      for (const auto& sec : s.sections) {
        ASSERT_LE(sec.objects_begin, sec.objects_end);
        ASSERT_LE(sec.objects_end, s.object_count());
        ASSERT_LE(sec.types_end, s.type_count());
      }
    } catch (const InputError& e) {
      EXPECT_EQ(e.diagnostic().code, "no-records");
    }
  }
}

long MaxRssKb() {
  rusage ru{};
  getrusage(RUSAGE_SELF, &ru);
  return ru.ru_maxrss;
}

// Fields that look like huge counts or sizes never drive an allocation; memory follows the
// input size only.
TEST(NetcfMalformed, HugeLookingFieldsDoNotAllocate) {
  std::string text = "a ffffffff app ffffffffffffffff\n";
  for (int i = 0; i < 20000; ++i)
    text += "t " + std::to_string(i) + " T\no " + std::to_string(i + 1) +
            " ffffffff ffffffff\nr ffffffffffffffff 4 7 ffffffff\n";
  text += "c app\n";
  const long before = MaxRssKb();
  Diagnostics d;
  Snapshot s = formats::ReadNetcf(text, "h", d);
  const long grown_kb = MaxRssKb() - before;
  EXPECT_EQ(s.object_count(), 20000u);
  EXPECT_LT(grown_kb, 64 * 1024) << "input is " << text.size() / 1024 << " KiB";
}

TEST(NetcfMalformed, OneGiantLineAndManyTinyOnes) {
  std::string giant = "a 2 app\nt 1 T\no 1 1 4";
  for (int i = 0; i < 200000; ++i) giant += " 1";
  Diagnostics d;
  Snapshot s = formats::ReadNetcf(giant, "g", d);  // no final newline, no c record
  EXPECT_EQ(s.ref_count(), 200000u);
  EXPECT_EQ(d.counts().at("unclosed-section"), 1u);

  std::string tiny(300000, '\n');
  Diagnostics d2;
  Snapshot s2 = formats::ReadNetcf(tiny, "t", d2);
  EXPECT_EQ(d2.total(), 1u);  // blank lines only: no-records, nothing else
  EXPECT_EQ(d2.counts().at("no-records"), 1u);
  EXPECT_EQ(s2.sections.size(), 0u);
}

}  // namespace
}  // namespace xrpm
