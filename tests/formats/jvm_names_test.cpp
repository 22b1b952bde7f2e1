#include <gtest/gtest.h>

#include "xrpm/core/formats/jvm_names.h"

namespace xrpm {
namespace {

TEST(JvmNames, SignaturesBecomeReadableNames) {
  EXPECT_EQ(ReadableFromJvm("[C"), "char[]");
  EXPECT_EQ(ReadableFromJvm("[Ljava/util/Hashtable$Entry;"), "java.util.Hashtable$Entry[]");
  EXPECT_EQ(ReadableFromJvm("java/lang/String"), "java.lang.String");
  EXPECT_EQ(ReadableFromJvm("[[I"), "int[][]");
  EXPECT_EQ(ReadableFromJvm("[[[Ljava/lang/Object;"), "java.lang.Object[][][]");
  EXPECT_EQ(ReadableFromJvm("[Z"), "boolean[]");
  EXPECT_EQ(ReadableFromJvm("[J"), "long[]");
  EXPECT_EQ(ReadableFromJvm("int"), "int");
}

TEST(JvmNames, MalformedSignaturesStayVerbatim) {
  for (const char* bad : {"[", "[Q", "[Lfoo", "[L;", "[CC", "[[", "[Lx;y"})
    EXPECT_EQ(ReadableFromJvm(bad), bad) << bad;
}

TEST(JvmNames, ReadableNamesBecomeSignaturesAndBack) {
  EXPECT_EQ(JvmFromReadable("char[]"), "[C");
  EXPECT_EQ(JvmFromReadable("java.util.Hashtable$Entry[]"), "[Ljava/util/Hashtable$Entry;");
  EXPECT_EQ(JvmFromReadable("System.Object[]"), "[LSystem/Object;");
  EXPECT_EQ(JvmFromReadable("int[][]"), "[[I");
  EXPECT_EQ(JvmFromReadable("Bubbles.Game1"), "Bubbles/Game1");
  for (const char* n : {"System.String", "System.Byte[]", "System.Int32[][]", "Outer+Inner[]",
                        "double[]", "System.Collections.Generic.List`1[[System.String, mscorlib]]",
                        "System.Int32[,]", "java.lang.String", "boolean", "x"})
    EXPECT_EQ(ReadableFromJvm(JvmFromReadable(n)), n) << n;
}

TEST(JvmNames, ClassifiesArraysForTheTrailer) {
  EXPECT_EQ(ClassifyJvm("java/lang/String"), JvmShape::kObject);
  EXPECT_EQ(ClassifyJvm("[C"), JvmShape::kPrimitiveArray);
  EXPECT_EQ(ClassifyJvm("[LSystem/Byte;"), JvmShape::kPrimitiveArray);
  EXPECT_EQ(ClassifyJvm("[Ljava/lang/Object;"), JvmShape::kObjectArray);
  EXPECT_EQ(ClassifyJvm("[[I"), JvmShape::kObjectArray);  // an array of int[] references
  EXPECT_EQ(ClassifyJvm("[LSystem/String;"), JvmShape::kObjectArray);
}

TEST(JvmNames, DotNetPrimitiveArraysMapToJvmLettersAndBack) {
  bool def = false;
  EXPECT_EQ(JvmFromDotNetPrimitiveArray("System.Byte[]", &def), "[B");
  EXPECT_TRUE(def);
  EXPECT_EQ(JvmFromDotNetPrimitiveArray("System.SByte[]", &def), "[B");
  EXPECT_FALSE(def);
  EXPECT_EQ(JvmFromDotNetPrimitiveArray("System.Int32[][]", &def), "[[I");
  EXPECT_TRUE(def);
  EXPECT_EQ(JvmFromDotNetPrimitiveArray("System.Object[]"), "");
  EXPECT_EQ(JvmFromDotNetPrimitiveArray("System.Byte"), "");
  EXPECT_EQ(DotNetFromJvm("[B"), "System.Byte[]");
  EXPECT_EQ(DotNetFromJvm("[[D"), "System.Double[][]");
  EXPECT_EQ(DotNetFromJvm("[Z"), "System.Boolean[]");
  EXPECT_EQ(DotNetFromJvm("[LSystem/Object;"), "System.Object[]");
  EXPECT_EQ(DotNetFromJvm("System/String"), "System.String");
  for (const char* n : {"System.Boolean[]", "System.Byte[]", "System.Char[]", "System.Int16[]",
                        "System.Int32[]", "System.Int64[]", "System.Single[]", "System.Double[]"})
    EXPECT_EQ(DotNetFromJvm(JvmFromDotNetPrimitiveArray(n)), n);
}

}  // namespace
}  // namespace xrpm
