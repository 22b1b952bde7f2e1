// IBM classic (text) heapdump reader. Format: docs/formats/ibm-classic.md.
//
// Reads a Java heap written by an IBM JVM (J9 `-Xdump:heap:opts=CLASSIC`, the DTFJ/jdmpview
// `heapdump` command, or xrpm's own IBM writer) into the same Snapshot model as a NETCF dump, so
// every view and CLI verb works on Java heaps too.
//
// How IBM concepts map to the model:
//   - `// Version: <string>` -> one AppDomainSection whose name is the version string (the
//     classic format has no application name), unless the file has `// xrpm AppDomain: <name>`
//     comments (written by xrpm's IBM writer, the header then being xrpm's producer string):
//     their names, joined by ", ", name the section. No timestamps. The section is `closed`
//     when the `// EOF:` trailer was seen; a file that ends without it is reported as
//     truncated.
//   - Object record `<addr> [<size>] OBJ <type>` + reference lines -> one object: id = address,
//     size = the decimal size (clamped to 4 GiB - 1), type = the class record at the class block
//     address that opens the reference lines. Remaining references become the object's refs, in
//     order; null references (any all-zero address, `0x00000000` or `0x0`) are not edges but are
//     counted (IbmReadStats::null_refs); references to class block addresses (reflection objects)
//     are not heap edges either and are counted in IbmReadStats::class_refs.
//   - Class record `<addr> [<size>] CLS <type>` -> one TypeInfo keyed by the class block
//     address. TypeInfo::id is the class block address when every class address fits in 32 bits
//     (true for 32-bit JVMs and for files xrpm wrote from NETCF heaps), otherwise the class's
//     1-based ordinal in order of first appearance. The class block size is not kept (types have
//     no size in the model). A class that objects use but that has no class record becomes a
//     type named from the OBJ line (reported as `missing-class`).
//   - Type names are shown readable: `[C` -> `char[]`, `[Ljava/util/Hashtable$Entry;` ->
//     `java.util.Hashtable$Entry[]`, `java/lang/String` -> `java.lang.String` (jvm_names.h).
//     In a .NET heap written by xrpm (header `.NET heap, xrpm ...`), primitive arrays read back
//     as .NET ones: `[B` -> `System.Byte[]` (DotNetFromJvm), and a `// xrpm class 0x<addr>:
//     <name>` comment names the class at that class block address (System.UInt32[], ...).
//   - Roots: the format has none but the statics. Every heap reference of a class record becomes
//     a static root (RootKind::kStatic, flags 0, container = the class's TypeId); its class block
//     references (superclass, interfaces) are dropped and counted. Pseudo class records named
//     `xrpm/roots/<kind>[$flag...]` (written by xrpm's IBM writer, see ibm_classic_writer.h)
//     become roots of that kind and flags instead of a type.
//   - Trailers: `// Breakdown - Classes: N, Objects: N, ObjectArrays: N, PrimitiveArrays: N` and
//     `// EOF:  Total 'Objects',Refs(null) : T,R(N)` are checked against the records read (class
//     count, total records, objects + arrays); the Refs(null) pair is accepted under each
//     convention real writers use (nulls listed or only counted, class block references counted
//     or not). Writers differ in spacing: one or two spaces after `EOF:`, any spaces after the
//     colons and commas, a trailer wrapped over several lines, trailing blanks, tabs, CRLF.
//
// Bad input: lenient by default, every problem goes to `diags` with file:line and a stable code
// (bad-number, bad-size, bad-record, missing-type, missing-header, duplicate-header,
// missing-class, missing-class-ref, class-name-mismatch, duplicate-class, duplicate-object (the
// first is kept), dangling-ref, dangling-root, stray-refs, size-overflow, bad-trailer,
// trailer-mismatch, duplicate-trailer, missing-trailer, after-eof, not-ibm-classic); with
// ReadOptions::strict (or a strict sink) the first problem throws InputError. Input that holds no
// classic heapdump at all (no header and no record) throws InputError. One sequential pass over the
// text plus O(classes + roots) side tables: memory is the model's plus a bounded temporary
// line-number column; lines of any length are scanned in place. ReadOptions::threads is ignored
// (the parse is sequential).
//
// Thread-safety: reentrant; separate calls may run concurrently.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "xrpm/formats/read_options.h"
#include "xrpm/model/diagnostics.h"
#include "xrpm/model/snapshot.h"

namespace xrpm::formats {

// What the file held beyond the model: the counts the trailers talk about.
struct IbmReadStats {
  uint64_t class_records = 0;     // CLS records (pseudo root classes included)
  uint64_t object_records = 0;    // OBJ records loaded
  uint64_t object_arrays = 0;     // OBJ records whose type is an object array
  uint64_t primitive_arrays = 0;  // OBJ records whose type is a primitive array
  uint64_t refs = 0;              // reference tokens read (class block refs and nulls included)
  uint64_t null_refs = 0;         // null references (not edges)
  uint64_t class_refs = 0;        // references to class blocks (not edges, not roots)
  bool saw_breakdown = false;     // trailer 1 present
  bool saw_eof = false;           // trailer 2 present
};

// Reads `text` (a whole file) named `name` in diagnostics.
Snapshot ReadIbmClassic(std::string_view text, std::string_view name, Diagnostics& diags,
                        const ReadOptions& opts = {}, IbmReadStats* stats = nullptr);
// Reads a file (mmap'd). Throws InputError when the file cannot be opened.
Snapshot ReadIbmClassicFile(const std::string& path, Diagnostics& diags,
                            const ReadOptions& opts = {}, IbmReadStats* stats = nullptr);

// True when `head` (the first bytes of a file) looks like a classic heapdump: its first
// non-blank line is `// Version:` or an `0x... [n] OBJ|CLS ...` record.
bool LooksLikeIbmClassic(std::string_view head);

}  // namespace xrpm::formats
