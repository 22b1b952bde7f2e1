// ParseDuration / ParseByteSize: what `xrpm capture --every/--duration/--on-growth` accept, and
// the message for what they do not.
#include "xrpm/model/human_parse.h"

#include <gtest/gtest.h>

namespace xrpm {
namespace {

TEST(HumanParse, Durations) {
  double s = 0;
  std::string err;
  for (auto [text, want] : std::vector<std::pair<const char*, double>>{{"10s", 10},
                                                                       {"10", 10},
                                                                       {"500ms", 0.5},
                                                                       {"2m", 120},
                                                                       {"1h", 3600},
                                                                       {"1.5s", 1.5},
                                                                       {"3MIN", 180},
                                                                       {".25s", 0.25}}) {
    ASSERT_TRUE(ParseDuration(text, &s, &err)) << text << ": " << err;
    EXPECT_DOUBLE_EQ(s, want) << text;
  }
  for (const char* bad : {"", "s", "-1s", "0", "0s", "10x", "10 s", "1e3", "nan", "1.2.3s"}) {
    EXPECT_FALSE(ParseDuration(bad, &s, &err)) << bad;
    EXPECT_EQ(err, "expected a positive duration such as 10s, 500ms, 2m or 1h, found '" +
                       std::string(bad) + "'");
  }
}

TEST(HumanParse, ByteSizes) {
  uint64_t b = 0;
  std::string err;
  for (auto [text, want] : std::vector<std::pair<const char*, uint64_t>>{{"1048576", 1048576},
                                                                         {"64MB", 64u << 20},
                                                                         {"64MiB", 64u << 20},
                                                                         {"64m", 64u << 20},
                                                                         {"512KB", 512u << 10},
                                                                         {"1.5K", 1536},
                                                                         {"2G", 2ull << 30},
                                                                         {"100B", 100}}) {
    ASSERT_TRUE(ParseByteSize(text, &b, &err)) << text << ": " << err;
    EXPECT_EQ(b, want) << text;
  }
  for (const char* bad : {"", "MB", "-5MB", "0", "1.5", "12XB", "5 MB", "99999999999G"}) {
    EXPECT_FALSE(ParseByteSize(bad, &b, &err)) << bad;
    EXPECT_EQ(err, "expected a positive size such as 64MB, 512KB or 1048576 (bytes), found '" +
                       std::string(bad) + "'");
  }
}

}  // namespace
}  // namespace xrpm
