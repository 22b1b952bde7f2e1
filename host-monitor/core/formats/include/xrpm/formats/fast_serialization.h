// FastSerialization stream reader: the container format of PerfView's .gcdump files
// ("!FastSerialization.1", public sources: src/FastSerialization/FastSerialization.cs and
// StreamReaderWriter.cs in microsoft/perfview). This is the bounded, bytewise layer: primitive
// values, tags, serialized types, object framing and forward references. What the objects mean
// (GCHeapDump, MemoryGraph) is gcdump_file.h's business.
//
// Stream layout (little-endian):
//   int32 20, "!FastSerialization.1"; the entry object; deferred objects; an unmatched EndObject
//   tag; the forward-reference table (int32 count, then one 4-byte stream label per index); the
//   trailer (the forward table's label); and, as the file's last 4 bytes, the trailer's label.
// An object is [ForwardDefinition int32 index] BeginObject <type> <fields...> EndObject, where
// <type> is itself an object of the SerializationType (int32 version, int32 minimum reader
// version, string full name) whose own type is written as a NullReference, or an
// ObjectReference (tag, 4-byte label) to a type already written. Strings: int32 count of UTF-16
// units (-1 = null), then each unit as 1-3 bytes of UTF-8 (surrogates encoded one by one).
//
// Safety: every read is bounds-checked and fails with InputError naming the byte offset, what
// was expected and what was found. Counts read from the file are checked against the bytes left
// before anything is allocated (Count()), so memory stays proportional to the file size. Jumps
// through forward references only go forward (Seek targets past the current position for skip
// regions) or into a definition not yet being read (BeginDefinition()'s stack), so a file whose
// forward references form a cycle is reported, never followed forever. Nesting is limited to
// kMaxDepth objects.
//
// Thread-safety: none; one reader per stream. Reentrant: separate readers may run concurrently.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_set>
#include <vector>

namespace xrpm::formats {

enum class Tag : uint8_t {
  kNullReference = 1,
  kObjectReference = 2,
  kForwardReference = 3,
  kBeginObject = 4,
  kBeginPrivateObject = 5,
  kEndObject = 6,
  kForwardDefinition = 7,
  kByte = 8,
  kInt16 = 9,
  kInt32 = 10,
  kInt64 = 11,
  kSkipRegion = 12,
  kString = 13,
  kBlob = 14,
};
std::string_view TagName(uint8_t tag);  // "BeginObject", or "unknown tag 0x42"

// A SerializationType as written in the stream.
struct SerializedType {
  std::string name;  // full .NET type name, "Graphs.MemoryGraph"
  int32_t version = 0;
  int32_t min_reader_version = 0;
};

class Reader {
 public:
  static constexpr int kMaxDepth = 32;

  // `bytes` must outlive the reader; `name` is used in error messages (the file path).
  Reader(std::span<const uint8_t> bytes, std::string name);

  // ---- position ----
  uint64_t pos() const { return pos_; }
  uint64_t size() const { return bytes_.size(); }
  uint64_t left() const { return bytes_.size() - pos_; }
  // Moves to `offset` (must lie inside the stream).
  void Seek(uint64_t offset, std::string_view what);
  void Skip(uint64_t n, std::string_view what);
  std::span<const uint8_t> Bytes(uint64_t n, std::string_view what);  // reads n raw bytes

  // ---- primitives ----
  uint8_t U8(std::string_view what);
  int32_t I32(std::string_view what);
  int64_t I64(std::string_view what);
  float F32(std::string_view what);
  // A string (UTF-8 out); nullopt for a null string.
  std::optional<std::string> String(std::string_view what);
  // A non-negative int32 count of elements that take at least `min_bytes` each: fails when the
  // count is negative or more elements than the bytes left could hold.
  uint32_t Count(std::string_view what, uint64_t min_bytes);

  // ---- tags and objects ----
  uint8_t PeekTag() const;  // 0 at the end of the stream
  uint8_t ReadTag(std::string_view what);
  void ExpectTag(Tag t, std::string_view what);
  // Checks the "!FastSerialization.1" signature at offset 0.
  void ReadSignature();

  // Reads an object header at the current position: [ForwardDefinition n] BeginObject|
  // BeginPrivateObject <type>. Returns the object's type. Pushes the object on the nesting stack
  // (kMaxDepth); pair with EndObject().
  const SerializedType& BeginDefinition(std::string_view what);
  // Skips the fields the caller did not read (tagged values, nested objects, skip regions,
  // blobs, like FastSerialization's FindEndTag) up to the object's EndObject tag, and pops it.
  void EndObject(std::string_view what);

  // Where an object reference leads.
  enum class RefKind { kNull, kDefinitionHere, kElsewhere, kAlreadyRead };
  struct ObjectRef {
    RefKind kind = RefKind::kNull;
    uint64_t target = 0;  // kElsewhere: the definition's offset, to Seek() to and read
  };
  // Reads an object reference: NullReference, a definition starting here, an ObjectReference
  // (label) or a ForwardReference (index and type; resolved through the trailer's table). Blob
  // regions before it are skipped. A reference to a definition already read (or being read:
  // a cycle, reported as an error) is kAlreadyRead, so no object is ever read twice and hostile
  // files cannot make the work grow faster than the file.
  ObjectRef ReadObjectRef(std::string_view what);

  // The stream offset a forward reference index stands for, from the trailer's table.
  uint64_t ResolveForward(int32_t index, std::string_view what);
  // Reads a forward reference (int32 index) that marks the end of a region the writer lets
  // readers skip, and moves past the region (the target must lie ahead).
  void SkipForwardRegion(std::string_view what);

  // Checks the end of the stream: the trailer's label in the last 4 bytes, the trailer and the
  // forward-reference table right before it, exactly filling the end of the file. A truncated
  // file fails here if it did not fail earlier.
  void CheckTrailer();

  // Throws InputError "name: byte offset N (0x..): <what>: <message>" with `code`.
  [[noreturn]] void Fail(uint64_t at, std::string_view code, std::string_view what,
                         std::string_view message) const;

 private:
  void Need(uint64_t n, std::string_view what) const;
  // `allow_ref`: whether an ObjectReference to an earlier type may stand here (not inside a
  // referenced definition, so type references never chain).
  const SerializedType& ReadType(std::string_view what, bool allow_ref = true);
  const SerializedType& TypeAt(uint64_t offset, std::string_view what);
  void LoadForwardTable();

  std::span<const uint8_t> bytes_;
  std::string name_;
  uint64_t pos_ = 0;
  // Serialized types by the offset of their definition (few: one per .NET class in the file).
  std::vector<std::pair<uint64_t, SerializedType>> types_;
  std::vector<uint64_t> open_;         // offsets of the objects being read, innermost last
  std::unordered_set<uint64_t> read_;  // offsets of every definition begun
  std::optional<std::vector<uint32_t>> forward_;  // the trailer's table, loaded on first use
};

}  // namespace xrpm::formats
