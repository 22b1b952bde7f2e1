// .gcdump decoding (gcdump_file.h): GCHeapDump, Graphs.MemoryGraph and the small objects around
// them, field by field in the order PerfView's ToStream writes them. One pass over the stream,
// O(bytes); node offsets and addresses are copied in bulk.
#include "xrpm/formats/gcdump_file.h"

#include <cmath>
#include <cstring>
#include <functional>

#include "xrpm/formats/fast_serialization.h"
#include "xrpm/model/diagnostics.h"

namespace xrpm::formats {
namespace {

using formats::Reader;
using formats::SerializedType;
using Body = std::function<void(const SerializedType& type, uint64_t at)>;

void ReadDefinition(Reader& r, std::string_view what, const Body& body) {
  const uint64_t at = r.pos();
  const SerializedType type = r.BeginDefinition(what);  // a copy: nested reads may add types
  body(type, at);
  r.EndObject(what);
}

// Reads an object reference and, when it leads to a definition not read yet, the object's
// fields through `body`. Returns false for a null reference.
bool ReadObject(Reader& r, std::string_view what, const Body& body) {
  const Reader::ObjectRef ref = r.ReadObjectRef(what);
  switch (ref.kind) {
    case Reader::RefKind::kNull:
      return false;
    case Reader::RefKind::kAlreadyRead:
      return true;
    case Reader::RefKind::kDefinitionHere:
      ReadDefinition(r, what, body);
      return true;
    case Reader::RefKind::kElsewhere: {
      const uint64_t back = r.pos();
      r.Seek(ref.target, what);
      ReadDefinition(r, what, body);
      r.Seek(back, what);
      return true;
    }
  }
  return false;
}

void ExpectType(const Reader& r, const SerializedType& t, uint64_t at, std::string_view expected,
                std::string_view what) {
  if (t.name == expected) return;
  static constexpr std::string_view kKnown[] = {
      "GCHeapDump",        "Graphs.MemoryGraph", "Graphs.Module", "DotNetHeapInfo",
      "GCHeapDumpSegment", "JSHeapInfo",         "InteropInfo"};
  const bool known = std::find(std::begin(kKnown), std::end(kKnown), t.name) != std::end(kKnown);
  r.Fail(at, known ? "unexpected-type" : "unknown-type", what,
         std::string(known ? "expected" : "unknown serialized type '" + t.name + "'; expected") +
             " an object of type " + std::string(expected) +
             (known ? ", found " + t.name : std::string()));
}

std::string OrEmpty(std::optional<std::string> s) {
  return s ? std::move(*s) : std::string();
}

void ReadGraphBody(Reader& r, const SerializedType& t, Graph& g) {
  g.total_size = r.I64("the graph's total size");
  g.root_index = r.I32("the graph's root index");
  const uint32_t types = r.Count("the graph's type count", 12);
  g.types.reserve(types);
  for (uint32_t i = 0; i < types; ++i) {
    GraphType gt;
    gt.name = OrEmpty(r.String("a type's name"));
    gt.size = r.I32("a type's size");
    gt.module = OrEmpty(r.String("a type's module name"));
    g.types.push_back(std::move(gt));
  }
  const uint64_t nodes_at = r.pos();
  const uint32_t nodes = r.Count("the graph's node count", 4);
  g.node_offsets.resize_uninitialized(nodes);
  if (nodes)
    std::memcpy(g.node_offsets.data(), r.Bytes(uint64_t{nodes} * 4, "node labels").data(),
                uint64_t{nodes} * 4);
  const uint32_t blob = r.Count("the node blob's size", 1);
  g.blob_file_offset = r.pos();
  g.blob = r.Bytes(blob, "the node blob");
  if (t.min_reader_version >= 1) r.SkipForwardRegion("the graph's deferred-type region");
  const uint64_t addr_at = r.pos();
  const uint32_t addrs = r.Count("the graph's address count", 8);
  if (addrs != nodes && addrs != 0)
    r.Fail(addr_at, "bad-count", "the graph's address count",
           "expected " + std::to_string(nodes) + " addresses (one per node), found " +
               std::to_string(addrs));
  g.addresses.resize_uninitialized(addrs);
  if (addrs)
    std::memcpy(g.addresses.data(), r.Bytes(uint64_t{addrs} * 8, "node addresses").data(),
                uint64_t{addrs} * 8);
  if (r.PeekTag() == static_cast<uint8_t>(formats::Tag::kByte)) {
    r.ReadTag("the graph's 64-bit flag");
    g.is64 = r.U8("the graph's 64-bit flag") != 0;
  }
  if (types == 0 && nodes != 0)
    r.Fail(nodes_at, "bad-count", "the graph's node count", "nodes but no type table");
  if (nodes && (g.root_index < 0 || static_cast<uint32_t>(g.root_index) >= nodes))
    r.Fail(nodes_at, "bad-root", "the graph's root index",
           "root index " + std::to_string(g.root_index) + " is not a node index (" +
               std::to_string(nodes) + " nodes)");
}

void ReadGraph(Reader& r, GcDumpFile& f) {
  const bool present = ReadObject(r, "the memory graph", [&](const SerializedType& t, uint64_t at) {
    ExpectType(r, t, at, "Graphs.MemoryGraph", "the memory graph");
    ReadGraphBody(r, t, f.graph);
  });
  if (!present) r.Fail(r.pos(), "no-graph", "the memory graph", "the dump holds no graph (null)");
}

void ReadSegment(Reader& r, GcDumpFile& f) {
  ReadObject(r, "a heap segment", [&](const SerializedType& t, uint64_t at) {
    ExpectType(r, t, at, "GCHeapDumpSegment", "a heap segment");
    for (int i = 0; i < 6; ++i) r.I64("a segment's bounds");
    if (t.version >= 1) r.I64("a segment's gen4 end");
    ++f.segments;
  });
}

void ReadDotNetHeapInfo(Reader& r, GcDumpFile& f) {
  ReadObject(r, "the .NET heap info", [&](const SerializedType& t, uint64_t at) {
    ExpectType(r, t, at, "DotNetHeapInfo", "the .NET heap info");
    r.I64("the size of all segments");
    const uint32_t n = r.Count("the segment count", 1);
    for (uint32_t i = 0; i < n; ++i) ReadSegment(r, f);
  });
}

void ReadProcessFields(Reader& r, GcDumpFile& f) {
  f.collection_log = OrEmpty(r.String("the collection log"));
  f.time_collected_ticks = r.I64("the collection time");
  f.machine_name = OrEmpty(r.String("the machine name"));
  f.process_name = OrEmpty(r.String("the process name"));
  f.process_id = r.I32("the process id");
  r.I64("the process commit");
  r.I64("the process working set");
}

void ReadHeapDumpBody(Reader& r, const SerializedType& t, uint64_t at, GcDumpFile& f) {
  f.version = t.version;
  if (t.version < 4 || t.version == 8)
    r.Fail(at, "unsupported-version", "the GCHeapDump object",
           "version " + std::to_string(t.version) +
               " is not readable (PerfView reads 4-7 and 9 or later)");
  if (t.version < 8) {  // the format before the "tagged" plan
    ReadGraph(r, f);
    r.I64("the size of all segments");
    r.I64("the size of dumped objects");
    r.I64("the number of dumped objects");
    r.U8("the all-objects-dumped flag");
    if (t.version >= 5) {
      ReadProcessFields(r, f);
      if (t.version >= 6) {
        const uint32_t n = r.Count("the segment count", 1);
        for (uint32_t i = 0; i < n; ++i) ReadSegment(r, f);
        if (t.version >= 7) r.U8("the 64-bit flag");
      }
    }
    return;
  }
  ReadGraph(r, f);
  r.U8("the 64-bit flag");
  f.average_count_multiplier = r.F32("the average count multiplier");
  f.average_size_multiplier = r.F32("the average size multiplier");
  ReadObject(r, "the JavaScript heap info", [&](const SerializedType& jt, uint64_t jat) {
    ExpectType(r, jt, jat, "JSHeapInfo", "the JavaScript heap info");
  });
  ReadDotNetHeapInfo(r, f);
  ReadProcessFields(r, f);
  const uint32_t n = r.Count("the count-multiplier count", 4);
  f.count_multipliers.reserve(n);
  for (uint32_t i = 0; i < n; ++i) {
    const uint64_t at = r.pos();
    const float m = r.F32("a count multiplier");
    if (!std::isfinite(m) || m < 0)
      r.Fail(at, "bad-multiplier", "the count multiplier of type " + std::to_string(i),
             "expected a finite number >= 0, found " + std::to_string(m));
    f.count_multipliers.push_back(m);
  }
  if (n && n != f.graph.types.size())
    r.Fail(r.pos(), "bad-count", "the count multipliers",
           "expected one per type (" + std::to_string(f.graph.types.size()) + "), found " +
               std::to_string(n));
  if (r.PeekTag() == static_cast<uint8_t>(formats::Tag::kSkipRegion)) {  // tagged InteropInfo
    r.ReadTag("the interop info");
    r.SkipForwardRegion("the interop info");
  }
  if (r.PeekTag() == static_cast<uint8_t>(formats::Tag::kString)) {  // tagged creation tool
    r.ReadTag("the creation tool");
    f.creation_tool = OrEmpty(r.String("the creation tool"));
  }
}

}  // namespace

GcDumpFile ParseGcDumpFile(std::span<const uint8_t> bytes, const std::string& name) {
  Reader r(bytes, name);
  r.ReadSignature();
  GcDumpFile f;
  ReadDefinition(r, "the GCHeapDump object", [&](const SerializedType& t, uint64_t at) {
    ExpectType(r, t, at, "GCHeapDump", "the entry object");
    ReadHeapDumpBody(r, t, at, f);
  });
  r.CheckTrailer();
  return f;
}

}  // namespace xrpm::formats
