// Little-endian byte helpers and the blob encoding of .xrpm parts (docs/FORMAT.md): fixed-width
// integers and u32-length-prefixed strings appended to / read from a byte string. xrpm's own
// metadata parts (SECT, TYPE, ASIT, FLAY...) and the parts that other layers add through the
// extension API (recordings: xrpm/formats/recording_file.h) use the same encoding.
//
// BlobReader checks every read against the blob: a read past its end or a count of records that
// cannot fit in what is left throws std::out_of_range naming the blob offset, so nothing is
// allocated from an unchecked size; the caller reports it with the part's tag and file offset.
//
// Thread-safety: plain values; a reader or writer is used by one thread at a time.
#pragma once

#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>
#include <string_view>

namespace xrpm::formats {

// ---- little-endian helpers ----
inline void PutU16(char* p, uint16_t v) {
  std::memcpy(p, &v, 2);
}
inline void PutU32(char* p, uint32_t v) {
  std::memcpy(p, &v, 4);
}
inline void PutU64(char* p, uint64_t v) {
  std::memcpy(p, &v, 8);
}
inline uint16_t GetU16(const char* p) {
  uint16_t v;
  std::memcpy(&v, p, 2);
  return v;
}
inline uint32_t GetU32(const char* p) {
  uint32_t v;
  std::memcpy(&v, p, 4);
  return v;
}
inline uint64_t GetU64(const char* p) {
  uint64_t v;
  std::memcpy(&v, p, 8);
  return v;
}

static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, ".xrpm I/O assumes a little-endian host");

// Appends little-endian values and length-prefixed strings to a blob.
class BlobWriter {
 public:
  void U8(uint8_t v) { s_.push_back(static_cast<char>(v)); }
  void U32(uint32_t v) {
    char b[4];
    PutU32(b, v);
    s_.append(b, 4);
  }
  void U64(uint64_t v) {
    char b[8];
    PutU64(b, v);
    s_.append(b, 8);
  }
  void Str(std::string_view v) {
    U32(static_cast<uint32_t>(v.size()));
    s_.append(v);
  }
  std::string& bytes() { return s_; }

 private:
  std::string s_;
};

// The smallest encoding of a string in a blob (its u32 length), for BlobReader::Count.
inline constexpr size_t kMinBlobStringBytes = 4;

// A blob whose bytes are readable but whose content breaks the format: the message says what was
// expected and what was found; the reader turns it into an InputError naming the part.
[[noreturn]] inline void BadBlob(const std::string& what) {
  throw std::runtime_error(what);
}

// Reads a blob; any read past its end throws std::out_of_range with the blob offset, which the
// reader turns into an InputError naming the part.
class BlobReader {
 public:
  explicit BlobReader(std::string_view b) : b_(b) {}
  uint8_t U8() { return static_cast<uint8_t>(*Take(1)); }
  uint32_t U32() { return GetU32(Take(4)); }
  uint64_t U64() { return GetU64(Take(8)); }
  std::string_view Bytes(size_t n) { return {Take(n), n}; }
  std::string Str() {
    const uint32_t n = U32();
    return std::string(Take(n), n);
  }
  // A count of records that each take at least `min_bytes`: must fit in what is left.
  uint32_t Count(size_t min_bytes) {
    const uint32_t n = U32();
    if (static_cast<uint64_t>(n) * min_bytes > left())
      throw std::out_of_range("a count of " + std::to_string(n) + " records at blob offset " +
                              std::to_string(pos_ - 4) + " needs at least " +
                              std::to_string(static_cast<uint64_t>(n) * min_bytes) +
                              " bytes, but only " + std::to_string(left()) + " remain");
    return n;
  }
  size_t left() const { return b_.size() - pos_; }
  size_t pos() const { return pos_; }

 private:
  const char* Take(size_t n) {
    if (n > left())
      throw std::out_of_range("needed " + std::to_string(n) + " bytes at blob offset " +
                              std::to_string(pos_) + ", but only " + std::to_string(left()) +
                              " remain");
    const char* p = b_.data() + pos_;
    pos_ += n;
    return p;
  }
  std::string_view b_;
  size_t pos_ = 0;
};

}  // namespace xrpm::formats
