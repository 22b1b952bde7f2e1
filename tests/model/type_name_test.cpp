// CanonicalTypeName and GenericDefinitionName (xrpm/model/type_name.h) on the names each source
// really writes, and TypeInfo keeping the written name beside the canonical one.
#include "xrpm/model/type_name.h"

#include <gtest/gtest.h>

#include <string>

#include "xrpm/model/snapshot.h"

namespace xrpm {
namespace {

constexpr const char* kList = "System.Collections.Generic.List<Bubbles.Bubble>";
constexpr const char* kDict =
    "System.Collections.Generic.Dictionary<System.String, Microsoft.Xna.Framework.Graphics."
    "Texture2D>";

TEST(CanonicalTypeName, NetcfGclogAssemblyQualified) {
  // tests/data/netcf/bubbles.gclog
  EXPECT_EQ(CanonicalTypeName("System.Collections.Generic.List`1[[Bubbles.Bubble, Bubbles, "
                              "Version=1.0.0.0, Culture=neutral, PublicKeyToken=null]]"),
            kList);
  EXPECT_EQ(CanonicalTypeName("System.Collections.Generic.Dictionary`2[[System.String, mscorlib],"
                              "[Microsoft.Xna.Framework.Graphics.Texture2D, "
                              "Microsoft.Xna.Framework]]"),
            kDict);
  // A nested type of a generic: the arguments are the outer type's (its arity says so).
  EXPECT_EQ(CanonicalTypeName("System.Collections.Generic.Dictionary`2+Entry[[System.String, "
                              "mscorlib],[Microsoft.Xna.Framework.Graphics.Texture2D, "
                              "Microsoft.Xna.Framework]][]"),
            std::string(kDict) + "+Entry[]");
  EXPECT_EQ(CanonicalTypeName("System.Action`1[[Microsoft.Xna.Framework.GameTime, "
                              "Microsoft.Xna.Framework]]"),
            "System.Action<Microsoft.Xna.Framework.GameTime>");
  // Already canonical: unchanged, and the same string.
  for (const char* n : {"System.String", "System.Int32[]", "Bubbles.<>c__DisplayClass4",
                        "System.Object[]", "<unknown type 1f>"})
    EXPECT_EQ(CanonicalTypeName(n), n);
}

TEST(CanonicalTypeName, EmulatorShortArguments) {
  // emulator/src/scenarios: arguments without assemblies; field types in the C# brackets.
  EXPECT_EQ(CanonicalTypeName("System.Collections.Generic.List`1[Bubbles.Bubble]"), kList);
  EXPECT_EQ(CanonicalTypeName("System.Collections.Generic.List`1[Mistakes.Enemy]"),
            "System.Collections.Generic.List<Mistakes.Enemy>");
  EXPECT_EQ(CanonicalTypeName("System.Collections.Generic.List`1+Enumerator[Bubbles.Bubble]"),
            std::string(kList) + "+Enumerator");
  EXPECT_EQ(CanonicalTypeName("System.EventHandler`1[Bubbles.PoppedEventArgs]"),
            "System.EventHandler<Bubbles.PoppedEventArgs>");
  EXPECT_EQ(CanonicalTypeName("System.Collections.Generic.List`1<Bubbles.Bubble>"), kList);
  EXPECT_EQ(CanonicalTypeName("System.Collections.Generic.Dictionary`2[System.String,"
                              "System.Int32]"),
            "System.Collections.Generic.Dictionary<System.String, System.Int32>");
}

TEST(CanonicalTypeName, MonoTypeGetName) {
  // mono_type_get_name (IL form): '<' ',' '>' without spaces; nesting is '.', kept as written.
  EXPECT_EQ(CanonicalTypeName("System.Collections.Generic.List<LiveSet.StaticHeld>"),
            "System.Collections.Generic.List<LiveSet.StaticHeld>");
  EXPECT_EQ(CanonicalTypeName("System.Collections.Generic.Dictionary<System.String,System.Int32>"),
            "System.Collections.Generic.Dictionary<System.String, System.Int32>");
  EXPECT_EQ(CanonicalTypeName("System.Collections.Generic.List<System.Int32>[]"),
            "System.Collections.Generic.List<System.Int32>[]");
  EXPECT_EQ(CanonicalTypeName("System.Int32[,]"), "System.Int32[,]");
  EXPECT_EQ(CanonicalTypeName("System.Int32[*]"), "System.Int32[*]");
  EXPECT_EQ(CanonicalTypeName("Acceptance.Program.<>c"), "Acceptance.Program.<>c");
  EXPECT_EQ(CanonicalTypeName("System.Collections.Generic.List<Acceptance.Program.<>c>"),
            "System.Collections.Generic.List<Acceptance.Program.<>c>");
  // C# keywords in argument position (debug-helpers' form) become the BCL's names.
  EXPECT_EQ(CanonicalTypeName("System.Collections.Generic.List<int>"),
            "System.Collections.Generic.List<System.Int32>");
  EXPECT_EQ(CanonicalTypeName("System.Collections.Generic.Dictionary<string, object[]>"),
            "System.Collections.Generic.Dictionary<System.String, System.Object[]>");
}

TEST(CanonicalTypeName, NestedGenericsAndArrays) {
  EXPECT_EQ(CanonicalTypeName("Game.Outer`1+Inner`1[[Game.A, Game],[Game.B, Game]]"),
            "Game.Outer<Game.A>+Inner<Game.B>");
  EXPECT_EQ(CanonicalTypeName("System.Collections.Generic.List`1[[System.Collections.Generic."
                              "Dictionary`2[[System.String, mscorlib],[System.Int32[], "
                              "mscorlib]], mscorlib]][][,]"),
            "System.Collections.Generic.List<System.Collections.Generic.Dictionary<System.String, "
            "System.Int32[]>>[][,]");
  EXPECT_EQ(CanonicalTypeName("System.Int32*"), "System.Int32*");
  EXPECT_EQ(CanonicalTypeName("System.Collections.Generic.List`1"),
            "System.Collections.Generic.List<>");
  EXPECT_EQ(CanonicalTypeName("System.Collections.Generic.Dictionary`2"),
            "System.Collections.Generic.Dictionary<,>");
  EXPECT_EQ(CanonicalTypeName("Outer+Inner"), "Outer+Inner");
  // All the arguments on the last segment, the outer ones' arities saying whose they are.
  EXPECT_EQ(CanonicalTypeName("System.Collections.Generic.Dictionary`2+Entry<System.String,"
                              "System.Int32>[]"),
            "System.Collections.Generic.Dictionary<System.String, System.Int32>+Entry[]");
  EXPECT_EQ(CanonicalTypeName("Game.Outer`1+Inner`1<Game.A,Game.B>"),
            "Game.Outer<Game.A>+Inner<Game.B>");
}

TEST(CanonicalTypeName, JavaAndOtherNamesStayAsWritten) {
  // IBM classic heapdumps (as the reader makes them readable), a .gcdump of a JavaScript heap.
  for (const char* n :
       {"java.lang.String", "java.util.HashMap$Entry[]", "int[]", "byte[][]", "java.lang.Object[]",
        "[JS Roots]", "[] (Type  JSArray)", "[object Window] (Type  JSObject)",
        "Window (Type  JSObject)", "", "[Ljava.lang.String;"})
    EXPECT_EQ(CanonicalTypeName(n), n) << n;
}

TEST(CanonicalTypeName, MalformedNamesStayAsWritten) {
  for (const char* n : {"List`1[[A, B]",
                        "List`1[[A, B]]]",
                        "List`2[[A, B]]",
                        "List<A",
                        "List<A>>",
                        "List`",
                        "List`1[A]x",
                        "A<>>",
                        "<<",
                        "<>",
                        "A+",
                        "+A",
                        "A`99999999999[B]",
                        "A[",
                        "A[]]",
                        "A<,B>",
                        "A`1<B, C>",
                        "A`1<B>[[C]]",
                        "A\\",
                        "List`1[[A, B], C]",
                        " A<B>",
                        "A<B> "})
    EXPECT_EQ(CanonicalTypeName(n), n) << n;
  std::string deep = "X";
  for (int i = 0; i < 100; ++i) deep = "L`1[" + deep + "]";
  EXPECT_EQ(CanonicalTypeName(deep), deep);
  std::string fine = "X";
  for (int i = 0; i < 20; ++i) fine = "L`1[" + fine + "]";
  EXPECT_EQ(CanonicalTypeName(fine).find('`'), std::string::npos);
}

TEST(CanonicalTypeName, IsIdempotentAcrossForms) {
  const char* forms[] = {
      "System.Collections.Generic.List`1[[Bubbles.Bubble, Bubbles, Version=1.0.0.0]]",
      "System.Collections.Generic.List`1[Bubbles.Bubble]",
      "System.Collections.Generic.List<Bubbles.Bubble>",
      "System.Collections.Generic.List`1<Bubbles.Bubble>",
      "System.Collections.Generic.List< Bubbles.Bubble >",
  };
  for (const char* f : forms) {
    const std::string c = CanonicalTypeName(f);
    EXPECT_EQ(c, kList) << f;
    EXPECT_EQ(CanonicalTypeName(c), c);
  }
}

TEST(GenericDefinitionName, EmptiesTheTopLevelArguments) {
  EXPECT_EQ(GenericDefinitionName(kList), "System.Collections.Generic.List<>");
  EXPECT_EQ(GenericDefinitionName("System.Collections.Generic.List`1[[Bubbles.Bubble, Bubbles]]"),
            "System.Collections.Generic.List<>");
  EXPECT_EQ(GenericDefinitionName(kDict), "System.Collections.Generic.Dictionary<,>");
  EXPECT_EQ(GenericDefinitionName(std::string(kDict) + "+Entry[]"),
            "System.Collections.Generic.Dictionary<,>+Entry[]");
  EXPECT_EQ(GenericDefinitionName("System.Collections.Generic.List`1"),
            "System.Collections.Generic.List<>");
  EXPECT_EQ(GenericDefinitionName("System.String"), "System.String");
  EXPECT_EQ(GenericDefinitionName("List<A"), "List<A");
}

TEST(TypeInfo, KeepsTheWrittenNameBesideTheCanonicalOne) {
  Snapshot s;
  s.AddSection({});
  const std::string written =
      "System.Collections.Generic.List`1[[Bubbles.Bubble, Bubbles, Version=1.0.0.0]]";
  const uint32_t a = s.AddType(1, written, 0);
  const uint32_t b = s.AddType(2, "Bubbles.Bubble", 0);
  EXPECT_EQ(s.types[a].name, kList);
  EXPECT_EQ(s.types[a].written_name(), written);
  EXPECT_EQ(s.types[b].name, "Bubbles.Bubble");
  EXPECT_EQ(s.types[b].written_name(), "Bubbles.Bubble");
  EXPECT_TRUE(s.types[b].source_name.empty());  // stored once when the forms agree
  // Lookups take either form, or any other form of the same name.
  EXPECT_TRUE(s.types[a].Named(kList));
  EXPECT_TRUE(s.types[a].Named(written));
  EXPECT_TRUE(s.types[a].Named("System.Collections.Generic.List`1[Bubbles.Bubble]"));
  EXPECT_FALSE(s.types[a].Named("System.Collections.Generic.List<Bubbles.Particle>"));
  s.types[b].SetName("Game.Outer`1+Inner[Game.A]");
  EXPECT_EQ(s.types[b].name, "Game.Outer<Game.A>+Inner");
  s.types[b].SetName("Game.Plain");
  EXPECT_EQ(s.types[b].written_name(), "Game.Plain");
}

}  // namespace
}  // namespace xrpm
