#include <gtest/gtest.h>

#include "xrpm/formats/jvm_names.h"

namespace xrpm {
namespace {

TEST(JvmNames, SignaturesBecomeReadableNames) {
  EXPECT_EQ(formats::ReadableFromJvm("[C"), "char[]");
  EXPECT_EQ(formats::ReadableFromJvm("[Ljava/util/Hashtable$Entry;"),
            "java.util.Hashtable$Entry[]");
  EXPECT_EQ(formats::ReadableFromJvm("java/lang/String"), "java.lang.String");
  EXPECT_EQ(formats::ReadableFromJvm("[[I"), "int[][]");
  EXPECT_EQ(formats::ReadableFromJvm("[[[Ljava/lang/Object;"), "java.lang.Object[][][]");
  EXPECT_EQ(formats::ReadableFromJvm("[Z"), "boolean[]");
  EXPECT_EQ(formats::ReadableFromJvm("[J"), "long[]");
  EXPECT_EQ(formats::ReadableFromJvm("int"), "int");
}

TEST(JvmNames, MalformedSignaturesStayVerbatim) {
  for (const char* bad : {"[", "[Q", "[Lfoo", "[L;", "[CC", "[[", "[Lx;y"})
    EXPECT_EQ(formats::ReadableFromJvm(bad), bad) << bad;
}

TEST(JvmNames, ReadableNamesBecomeSignaturesAndBack) {
  EXPECT_EQ(formats::JvmFromReadable("char[]"), "[C");
  EXPECT_EQ(formats::JvmFromReadable("java.util.Hashtable$Entry[]"),
            "[Ljava/util/Hashtable$Entry;");
  EXPECT_EQ(formats::JvmFromReadable("System.Object[]"), "[LSystem/Object;");
  EXPECT_EQ(formats::JvmFromReadable("int[][]"), "[[I");
  EXPECT_EQ(formats::JvmFromReadable("Bubbles.Game1"), "Bubbles/Game1");
  for (const char* n : {"System.String", "System.Byte[]", "System.Int32[][]", "Outer+Inner[]",
                        "double[]", "System.Collections.Generic.List`1[[System.String, mscorlib]]",
                        "System.Int32[,]", "java.lang.String", "boolean", "x"})
    EXPECT_EQ(formats::ReadableFromJvm(formats::JvmFromReadable(n)), n) << n;
}

TEST(JvmNames, ClassifiesArraysForTheTrailer) {
  EXPECT_EQ(formats::ClassifyJvm("java/lang/String"), formats::JvmShape::kObject);
  EXPECT_EQ(formats::ClassifyJvm("[C"), formats::JvmShape::kPrimitiveArray);
  EXPECT_EQ(formats::ClassifyJvm("[LSystem/Byte;"), formats::JvmShape::kPrimitiveArray);
  EXPECT_EQ(formats::ClassifyJvm("[Ljava/lang/Object;"), formats::JvmShape::kObjectArray);
  EXPECT_EQ(formats::ClassifyJvm("[[I"),
            formats::JvmShape::kObjectArray);  // an array of int[] references
  EXPECT_EQ(formats::ClassifyJvm("[LSystem/String;"), formats::JvmShape::kObjectArray);
}

TEST(JvmNames, DotNetPrimitiveArraysMapToJvmLettersAndBack) {
  bool def = false;
  EXPECT_EQ(formats::JvmFromDotNetPrimitiveArray("System.Byte[]", &def), "[B");
  EXPECT_TRUE(def);
  EXPECT_EQ(formats::JvmFromDotNetPrimitiveArray("System.SByte[]", &def), "[B");
  EXPECT_FALSE(def);
  EXPECT_EQ(formats::JvmFromDotNetPrimitiveArray("System.Int32[][]", &def), "[[I");
  EXPECT_TRUE(def);
  EXPECT_EQ(formats::JvmFromDotNetPrimitiveArray("System.Object[]"), "");
  EXPECT_EQ(formats::JvmFromDotNetPrimitiveArray("System.Byte"), "");
  EXPECT_EQ(formats::DotNetFromJvm("[B"), "System.Byte[]");
  EXPECT_EQ(formats::DotNetFromJvm("[[D"), "System.Double[][]");
  EXPECT_EQ(formats::DotNetFromJvm("[Z"), "System.Boolean[]");
  EXPECT_EQ(formats::DotNetFromJvm("[LSystem/Object;"), "System.Object[]");
  EXPECT_EQ(formats::DotNetFromJvm("System/String"), "System.String");
  for (const char* n : {"System.Boolean[]", "System.Byte[]", "System.Char[]", "System.Int16[]",
                        "System.Int32[]", "System.Int64[]", "System.Single[]", "System.Double[]"})
    EXPECT_EQ(formats::DotNetFromJvm(formats::JvmFromDotNetPrimitiveArray(n)), n);
}

}  // namespace
}  // namespace xrpm
