// Type names as the readers keep them: each type's written name (what the writers write back,
// byte for byte) beside its canonical one (xrpm/model/type_name.h), on the real sample files of
// tests/data.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <sstream>

#include "file_bytes.h"
#include "xrpm/formats/snapshot_io.h"

namespace xrpm {
namespace {

using testing::FileBytes;

const std::string kData = XRPM_TEST_DATA;

std::string Temp(const std::string& name) {
  return ::testing::TempDir() + "/xrpm_names_" + std::to_string(getpid()) + "_" + name;
}

const TypeInfo* ByName(const Snapshot& s, std::string_view canonical) {
  for (const TypeInfo& t : s.types)
    if (t.name == canonical) return &t;
  return nullptr;
}

TEST(TypeNames, NetcfGclogKeepsWrittenNamesAndRoundTrips) {
  const std::string in = kData + "/netcf/bubbles.gclog";
  Diagnostics d;
  const Snapshot s = formats::LoadSnapshot(in, d);
  const TypeInfo* list = ByName(s, "System.Collections.Generic.List<Bubbles.Bubble>");
  ASSERT_TRUE(list);
  EXPECT_EQ(list->written_name(),
            "System.Collections.Generic.List`1[[Bubbles.Bubble, Bubbles, Version=1.0.0.0, "
            "Culture=neutral, PublicKeyToken=null]]");
  const TypeInfo* entries = ByName(s,
                                   "System.Collections.Generic.Dictionary<System.String, "
                                   "Microsoft.Xna.Framework.Graphics.Texture2D>+Entry[]");
  ASSERT_TRUE(entries);
  EXPECT_NE(entries->written_name().find("Dictionary`2+Entry[["), std::string::npos);
  const TypeInfo* plain = ByName(s, "Bubbles.Bubble");
  ASSERT_TRUE(plain);
  EXPECT_TRUE(plain->source_name.empty());
  for (const TypeInfo& t : s.types) EXPECT_EQ(t.name.find('`'), std::string::npos) << t.name;

  // .gclog -> .xrpm -> .gclog is byte for byte, and the .xrpm reads the same names.
  const std::string x = Temp("bubbles.xrpm"), back = Temp("bubbles.gclog");
  formats::SaveSnapshot(s, x);
  Diagnostics dx;
  const Snapshot sx = formats::LoadSnapshot(x, dx);
  ASSERT_EQ(sx.types.size(), s.types.size());
  for (size_t t = 0; t < s.types.size(); ++t) {
    EXPECT_EQ(sx.types[t].name, s.types[t].name);
    EXPECT_EQ(sx.types[t].written_name(), s.types[t].written_name());
  }
  formats::SaveSnapshot(sx, back);
  EXPECT_EQ(FileBytes(back), FileBytes(in));
  std::remove(x.c_str());
  std::remove(back.c_str());
}

TEST(TypeNames, MonoVmGcdumpNamesBecomeCanonical) {
  Diagnostics d;
  const Snapshot s = formats::LoadSnapshot(kData + "/gcdump/sample-monovm.gcdump", d);
  const TypeInfo* dict = ByName(
      s, "System.Collections.Generic.Dictionary<System.String, System.Globalization.CultureInfo>");
  ASSERT_TRUE(dict);
  EXPECT_EQ(
      dict->written_name(),
      "System.Collections.Generic.Dictionary<System.String,System.Globalization.CultureInfo>");
  EXPECT_TRUE(ByName(s, "System.Collections.Generic.List<System.String>"));
  // PerfView's size buckets are not type names of .NET: kept as written.
  bool bucket = false;
  for (const TypeInfo& t : s.types)
    if (t.name.find(" (Bytes > ") != std::string::npos) {
      bucket = true;
      EXPECT_TRUE(t.source_name.empty()) << t.name;
    }
  EXPECT_TRUE(bucket);
}

TEST(TypeNames, JavaNamesStayJavas) {
  Diagnostics d;
  const Snapshot s = formats::LoadSnapshot(kData + "/ibm_classic/spec_examples.txt", d);
  ASSERT_FALSE(s.types.empty());
  for (const TypeInfo& t : s.types) EXPECT_TRUE(t.source_name.empty()) << t.name;
}

}  // namespace
}  // namespace xrpm
