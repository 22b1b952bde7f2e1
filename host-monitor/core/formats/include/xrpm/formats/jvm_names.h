// JVM type signatures <-> readable type names, as the IBM classic heapdump format needs them.
//
// A classic heapdump names types by their JVM form: `java/lang/String`, `[C`,
// `[[Ljava/util/Hashtable$Entry;`. The snapshot model (and every view) shows readable names:
// `java.lang.String`, `char[]`, `java.util.Hashtable$Entry[][]`. The IBM reader converts with
// ReadableFromJvm, the IBM writer back with JvmFromReadable. For every name without a `/` the two
// are inverse (ReadableFromJvm(JvmFromReadable(n)) == n), which covers .NET names such as
// `System.Collections.Hashtable+bucket[]` (written `[LSystem/Collections/Hashtable+bucket;`).
// Malformed signatures (`[`, `[Q`, `[Lfoo`) are kept verbatim.
//
// Thread-safety: pure functions.
#pragma once

#include <string>
#include <string_view>

namespace xrpm::formats {

// `[C` -> `char[]`, `[Ljava/lang/Object;` -> `java.lang.Object[]`, `java/lang/String` ->
// `java.lang.String`. Linear in the length of `sig`.
std::string ReadableFromJvm(std::string_view sig);

// The inverse: `char[]` -> `[C`, `System.Object[]` -> `[LSystem/Object;`, `a.B` -> `a/B`.
std::string JvmFromReadable(std::string_view name);

// The classification the classic heapdump trailer uses ("Breakdown"): arrays whose elements are
// primitives (Java `[I`, `[C`, ... and arrays of the .NET primitive value types such as
// `[LSystem/Byte;`) are primitive arrays, every other array is an object array.
enum class JvmShape { kObject, kObjectArray, kPrimitiveArray };
JvmShape ClassifyJvm(std::string_view sig);

// .NET primitive arrays as JVM primitive array signatures, for classic heapdumps of .NET heaps:
// the element type's JVM primitive of the same width and kind.
//   System.Boolean -> Z    System.Byte  -> B (SByte  -> B)   System.Char   -> C
//   System.Int16   -> S (UInt16 -> S)     System.Int32 -> I (UInt32 -> I)
//   System.Int64   -> J (UInt64, IntPtr, UIntPtr -> J)       System.Single -> F
//   System.Double  -> D
// The types before the parentheses are each letter's default (DotNetFromJvm gives them back);
// the others share a letter, so a writer must keep their names elsewhere (the IBM writer does,
// in `// xrpm class` comments). Arrays of arrays keep their dimensions: System.Int32[][] ->
// [[I. Returns "" when `name` is not an array of a .NET primitive; `*is_default` tells whether
// DotNetFromJvm maps the signature back to `name`.
std::string JvmFromDotNetPrimitiveArray(std::string_view name, bool* is_default = nullptr);
// The inverse for a .NET heap: `[B` -> `System.Byte[]`, `[[I` -> `System.Int32[][]`; any other
// signature as ReadableFromJvm reads it.
std::string DotNetFromJvm(std::string_view sig);

}  // namespace xrpm::formats
