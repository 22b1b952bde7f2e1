// IBM classic (text) heapdump writer: any Snapshot (a NETCF heap, a Java heap read from a classic
// or other dump) as a classic heapdump that IBM's tools and xrpm's IBM reader load.
// Format: docs/formats/ibm-classic.md; layout as the J9 JVM writes it.
//
//   // Version: <runtime> heap, xrpm <version> <OS> <architecture>
//   // xrpm AppDomain: <section name>             (one line per section)
//   // xrpm class 0x<class block address>: <name>  (.NET primitive arrays sharing a letter)
//   0x<object id> [<size>] OBJ <JVM type signature>
//   \t0x<class block address> 0x<ref> 0x<ref> ... (one line, trailing blank as J9 writes it)
//   ... every object, in snapshot order ...
//   0x<class block address> [0] CLS <JVM type signature>
//   \t0x<static root> ... (the roots that are statics of this class)
//   ... one class record per type, then the root pseudo classes ...
//   // Breakdown - Classes: C, Objects: O, ObjectArrays: A, PrimitiveArrays: P
//   // EOF:  Total 'Objects',Refs(null) : T,R(N)
//
// Mapping choices:
//   - The header is the producer's version string as the spec wants it (SDK level, platform,
//     build): the runtime (".NET" when type names are in System.*, "Java" for java.*), xrpm's
//     version, the OS and architecture xrpm runs on: `// Version: .NET heap, xrpm 0.1.0 Linux
//     x86_64`. The application (the AppDomain sections' names) goes into `// xrpm AppDomain:`
//     comments, which the IBM reader reads back as the section name (other tools ignore them).
//   - .NET primitive arrays are written as JVM primitive arrays (`System.Byte[]` -> `[B`,
//     mapping: JvmFromDotNetPrimitiveArray in jvm_names.h), so records and the Breakdown's
//     PrimitiveArrays agree and Java tools see primitive arrays. The reader maps them back to
//     the .NET names when the header says ".NET heap"; the types that share a letter with the
//     default one (SByte, UInt16, UInt32, UInt64, IntPtr, UIntPtr) are named in
//     `// xrpm class 0x<class block>: <name>` comments, as is every type whose name the
//     reader would not get back from its signature (a `/` in a JavaScript name, a Java
//     `byte[]` in a heap of .NET names), so NETCF -> classic -> NETCF keeps every type name.
//   - Types -> class records, one per type index (types of several AppDomain sections stay
//     distinct; all sections are merged into one heap, as the format has one). Names are written
//     as JVM signatures (JvmFromReadable: `System.Object[]` -> `[LSystem/Object;`) so that the
//     IBM reader shows them as they were. Line breaks in names become blanks.
//   - Class block addresses: the type ids themselves when they are nonzero, unique across the
//     snapshot and all below (or all above) every address the heap uses (object ids and ends,
//     references, rooted ids) -- true for NETCF dumps, whose type ids are small integers, and for
//     snapshots read from 32-bit classic dumps. A round trip then keeps type ids. Otherwise, and
//     always for the root pseudo classes: synthetic addresses 0x10 apart from the first
//     0x1000-aligned address above the heap's highest address (below its lowest if that would
//     overflow). Either way no class block address equals an object or reference value.
//   - Class block sizes are written as [0]: the model has no class sizes.
//   - Roots: a static root (kind 4, flags 0) whose container type is known becomes a heap
//     reference in that class's record, as the statics of a Java class are. Every other root
//     goes into the pseudo class record `xrpm/roots/<kind>[$flag...]` (see the reader), so the
//     kind and flags survive a round trip; origins (thread names) are not kept.
//   - Trailer counts: Classes = class records (pseudo classes included); ObjectArrays and
//     PrimitiveArrays by the type signature (ClassifyJvm: arrays of primitives, Java or .NET,
//     are primitive arrays), Objects = the other object records; Total = all records;
//     Refs = every reference token written (each object's class block reference included),
//     null = references to address 0 (the model never has them from NETCF dumps).
//   - Not kept (the format has no place for them): section timestamps and the section
//     boundaries of multi-section snapshots, root origins, the container of a flagged static.
//   - Addresses are 8 hex digits, or 16 when any value needs more than 32 bits.
//   - Objects with id 0 cannot be written (0 means null) and are skipped.
//
// Thread-safety: none; the snapshot must not change while it is written.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

#include "xrpm/model/snapshot.h"

namespace xrpm::formats {

struct IbmWriteStats {
  uint64_t classes = 0, objects = 0, object_arrays = 0, primitive_arrays = 0;
  uint64_t refs = 0, null_refs = 0;
  uint64_t static_roots = 0;        // roots written into their class's record
  uint64_t pseudo_class_roots = 0;  // roots written into xrpm/roots/... records
  bool type_ids_as_addresses = false;
};

// Writes `snap` through `sink` in chunks of at most ~256 KiB.
IbmWriteStats WriteIbmClassic(const Snapshot& snap,
                              const std::function<void(std::string_view)>& sink);
// Writes `snap` to `path` atomically (AtomicFile). Throws std::runtime_error on I/O errors.
IbmWriteStats WriteIbmClassicFile(const Snapshot& snap, const std::string& path);

}  // namespace xrpm::formats
