// MemoryGraph node records (gcdump_file.h): the compressed-int decoder and NodeDecoder.
// Decoding one node is O(1 + children); every read is checked against the blob's end.
#include <string>

#include "xrpm/formats/gcdump_file.h"
#include "xrpm/model/diagnostics.h"

namespace xrpm::formats {

NodeDecoder::NodeDecoder(const Graph& g, std::string name) : g_(g), name_(std::move(name)) {}

void NodeDecoder::Fail(uint64_t blob_pos, uint32_t index, const std::string& msg) const {
  const uint64_t at = g_.blob_file_offset + blob_pos;
  throw InputError(Diagnostic{
      name_, 0, "bad-node",
      "byte offset " + std::to_string(at) + ": node " + std::to_string(index) + ": " + msg});
}

// PerfView's compressed int: the first byte's low 7 bits sign-extended, then up to four more
// 7-bit groups while the high bit is set.
int32_t NodeDecoder::Varint(uint64_t& pos, uint32_t index, const char* what) const {
  const auto& b = g_.blob;
  if (pos >= b.size()) Fail(pos, index, std::string("the blob ends inside ") + what);
  uint8_t c = b[pos++];
  int32_t v = static_cast<int32_t>(static_cast<uint32_t>(c) << 25) >> 25;
  for (int i = 1; (c & 0x80) != 0; ++i) {
    if (i == 5)
      Fail(pos - 1, index, std::string("a compressed int longer than 5 bytes in ") + what);
    if (pos >= b.size()) Fail(pos, index, std::string("the blob ends inside ") + what);
    c = b[pos++];
    v = static_cast<int32_t>(static_cast<uint32_t>(v) << 7) + (c & 0x7F);
  }
  return v;
}

int32_t NodeDecoder::TypeAndSize(uint64_t& pos, uint32_t index) const {
  pos = g_.node_offsets[index];
  if (pos >= g_.blob.size())
    Fail(0, index,
         "record offset " + std::to_string(pos) + " is outside the node blob (" +
             std::to_string(g_.blob.size()) + " bytes)");
  const uint64_t at = pos;
  const int32_t type_and_size = Varint(pos, index, "the type");
  if (type_and_size < 0 || static_cast<uint32_t>(type_and_size >> 1) >= g_.types.size())
    Fail(at, index,
         "type index " + std::to_string(type_and_size >> 1) + " is not in the type table (" +
             std::to_string(g_.types.size()) + " types)");
  return type_and_size;
}

uint32_t NodeDecoder::TypeOf(uint32_t index) {
  uint64_t pos = 0;
  return static_cast<uint32_t>(TypeAndSize(pos, index)) >> 1;
}

GraphNode NodeDecoder::Decode(uint32_t index) {
  GraphNode n;
  uint64_t pos = 0;
  const int32_t type_and_size = TypeAndSize(pos, index);
  const uint32_t type = static_cast<uint32_t>(type_and_size) >> 1;
  n.type = type;
  int32_t size = g_.types[type].size;
  if (type_and_size & 1) size = Varint(pos, index, "the size");
  if (size < 0) size = 0;  // a type never given a size, or a negative explicit size
  n.size = static_cast<uint32_t>(size);
  const uint64_t count_at = pos;
  const int32_t count = Varint(pos, index, "the child count");
  if (count < 0 || static_cast<uint64_t>(count) > g_.blob.size() - pos)
    Fail(count_at, index,
         "child count " + std::to_string(count) + " is more than the " +
             std::to_string(g_.blob.size() - pos) + " bytes left in the blob could hold");
  children_.resize(static_cast<size_t>(count));
  const int64_t nodes = static_cast<int64_t>(g_.node_count());
  for (int32_t i = 0; i < count; ++i) {
    const uint64_t at = pos;
    const int64_t child = static_cast<int64_t>(index) + Varint(pos, index, "a child");
    if (child < 0 || child >= nodes)
      Fail(at, index,
           "child " + std::to_string(child) + " is not a node index (" + std::to_string(nodes) +
               " nodes)");
    children_[static_cast<size_t>(i)] = static_cast<uint32_t>(child);
  }
  n.children = children_;
  return n;
}

}  // namespace xrpm::formats
