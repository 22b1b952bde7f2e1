// Test-only .gcdump writer (gcdump_test_writer.h). Field order follows PerfView's ToStream
// methods (GCHeapDump.cs, graph.cs, MemoryGraph.cs); O(nodes + edges).
#include "gcdump_test_writer.h"

#include <cstring>

namespace xrpm::testing {
namespace {

enum : uint8_t {
  kNull = 1,
  kObjectRef = 2,
  kForwardRef = 3,
  kBegin = 4,
  kEnd = 6,
  kForwardDef = 7,
  kByteTag = 8,
  kSkipRegion = 12,
  kStringTag = 13,
};

struct Out {
  std::string b;
  void U8(uint8_t v) { b += static_cast<char>(v); }
  void I32(int32_t v) { b.append(reinterpret_cast<const char*>(&v), 4); }
  void I64(int64_t v) { b.append(reinterpret_cast<const char*>(&v), 8); }
  void F32(float v) { b.append(reinterpret_cast<const char*>(&v), 4); }
  void Str(const std::string& s) {  // ASCII only in tests: one byte per UTF-16 unit
    I32(static_cast<int32_t>(s.size()));
    b += s;
  }
  void NullStr() { I32(-1); }
  uint32_t Label() const { return static_cast<uint32_t>(b.size()); }
  // A SerializationType definition; returns its label.
  uint32_t TypeDef(const std::string& name, int32_t version, int32_t min_reader) {
    const uint32_t at = Label();
    U8(kBegin);
    U8(kNull);
    I32(version);
    I32(min_reader);
    Str(name);
    U8(kEnd);
    return at;
  }
};

}  // namespace

GcDumpTestWriter::GcDumpTestWriter() {
  types_.push_back({"UNDEFINED", 0, {}});
  PutVarint(blob_, 0);  // the undefined record: type 0, the type's size, no children
  PutVarint(blob_, 0);
}

void GcDumpTestWriter::PutVarint(std::string& out, int32_t value) {
  auto put = [&](int32_t v) { out += static_cast<char>(static_cast<uint8_t>(v)); };
  auto fits = [&](int bits) {
    return static_cast<int32_t>(static_cast<uint32_t>(value) << bits) >> bits == value;
  };
  if (fits(25)) return put(value & 0x7F);
  if (fits(18)) {
    put((value >> 7) | 0x80);
    return put(value & 0x7F);
  }
  if (fits(11)) {
    put((value >> 14) | 0x80);
    put((value >> 7) | 0x80);
    return put(value & 0x7F);
  }
  if (fits(4)) {
    put((value >> 21) | 0x80);
    put((value >> 14) | 0x80);
    put((value >> 7) | 0x80);
    return put(value & 0x7F);
  }
  put((value >> 28) | 0x80);
  put((value >> 21) | 0x80);
  put((value >> 14) | 0x80);
  put((value >> 7) | 0x80);
  put(value & 0x7F);
}

uint32_t GcDumpTestWriter::AddType(std::string name, int32_t size, std::string module) {
  types_.push_back({std::move(name), size, std::move(module)});
  return static_cast<uint32_t>(types_.size() - 1);
}

uint32_t GcDumpTestWriter::AddNode(uint32_t type, int32_t size, std::span<const uint32_t> children,
                                   uint64_t address) {
  const uint32_t index = node_count();
  offsets_.push_back(static_cast<uint32_t>(blob_.size()));
  addresses_.push_back(address);
  Type& t = types_[type];
  if (size < 0) size = t.size < 0 ? 0 : t.size;
  if (t.size < 0) t.size = size;
  if (size == t.size) {
    PutVarint(blob_, static_cast<int32_t>(type << 1));
  } else {
    PutVarint(blob_, static_cast<int32_t>(type << 1 | 1));
    PutVarint(blob_, size);
  }
  total_size_ += size;
  PutVarint(blob_, static_cast<int32_t>(children.size()));
  for (uint32_t c : children)
    PutVarint(blob_, static_cast<int32_t>(c) - static_cast<int32_t>(index));
  return index;
}

uint32_t GcDumpTestWriter::AddUndefinedNode(uint64_t address) {
  offsets_.push_back(0);
  addresses_.push_back(address);
  return node_count() - 1;
}

std::string GcDumpTestWriter::Finish() const {
  Out o;
  o.Str("!FastSerialization.1");
  std::vector<uint32_t> forward;  // the forward-reference table
  // GCHeapDump
  o.U8(kBegin);
  o.TypeDef("GCHeapDump", 10, 8);
  //   MemoryGraph
  o.U8(kBegin);
  o.TypeDef("Graphs.MemoryGraph", 1, 0);
  o.I64(total_size_);
  o.I32(root);
  o.I32(static_cast<int32_t>(types_.size()));
  for (const Type& t : types_) {
    o.Str(t.name);
    o.I32(t.size);
    if (t.module.empty())
      o.NullStr();
    else
      o.Str(t.module);
  }
  o.I32(static_cast<int32_t>(offsets_.size()));
  for (uint32_t off : offsets_) o.I32(static_cast<int32_t>(off));
  o.I32(static_cast<int32_t>(blob_.size()));
  o.b += blob_;
  if (write_addresses) {
    o.I32(static_cast<int32_t>(addresses_.size()));
    for (uint64_t a : addresses_) o.I64(static_cast<int64_t>(a));
  } else {
    o.I32(0);
  }
  o.U8(kByteTag);
  o.U8(1);  // Is64Bit
  o.U8(kEnd);
  //   the rest of GCHeapDump
  o.U8(1);
  o.F32(average_count_multiplier);
  o.F32(average_size_multiplier);
  if (unknown_object) {
    o.U8(kBegin);
    o.TypeDef("Xrpm.Unknown", 1, 0);
    o.U8(kEnd);
  } else {
    o.U8(kNull);  // JSHeapInfo
  }
  uint32_t heap_info_type = 0;
  if (self_forward_reference) {
    o.U8(kForwardRef);
    o.I32(static_cast<int32_t>(forward.size()));
    forward.push_back(0);  // defined below, after the entry object
    heap_info_type = o.TypeDef("DotNetHeapInfo", 0, 0);
  } else {
    o.U8(kBegin);
    o.TypeDef("DotNetHeapInfo", 0, 0);
    o.I64(0);
    o.I32(0);
    o.U8(kEnd);
  }
  o.Str("collection log");
  o.I64(0);
  o.Str("machine");
  o.Str(process_name);
  o.I32(42);
  o.I64(0);
  o.I64(0);
  o.I32(static_cast<int32_t>(count_multipliers.size()));
  for (float m : count_multipliers) o.F32(m);
  if (backward_skip_region) {
    o.U8(kSkipRegion);
    o.I32(static_cast<int32_t>(forward.size()));
    forward.push_back(24);  // the GCHeapDump object's start: behind the region
  }
  o.U8(kStringTag);
  o.Str(creation_tool);
  o.U8(kEnd);
  if (self_forward_reference) {  // the deferred DotNetHeapInfo, holding a reference to itself
    forward[0] = o.Label();
    o.U8(kForwardDef);
    o.I32(0);
    o.U8(kBegin);
    o.U8(kObjectRef);
    o.I32(static_cast<int32_t>(heap_info_type));
    o.I64(0);
    o.I32(1);  // one "segment": a forward reference to this very object
    o.U8(kForwardRef);
    o.I32(0);
    o.U8(kObjectRef);
    o.I32(static_cast<int32_t>(heap_info_type));
    o.U8(kEnd);
  }
  o.U8(kEnd);  // the end of the objects
  const uint32_t table = o.Label();
  o.I32(static_cast<int32_t>(forward.size()));
  for (uint32_t l : forward) o.I32(static_cast<int32_t>(l));
  const uint32_t trailer = o.Label();
  o.I32(static_cast<int32_t>(table));
  o.I32(static_cast<int32_t>(trailer));
  return o.b;
}

}  // namespace xrpm::testing
