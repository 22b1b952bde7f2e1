// GlobMatch (xrpm/model/glob.h): type patterns as budgets write them, marker texts as
// `xrpm capture --on-marker` takes them.
#include "xrpm/model/glob.h"

#include <gtest/gtest.h>

namespace xrpm {
namespace {

TEST(GlobMatch, TypePatterns) {
  EXPECT_TRUE(GlobMatch("Bubbles.*", "Bubbles.Bubble"));
  EXPECT_TRUE(GlobMatch("Bubbles.*", "Bubbles.Particles.Spark"));
  EXPECT_FALSE(GlobMatch("Bubbles.*", "XBubbles.Bubble"));
  EXPECT_TRUE(GlobMatch("*", ""));
  EXPECT_TRUE(GlobMatch("*.Bubble", "Bubbles.Bubble"));
  EXPECT_TRUE(GlobMatch("System.Int32[]", "System.Int32[]"));
  EXPECT_FALSE(GlobMatch("System.Int32[]", "System.Int32[,]"));
  EXPECT_TRUE(GlobMatch("Level?.*", "Level1.Map"));
  EXPECT_FALSE(GlobMatch("Level?.*", "Level12.Map"));
  EXPECT_TRUE(GlobMatch("*a*b*c", "xxaxbxxbxc"));
  EXPECT_TRUE(GlobMatch("Star\\*", "Star*"));
  EXPECT_FALSE(GlobMatch("Star\\*", "Stars"));
}

TEST(GlobMatch, MarkerTexts) {
  EXPECT_TRUE(GlobMatch("Wave 2", "Wave 2"));
  EXPECT_FALSE(GlobMatch("Wave 2", "Wave 20"));
  EXPECT_TRUE(GlobMatch("Wave *", "Wave 20"));
  EXPECT_TRUE(GlobMatch("*", ""));
  EXPECT_TRUE(GlobMatch("*ended", "Wave 3 ended"));
  EXPECT_TRUE(GlobMatch("a*b*c", "aXXbYbZc"));
  EXPECT_FALSE(GlobMatch("a*b*c", "aXXbYbZ"));
  EXPECT_FALSE(GlobMatch("", "x"));
}

}  // namespace
}  // namespace xrpm
