// .gcdump reader: heap snapshots written by dotnet-gcdump, PerfView and Visual Studio
// ("!FastSerialization.1" files, see gcdump_file.h), mapped onto the same Snapshot model as a
// NETCF dump so every view and CLI verb works on them.
//
// How the graph maps onto the model:
//   - Pseudo-nodes: the root node and, below it, every node with address 0 whose type name is
//     bracketed ("[.NET Roots]", "[static vars]", "[local vars]", "[other roots]",
//     "[StrongHandle]", "[static var Foo.bar]", "[JS Roots]", ...) are not objects. Each edge from
//     a pseudo-node to a real node becomes a root of that node. Its descriptor is the closest
//     NETCF one, from the innermost pseudo-node name that says something (case-insensitive):
//     "local vars"/"stack" -> local; "finaliz" -> finalizer; "static var" -> static;
//     "handle"/"com/winrt"/"ccw" -> handle; anything else (the root itself, "[other roots]") ->
//     internal. A name containing "pinned" adds kRootPinned, "weak" adds kRootWeak. The root's
//     origin keeps where it came from: the pseudo-node path, "[.NET Roots]/[other roots]/
//     [StrongHandle]". An edge from an object to a pseudo-node is dropped (code pseudo-ref).
//   - Undefined nodes (type 0, "UNDEFINED": referenced but never defined by the dumper) are not
//     objects; references and roots to them are kept as ids that do not resolve (dangling), and
//     their number is reported once (code undefined-nodes).
//   - Every other node -> one object: id = its address (64-bit), type = its type, size = its
//     size, refs = its children's ids, in order (duplicates kept). A node without an address (0,
//     or a file without addresses) or whose address another node already has gets a synthetic id
//     above the largest address (duplicates are reported, code duplicate-address).
//   - Types: one TypeInfo per graph type used by an object, in order of first use; TypeInfo::id
//     is the graph's type index, `module` its module name, `sample_multiplier` its count
//     multiplier in a sampled dump (PerfView scales sizes by the same per-type factor).
//   - One AppDomainSection named after the process (else the creation tool, else "gcdump").
//   - The graph's stored total size is checked against the node sizes (code total-size).
// Decoding errors (anything structurally wrong) throw InputError with the byte offset. The
// findings above are diagnostics: recorded when lenient, thrown under ReadOptions::strict.
//
// Cost: O(file bytes + nodes + edges) time; memory is the model's plus 8 bytes and a bit per
// node (ids, pseudo marks) and, for the duplicate check, a bitmap over the address span
// (IdBitmap, when it costs at most 8 bytes per node) or else a hash set. ReadOptions::threads
// is ignored.
//
// Thread-safety: reentrant; separate calls may run concurrently.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "xrpm/formats/read_options.h"
#include "xrpm/model/diagnostics.h"
#include "xrpm/model/snapshot.h"

namespace xrpm::formats {

// What the file held beyond the model.
struct GcDumpReadStats {
  int32_t version = 0;            // GCHeapDump version
  uint64_t nodes = 0;             // graph nodes (pseudo and undefined ones included)
  uint64_t edges = 0;             // graph edges (children of every node)
  uint64_t types = 0;             // graph types (UNDEFINED and pseudo types included)
  int64_t stored_total_size = 0;  // the graph's total size as stored
  uint64_t pseudo_nodes = 0;      // nodes mapped to roots, the root node included
  uint64_t undefined_nodes = 0;   // nodes of type 0
  uint64_t root_edges = 0;        // edges from pseudo-nodes to real nodes (= roots)
  bool sampled = false;
  float average_count_multiplier = 1, average_size_multiplier = 1;
  std::string process_name, creation_tool;
};

// Reads a whole .gcdump image named `name` in diagnostics.
Snapshot ReadGcDump(std::span<const uint8_t> bytes, std::string_view name, Diagnostics& diags,
                    const ReadOptions& opts = {}, GcDumpReadStats* stats = nullptr);
// Reads a file (mmap'd). Throws InputError when the file cannot be opened.
Snapshot ReadGcDumpFile(const std::string& path, Diagnostics& diags, const ReadOptions& opts = {},
                        GcDumpReadStats* stats = nullptr);

// True when `head` starts with the FastSerialization signature (int32 20, "!FastSerialization.1").
bool LooksLikeGcDump(std::string_view head);

}  // namespace xrpm::formats
