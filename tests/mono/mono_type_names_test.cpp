// ReflectionNesting (device-agent/ports/mono/src/type_names.h): the Mono port's names for nested
// classes, from what mono_type_get_name writes; needs no Mono.
#include "type_names.h"

#include <gtest/gtest.h>

namespace xrpm::mono {
namespace {

TEST(MonoTypeNames, NestedClassesAreJoinedTheReflectionWay) {
  EXPECT_EQ(ReflectionNesting("System.Collections.Generic.Dictionary.Entry<System.String,"
                              "System.Int32>[]",
                              "System.Collections.Generic", {"Dictionary`2", "Entry"}),
            "System.Collections.Generic.Dictionary`2+Entry<System.String,System.Int32>[]");
  EXPECT_EQ(ReflectionNesting("Acceptance.Registry.Holder", "Acceptance", {"Registry", "Holder"}),
            "Acceptance.Registry+Holder");
  EXPECT_EQ(ReflectionNesting("Acceptance.Program.<>c", "Acceptance", {"Program", "<>c"}),
            "Acceptance.Program+<>c");
  EXPECT_EQ(ReflectionNesting("Outer.Inner", "", {"Outer", "Inner"}), "Outer+Inner");
}

TEST(MonoTypeNames, OtherNamesAreLeftAsWritten) {
  // Not nested.
  EXPECT_EQ(ReflectionNesting("System.Collections.Generic.List<LiveSet.StaticHeld>",
                              "System.Collections.Generic", {"List`1"}),
            "System.Collections.Generic.List<LiveSet.StaticHeld>");
  // A name that does not start with the chain (escaped characters, another class).
  EXPECT_EQ(ReflectionNesting("Game.Other.Inner", "Game", {"Outer", "Inner"}), "Game.Other.Inner");
  EXPECT_EQ(ReflectionNesting("Game.Outer.InnerX", "Game", {"Outer", "Inner"}),
            "Game.Outer.InnerX");
  EXPECT_EQ(ReflectionNesting("", "Game", {"Outer", "Inner"}), "");
}

}  // namespace
}  // namespace xrpm::mono
