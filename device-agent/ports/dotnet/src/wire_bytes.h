// Byte-level helpers the .NET port's parsers and writers share: little-endian integers read
// from and appended to byte buffers whatever the host's byte order (the diagnostics IPC,
// method bodies), hexadecimal for error messages, and UTF-8 to UTF-16 for the runtime's APIs
// and messages, which take UTF-16.
//
// Thread-safety: pure functions. Bounds: the readers take a pointer to enough bytes (the
// callers check sizes first).
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

namespace xrpm {
namespace dotnet {

inline uint32_t GetLe16(const uint8_t* p) {
  return uint32_t{p[0]} | uint32_t{p[1]} << 8;
}
inline uint32_t GetLe24(const uint8_t* p) {
  return GetLe16(p) | uint32_t{p[2]} << 16;
}
inline uint32_t GetLe32(const uint8_t* p) {
  return GetLe16(p) | GetLe16(p + 2) << 16;
}
inline void PutLe16(std::vector<uint8_t>* out, uint32_t v) {
  out->push_back(static_cast<uint8_t>(v));
  out->push_back(static_cast<uint8_t>(v >> 8));
}
inline void PutLe32(std::vector<uint8_t>* out, uint32_t v) {
  PutLe16(out, v & 0xffff);
  PutLe16(out, v >> 16);
}
inline void PutLe64(std::vector<uint8_t>* out, uint64_t v) {
  PutLe32(out, static_cast<uint32_t>(v));
  PutLe32(out, static_cast<uint32_t>(v >> 32));
}

// "0x1f" with at least `digits` hexadecimal digits.
inline std::string Hex(uint32_t v, int digits = 1) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "0x%0*x", digits, static_cast<unsigned>(v));
  return buf;
}

// UTF-8 -> UTF-16 units appended to *out; false on a malformed or overlong sequence, a
// surrogate, or U+0000 (the runtime's strings end there).
template <class Units>
bool Utf8ToUtf16(const std::string& s, Units* out) {
  for (size_t i = 0; i < s.size();) {
    const auto c = static_cast<uint8_t>(s[i]);
    uint32_t cp = 0;
    size_t n = 0;
    if (c < 0x80) {
      cp = c;
      n = 1;
    } else if ((c & 0xE0) == 0xC0) {
      cp = c & 0x1F;
      n = 2;
    } else if ((c & 0xF0) == 0xE0) {
      cp = c & 0x0F;
      n = 3;
    } else if ((c & 0xF8) == 0xF0) {
      cp = c & 0x07;
      n = 4;
    } else {
      return false;
    }
    if (i + n > s.size()) return false;
    for (size_t k = 1; k < n; ++k) {
      const auto cc = static_cast<uint8_t>(s[i + k]);
      if ((cc & 0xC0) != 0x80) return false;
      cp = cp << 6 | (cc & 0x3F);
    }
    const uint32_t min = n == 1 ? 0 : n == 2 ? 0x80 : n == 3 ? 0x800 : 0x10000;
    if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF) || cp == 0) return false;
    if (cp >= 0x10000) {
      cp -= 0x10000;
      out->push_back(static_cast<uint16_t>(0xD800 | (cp >> 10)));
      out->push_back(static_cast<uint16_t>(0xDC00 | (cp & 0x3FF)));
    } else {
      out->push_back(static_cast<uint16_t>(cp));
    }
    i += n;
  }
  return true;
}

}  // namespace dotnet
}  // namespace xrpm
