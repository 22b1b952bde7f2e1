// Chrome DevTools heap snapshot (.heapsnapshot) export: the V8 heap snapshot JSON that Chrome's
// Memory panel (Load profile), VS Code, memlab and other tools open.
//
// Layout written (V8's field set, so current DevTools readers take it as is):
//   {"snapshot":{"meta":{"node_fields":["type","name","id","self_size","edge_count",
//     "trace_node_id","detachedness"], "node_types":[[...V8 node types...],"string",...],
//     "edge_fields":["type","name_or_index","to_node"], "edge_types":[[...],...], trace/sample/
//     location fields}, "node_count":N, "edge_count":E, "trace_function_count":0},
//    "nodes":[...], "edges":[...], "trace_function_infos":[], "trace_tree":[], "samples":[],
//    "locations":[], "strings":[...]}
//
// Mapping:
//   - Node 0 is the synthetic root (name ""). It has one element edge per root descriptor kind
//     present in the snapshot, to a synthetic node named "(GC roots: local)", "(GC roots:
//     static)", ... (RootKindName). Each of those has one edge per root whose object exists:
//     a `weak` edge for weak roots, else a `property` edge named by what is known about the root
//     (the static's class name, the capture's origin, flag names such as "pinned"), else an
//     `element` edge.
//   - Every object is an `object` node: name = its type name (so DevTools' Summary groups by
//     type), self_size = its size, one `element` edge per reference (name_or_index = the
//     reference's position in the object's reference list). References to ids that are not
//     objects of the snapshot (dangling) have no node to point to and are left out (counted in
//     HeapSnapshotStats). Objects no root reaches are kept; DevTools lists them as unreachable.
//   - Object contents, when the snapshot has them: a reference from a class
//     instance is a `property` edge named by its field ("bubbles"), from an array an `element`
//     edge whose index is the element's; a string with captured text is a `string` node whose
//     name is its text ("…" appended when cut at the capture), as V8 writes strings; a root
//     edge is named by the root's label ("Bubbles.GameEvents.Popped") instead of its class.
//   - to_node is the target's index in the nodes array (ordinal * 7); edge_count per node is the
//     number of edges written for it; edges are grouped by source node in node order.
//   - Node ids: synthetic nodes 1, 3, 5, ...; objects keep their address as id when every address
//     is unique, fits in 32 bits (DevTools reads ids as uint32) and is above the synthetic ids --
//     so two exports of the same device heap compare by address in DevTools' Comparison view.
//     Otherwise objects get odd ordinal ids, as V8 numbers JS objects.
//   - Strings are deduplicated; invalid UTF-8 in type names is replaced by U+FFFD.
//
// Streaming: numbers and strings go through the sink in ~256 KiB chunks as they are produced;
// besides the output buffer the writer holds an id index (2-4 bytes per object, 16 more when the
// ids are not in address order), each reference's resolved target (4 bytes per reference, so
// each is looked up once), per-root bookkeeping and the string table -- never a JSON tree.
// Time O(objects + refs) expected (O((objects + refs) log objects) at worst). Throws
// std::runtime_error when the snapshot has more nodes than the format's 32-bit node indexes can
// address.
//
// Thread-safety: none; the snapshot must not change while it is written.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

#include "xrpm/model/snapshot.h"

namespace xrpm::formats {

struct HeapSnapshotStats {
  uint64_t node_count = 0;  // 1 root + one per root kind present + one per object
  uint64_t edge_count = 0;
  uint64_t root_groups = 0;    // synthetic "(GC roots: ...)" nodes
  uint64_t dropped_refs = 0;   // dangling references left out
  uint64_t dropped_roots = 0;  // roots of ids that are not objects
  bool ids_are_addresses = false;
};

HeapSnapshotStats WriteHeapSnapshot(const Snapshot& snap,
                                    const std::function<void(std::string_view)>& sink);
// Writes `snap` to `path` atomically (AtomicFile). Throws std::runtime_error on I/O errors.
HeapSnapshotStats WriteHeapSnapshotFile(const Snapshot& snap, const std::string& path);

}  // namespace xrpm::formats
