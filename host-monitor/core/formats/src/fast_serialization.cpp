// FastSerialization stream reader (fast_serialization.h): bounds-checked primitives, tags,
// serialized types, object framing and forward references. Every operation is O(bytes read)
// except type lookups (linear in the few types of a file) and the one-time forward table load.
#include "xrpm/formats/fast_serialization.h"
#include "xrpm/model/human_format.h"

#include <algorithm>
#include <bit>
#include <cstdio>
#include <cstring>

#include "xrpm/model/diagnostics.h"
#include "xrpm/model/utf16.h"

namespace xrpm::formats {
namespace {

constexpr std::string_view kSignature = "!FastSerialization.1";

}  // namespace

std::string_view TagName(uint8_t tag) {
  static constexpr std::string_view kNames[] = {"Error",
                                                "NullReference",
                                                "ObjectReference",
                                                "ForwardReference",
                                                "BeginObject",
                                                "BeginPrivateObject",
                                                "EndObject",
                                                "ForwardDefinition",
                                                "Byte",
                                                "Int16",
                                                "Int32",
                                                "Int64",
                                                "SkipRegion",
                                                "String",
                                                "Blob"};
  if (tag > 0 && tag < std::size(kNames)) return kNames[tag];
  return "an unknown tag";
}

Reader::Reader(std::span<const uint8_t> bytes, std::string name)
    : bytes_(bytes), name_(std::move(name)) {}

void Reader::Fail(uint64_t at, std::string_view code, std::string_view what,
                  std::string_view message) const {
  std::string m = "byte offset " + std::to_string(at) + " (" + FormatHex(at) +
                  "): " + std::string(what) + ": " + std::string(message);
  throw InputError(Diagnostic{name_, 0, std::string(code), std::move(m)});
}

void Reader::Need(uint64_t n, std::string_view what) const {
  if (n > left())
    Fail(pos_, "truncated", what,
         "expected " + std::to_string(n) + " more bytes, found " + std::to_string(left()) +
             " before the end of the file");
}

void Reader::Seek(uint64_t offset, std::string_view what) {
  if (offset > bytes_.size())
    Fail(pos_, "bad-label", what,
         "points at offset " + std::to_string(offset) + ", past the end of the file (" +
             std::to_string(bytes_.size()) + " bytes)");
  pos_ = offset;
}

void Reader::Skip(uint64_t n, std::string_view what) {
  Need(n, what);
  pos_ += n;
}

std::span<const uint8_t> Reader::Bytes(uint64_t n, std::string_view what) {
  Need(n, what);
  auto s = bytes_.subspan(pos_, n);
  pos_ += n;
  return s;
}

uint8_t Reader::U8(std::string_view what) {
  Need(1, what);
  return bytes_[pos_++];
}

int32_t Reader::I32(std::string_view what) {
  Need(4, what);
  uint32_t v;
  std::memcpy(&v, bytes_.data() + pos_, 4);  // little-endian hosts only (static_assert below)
  pos_ += 4;
  return static_cast<int32_t>(v);
}

int64_t Reader::I64(std::string_view what) {
  Need(8, what);
  uint64_t v;
  std::memcpy(&v, bytes_.data() + pos_, 8);
  pos_ += 8;
  return static_cast<int64_t>(v);
}

float Reader::F32(std::string_view what) {
  const int32_t bits = I32(what);
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}

static_assert(std::endian::native == std::endian::little,
              "the reader assumes a little-endian host");

std::optional<std::string> Reader::String(std::string_view what) {
  const uint64_t at = pos_;
  const int32_t len = I32(what);
  if (len == -1) return std::nullopt;
  if (len < 0) Fail(at, "bad-string", what, "string length " + std::to_string(len) + " < -1");
  Need(static_cast<uint64_t>(len), what);  // at least one byte per unit
  std::u16string units;                    // modified UTF-8 (Java's), one UTF-16 unit per sequence
  units.reserve(static_cast<size_t>(len));
  for (int32_t i = 0; i < len; ++i) {
    uint32_t b = U8(what);
    uint32_t u;
    if (b < 0x80) {
      u = b;
    } else if (b < 0xE0) {
      u = (b & 0x1F) << 6 | (U8(what) & 0x3F);
    } else {
      u = (b & 0x0F) << 12;
      u |= (U8(what) & 0x3Fu) << 6;
      u |= U8(what) & 0x3Fu;
    }
    units.push_back(static_cast<char16_t>(u));
  }
  return Utf16ToUtf8(units);  // lone surrogates become U+FFFD
}

uint32_t Reader::Count(std::string_view what, uint64_t min_bytes) {
  const uint64_t at = pos_;
  const int32_t n = I32(what);
  if (n < 0) Fail(at, "bad-count", what, "expected a count >= 0, found " + std::to_string(n));
  if (min_bytes && static_cast<uint64_t>(n) > left() / min_bytes)
    Fail(at, "bad-count", what,
         "count " + std::to_string(n) + " needs at least " +
             std::to_string(static_cast<uint64_t>(n) * min_bytes) + " bytes, only " +
             std::to_string(left()) + " are left in the file");
  return static_cast<uint32_t>(n);
}

uint8_t Reader::PeekTag() const {
  return pos_ < bytes_.size() ? bytes_[pos_] : 0;
}

uint8_t Reader::ReadTag(std::string_view what) {
  return U8(what);
}

void Reader::ExpectTag(Tag t, std::string_view what) {
  const uint64_t at = pos_;
  const uint8_t got = ReadTag(what);
  if (got != static_cast<uint8_t>(t))
    Fail(at, "bad-tag", what,
         "expected tag " + std::string(TagName(static_cast<uint8_t>(t))) + " (" +
             std::to_string(static_cast<int>(t)) + "), found " + std::string(TagName(got)) + " (" +
             std::to_string(got) + ")");
}

void Reader::ReadSignature() {
  pos_ = 0;
  const int32_t len = I32("the FastSerialization signature");
  if (len != static_cast<int32_t>(kSignature.size()))
    Fail(0, "not-gcdump", "the FastSerialization signature",
         "expected length 20 and \"!FastSerialization.1\", found length " + std::to_string(len));
  auto sig = Bytes(kSignature.size(), "the FastSerialization signature");
  if (std::memcmp(sig.data(), kSignature.data(), kSignature.size()) != 0)
    Fail(4, "not-gcdump", "the FastSerialization signature", "expected \"!FastSerialization.1\"");
}

const SerializedType& Reader::TypeAt(uint64_t offset, std::string_view what) {
  for (const auto& [at, t] : types_)
    if (at == offset) return t;
  const uint64_t back = pos_;
  Seek(offset, what);
  const SerializedType& t = ReadType(what, /*allow_ref=*/false);
  pos_ = back;
  return t;
}

// A SerializationType definition: BeginObject|BeginPrivateObject NullReference int32 version,
// int32 minimum reader version, string name, EndObject; or a reference to one.
const SerializedType& Reader::ReadType(std::string_view what, bool allow_ref) {
  const uint64_t at = pos_;
  const uint8_t tag = ReadTag(what);
  if (tag == static_cast<uint8_t>(Tag::kObjectReference) && allow_ref) {
    const uint64_t label = static_cast<uint32_t>(I32(what));
    if (label >= at) Fail(at, "bad-label", what, "a type reference must point backwards");
    return TypeAt(label, what);
  }
  if (tag != static_cast<uint8_t>(Tag::kBeginObject) &&
      tag != static_cast<uint8_t>(Tag::kBeginPrivateObject))
    Fail(at, "bad-tag", what,
         "expected a serialized type (BeginObject or ObjectReference), found " +
             std::string(TagName(tag)) + " (" + std::to_string(tag) + ")");
  ExpectTag(Tag::kNullReference, "the type of a serialized type");
  SerializedType t;
  t.version = I32("a serialized type's version");
  t.min_reader_version = I32("a serialized type's minimum reader version");
  auto name = String("a serialized type's name");
  if (!name || name->empty()) Fail(at, "bad-type", what, "a serialized type has no name");
  t.name = std::move(*name);
  ExpectTag(Tag::kEndObject, "the end of a serialized type");
  if (types_.size() >= 4096) Fail(at, "bad-type", what, "more than 4096 serialized types");
  types_.emplace_back(at, std::move(t));
  return types_.back().second;
}

const SerializedType& Reader::BeginDefinition(std::string_view what) {
  const uint64_t at = pos_;
  uint8_t tag = ReadTag(what);
  if (tag == static_cast<uint8_t>(Tag::kForwardDefinition)) {
    I32("a forward definition's index");
    tag = ReadTag(what);
  }
  if (tag != static_cast<uint8_t>(Tag::kBeginObject) &&
      tag != static_cast<uint8_t>(Tag::kBeginPrivateObject))
    Fail(at, "bad-tag", what,
         "expected an object (BeginObject), found " + std::string(TagName(tag)) + " (" +
             std::to_string(tag) + ")");
  if (open_.size() >= kMaxDepth)
    Fail(at, "too-deep", what, "objects nested more than " + std::to_string(kMaxDepth) + " deep");
  if (!read_.insert(at).second)
    Fail(at, "cycle", what, "the object at this offset is read a second time (a reference cycle)");
  open_.push_back(at);
  return ReadType(what);
}

void Reader::EndObject(std::string_view what) {
  int nesting = 0;
  for (;;) {
    const uint64_t at = pos_;
    const uint8_t tag = ReadTag(what);
    switch (static_cast<Tag>(tag)) {
      case Tag::kByte:
        Skip(1, what);
        break;
      case Tag::kInt16:
        Skip(2, what);
        break;
      case Tag::kInt32:
        Skip(4, what);
        break;
      case Tag::kInt64:
        Skip(8, what);
        break;
      case Tag::kString:
        String(what);
        break;
      case Tag::kNullReference:
        break;
      case Tag::kBeginObject:
      case Tag::kBeginPrivateObject:
        ++nesting;
        break;
      case Tag::kForwardDefinition:
      case Tag::kForwardReference:
      case Tag::kObjectReference:
        Skip(4, what);
        break;
      case Tag::kSkipRegion:
        SkipForwardRegion(what);
        break;
      case Tag::kBlob: {
        const uint32_t n = Count("a blob's size", 1);
        Skip(n, what);
        break;
      }
      case Tag::kEndObject:
        if (--nesting < 0) {
          if (!open_.empty()) open_.pop_back();
          return;
        }
        break;
      default:
        Fail(at, "bad-tag", what,
             "expected a tagged field or EndObject, found byte " + std::to_string(tag));
    }
  }
}

Reader::ObjectRef Reader::ReadObjectRef(std::string_view what) {
  for (;;) {
    const uint64_t at = pos_;
    const uint8_t tag = ReadTag(what);
    switch (static_cast<Tag>(tag)) {
      case Tag::kNullReference:
        return {RefKind::kNull, 0};
      case Tag::kBlob: {
        const uint32_t n = Count("a blob's size", 1);
        Skip(n, what);
        continue;
      }
      case Tag::kObjectReference: {
        const uint64_t label = static_cast<uint32_t>(I32(what));
        if (label >= bytes_.size())
          Fail(at, "bad-label", what, "an object reference points past the end of the file");
        if (read_.count(label)) return {RefKind::kAlreadyRead, label};
        return {RefKind::kElsewhere, label};
      }
      case Tag::kForwardReference: {
        const int32_t index = I32("a forward reference's index");
        ReadType("a forward reference's type");
        const uint64_t target = ResolveForward(index, what);
        if (read_.count(target)) return {RefKind::kAlreadyRead, target};
        return {RefKind::kElsewhere, target};
      }
      case Tag::kBeginObject:
      case Tag::kBeginPrivateObject:
      case Tag::kForwardDefinition:
        pos_ = at;
        return {RefKind::kDefinitionHere, at};
      default:
        Fail(at, "bad-tag", what,
             "expected an object reference, found " + std::string(TagName(tag)) + " (" +
                 std::to_string(tag) + ")");
    }
  }
}

void Reader::LoadForwardTable() {
  forward_.emplace();
  const uint64_t back = pos_;
  if (bytes_.size() < 4) Fail(0, "truncated", "the trailer", "the file is too short");
  pos_ = bytes_.size() - 4;
  const uint64_t trailer = static_cast<uint32_t>(I32("the trailer's label (last 4 bytes)"));
  if (bytes_.size() < 8 || trailer != bytes_.size() - 8)
    Fail(bytes_.size() - 4, "bad-trailer", "the trailer's label (last 4 bytes)",
         "points at " + std::to_string(trailer) +
             "; the trailer (4 bytes) must end right before "
             "it, at offset " +
             std::to_string(bytes_.size() >= 8 ? bytes_.size() - 8 : 0) + " (a truncated file?)");
  pos_ = trailer;
  const uint64_t table = static_cast<uint32_t>(I32("the forward-reference table's label"));
  if (table >= trailer)
    Fail(trailer, "bad-trailer", "the forward-reference table's label",
         "points at " + std::to_string(table) + ", not before the trailer");
  pos_ = table;
  const uint32_t n = Count("the forward-reference table's count", 4);
  forward_->reserve(n);
  for (uint32_t i = 0; i < n; ++i)
    forward_->push_back(static_cast<uint32_t>(I32("a forward-reference table entry")));
  pos_ = back;
}

void Reader::CheckTrailer() {
  if (!forward_) LoadForwardTable();
  // LoadForwardTable checked the order; the pieces must also be contiguous.
  const uint64_t trailer = bytes_.size() - 8;
  pos_ = trailer;
  const uint64_t table = static_cast<uint32_t>(I32("the forward-reference table's label"));
  if (table + 4 + uint64_t{4} * forward_->size() != trailer)
    Fail(table, "bad-trailer", "the forward-reference table",
         "expected the table (" + std::to_string(forward_->size()) +
             " entries) to end where the trailer starts, at offset " + std::to_string(trailer) +
             "; the file is truncated or has bytes after its end");
  for (uint32_t target : *forward_)
    if (target >= table)
      Fail(table, "bad-forward-ref", "the forward-reference table",
           "an entry points at offset " + std::to_string(target) + ", not before the table");
}

uint64_t Reader::ResolveForward(int32_t index, std::string_view what) {
  const uint64_t at = pos_;
  if (!forward_) LoadForwardTable();
  if (index < 0 || static_cast<uint64_t>(index) >= forward_->size())
    Fail(at, "bad-forward-ref", what,
         "forward reference " + std::to_string(index) + " is not in the forward-reference table (" +
             std::to_string(forward_->size()) + " entries)");
  const uint64_t target = (*forward_)[static_cast<size_t>(index)];
  if (target >= bytes_.size())
    Fail(at, "bad-forward-ref", what,
         "forward reference " + std::to_string(index) + " points past the end of the file");
  return target;
}

void Reader::SkipForwardRegion(std::string_view what) {
  const uint64_t at = pos_;
  const int32_t index = I32("a skip region's end (forward reference)");
  const uint64_t target = ResolveForward(index, what);
  if (target < pos_)
    Fail(at, "cycle", what,
         "a skip region ends at offset " + std::to_string(target) + ", before its start");
  pos_ = target;
}

}  // namespace xrpm::formats
