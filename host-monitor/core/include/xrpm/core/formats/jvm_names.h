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

namespace xrpm {

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

}  // namespace xrpm
