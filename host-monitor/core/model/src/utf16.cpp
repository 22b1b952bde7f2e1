#include "xrpm/model/utf16.h"

#include <cstdint>
#include <cstring>

namespace xrpm {
namespace {

void AppendUtf8(std::string& out, uint32_t cp) {
  if (cp < 0x80) {
    out += static_cast<char>(cp);
  } else if (cp < 0x800) {
    out += static_cast<char>(0xC0 | (cp >> 6));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    out += static_cast<char>(0xE0 | (cp >> 12));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (cp >> 18));
    out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  }
}

}  // namespace

std::string Utf16ToUtf8(std::u16string_view u) {
  std::string out;
  out.reserve(u.size());
  for (size_t i = 0; i < u.size(); ++i) {
    const uint32_t c = u[i];
    if (c >= 0xD800 && c <= 0xDBFF && i + 1 < u.size() && u[i + 1] >= 0xDC00 &&
        u[i + 1] <= 0xDFFF) {
      AppendUtf8(out, 0x10000 + ((c - 0xD800) << 10) + (u[i + 1] - 0xDC00));
      ++i;
    } else if (c >= 0xD800 && c <= 0xDFFF) {
      AppendUtf8(out, 0xFFFD);  // an unpaired surrogate
    } else {
      AppendUtf8(out, c);
    }
  }
  return out;
}

namespace {
// The code point of the sequence at s[*i], advancing *i past it, or -1 (with *i unchanged) when
// the bytes there are not well-formed UTF-8.
int32_t Decode(std::string_view s, size_t* i) {
  const auto c = static_cast<unsigned char>(s[*i]);
  if (c < 0x80) return (*i)++, c;
  int n;
  uint32_t cp, min;
  if ((c & 0xE0) == 0xC0)
    n = 2, cp = c & 0x1F, min = 0x80;
  else if ((c & 0xF0) == 0xE0)
    n = 3, cp = c & 0x0F, min = 0x800;
  else if ((c & 0xF8) == 0xF0)
    n = 4, cp = c & 0x07, min = 0x10000;
  else
    return -1;
  if (*i + n > s.size()) return -1;
  for (int k = 1; k < n; ++k) {
    const auto d = static_cast<unsigned char>(s[*i + k]);
    if ((d & 0xC0) != 0x80) return -1;
    cp = cp << 6 | (d & 0x3F);
  }
  if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return -1;
  *i += n;
  return static_cast<int32_t>(cp);
}
}  // namespace

bool IsWellFormedUtf8(std::string_view s) {
  size_t i = 0;
  while (i < s.size()) {
    // ASCII 8 bytes at a time (most text; any byte order: the mask tests every byte).
    for (uint64_t w; i + 8 <= s.size(); i += 8) {
      std::memcpy(&w, s.data() + i, 8);
      if (w & 0x8080808080808080ull) break;
    }
    if (i == s.size()) break;
    if (Decode(s, &i) < 0) return false;
  }
  return true;
}

char32_t NextCodePoint(std::string_view s, size_t* i) {
  const int32_t cp = Decode(s, i);
  if (cp >= 0) return static_cast<char32_t>(cp);
  ++*i;
  return U'\uFFFD';
}

}  // namespace xrpm
