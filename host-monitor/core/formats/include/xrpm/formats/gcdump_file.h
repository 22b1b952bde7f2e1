// .gcdump decoding: the GCHeapDump object of a FastSerialization stream and the
// Graphs.MemoryGraph it holds, exactly as PerfView and dotnet-gcdump write them (public sources:
// src/HeapDump/GCHeapDump.cs, src/MemoryGraph/graph.cs and MemoryGraph.cs in microsoft/perfview).
// This is the raw graph, before any mapping onto xrpm's model (gcdump_reader.h does that).
//
// The graph: a type table (name, size, module name), a root node index, one stream label per
// node pointing into a blob of compressed node records, and one address per node. A node record
// is: varint (type index << 1 | has explicit size); the size when flagged (else the type's
// size); varint child count; one varint per child, the child's index minus the node's own index.
// Varints are PerfView's "compressed int": big-endian groups of 7 bits, high bit = more follow,
// the first group sign-extended from its bit 6, at most 5 bytes. Type 0 is always "UNDEFINED";
// a node referenced but never defined points at the undefined record (type 0, size 0, no
// children).
//
// Around the graph, GCHeapDump (version >= 9) stores: a redundant 64-bit flag, the average count
// and size multipliers of a sampled dump, JSHeapInfo, DotNetHeapInfo (segments), the collection
// log, time, machine, process name and id, process commit/working set, the per-type count
// multipliers (empty when not sampled), and tagged InteropInfo and creation tool name. Versions
// 4-7 (before the "tagged" plan) are read too; version 8 is rejected as PerfView does.
//
// Bad input throws InputError with the byte offset (fast_serialization.h); objects of types this
// reader does not know where the format needs one of its own throw "unknown serialized type".
// Memory: the graph's columns (4 + 8 bytes per node) plus the type table; the blob is not
// copied (a view into the caller's bytes).
//
// Thread-safety: reentrant. A GcDumpFile is a value; NodeDecoder is one per thread.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "xrpm/model/pod_vector.h"

namespace xrpm::formats {

struct GraphType {
  std::string name;
  int32_t size = 0;    // bytes; -1 when no node of the type was set
  std::string module;  // module (assembly) name, "" when unknown
};

struct Graph {
  int64_t total_size = 0;  // as stored: the sum of every node's size
  int32_t root_index = -1;
  std::vector<GraphType> types;
  PodVector<uint32_t> node_offsets;  // per node: offset of its record in `blob`
  std::span<const uint8_t> blob;     // the node records (a view into the file)
  uint64_t blob_file_offset = 0;     // where the blob starts in the file, for error messages
  PodVector<uint64_t> addresses;     // per node; may be empty in files without addresses
  bool is64 = false;
  uint64_t node_count() const { return node_offsets.size(); }
};

struct GcDumpFile {
  int32_t version = 0;  // GCHeapDump's serialized version
  Graph graph;
  float average_count_multiplier = 1, average_size_multiplier = 1;
  std::vector<float> count_multipliers;  // per graph type index; empty when not sampled
  std::string collection_log, machine_name, process_name, creation_tool;
  int32_t process_id = 0;
  int64_t time_collected_ticks = 0;  // .NET DateTime ticks (100 ns since 0001-01-01)
  uint64_t segments = 0;             // DotNetHeapInfo segments
  bool sampled() const { return !count_multipliers.empty(); }
};

// Parses a whole .gcdump image named `name` (for errors).
GcDumpFile ParseGcDumpFile(std::span<const uint8_t> bytes, const std::string& name);

// One decoded node.
struct GraphNode {
  uint32_t type = 0;
  uint32_t size = 0;
  std::span<const uint32_t> children;  // valid until the next Decode on the same decoder
};

// Decodes node records. Children are checked to be node indices; types to be type indices.
class NodeDecoder {
 public:
  NodeDecoder(const Graph& g, std::string name);
  // Decodes node `index` (< node_count()). Throws InputError with the record's file offset.
  GraphNode Decode(uint32_t index);
  // Only the type of node `index` (reads one varint).
  uint32_t TypeOf(uint32_t index);

 private:
  int32_t TypeAndSize(uint64_t& pos, uint32_t index) const;
  int32_t Varint(uint64_t& pos, uint32_t index, const char* what) const;
  [[noreturn]] void Fail(uint64_t blob_pos, uint32_t index, const std::string& msg) const;
  const Graph& g_;
  std::string name_;
  std::vector<uint32_t> children_;
};

}  // namespace xrpm::formats
