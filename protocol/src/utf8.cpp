#include "xrpm/protocol/utf8.h"

#include <cstdint>
#include <cstring>

namespace xrpm {
namespace protocol {

std::string SanitizeUtf8(const char* s, size_t max_bytes) {
  std::string out;
  if (!s) return out;
  const auto* p = reinterpret_cast<const uint8_t*>(s);
  const size_t n = std::strlen(s);
  size_t i = 0;
  while (i < n) {
    const uint8_t c = p[i];
    size_t len = c < 0x80           ? 1
                 : (c >> 5) == 0x6  ? 2
                 : (c >> 4) == 0xE  ? 3
                 : (c >> 3) == 0x1E ? 4
                                    : 0;
    bool ok = len != 0 && i + len <= n;
    for (size_t k = 1; ok && k < len; ++k) ok = (p[i + k] & 0xC0) == 0x80;
    if (ok && len == 2) ok = c >= 0xC2;  // no overlong 2-byte forms
    if (ok && len == 3) {
      const uint32_t cp = ((c & 0x0Fu) << 12) | ((p[i + 1] & 0x3Fu) << 6) | (p[i + 2] & 0x3Fu);
      ok = cp >= 0x800 && (cp < 0xD800 || cp > 0xDFFF);
    }
    if (ok && len == 4) {
      const uint32_t cp = ((c & 0x07u) << 18) | ((p[i + 1] & 0x3Fu) << 12) |
                          ((p[i + 2] & 0x3Fu) << 6) | (p[i + 3] & 0x3Fu);
      ok = cp >= 0x10000 && cp <= 0x10FFFF;
    }
    const size_t take = ok ? len : 1;
    if (out.size() + (ok ? len : 1) > max_bytes) break;
    if (ok)
      out.append(s + i, len);
    else
      out.push_back('?');
    i += take;
  }
  return out;
}

bool IsValidUtf8(const std::string& s) {
  return s.find('\0') == std::string::npos && SanitizeUtf8(s.c_str(), s.size()) == s;
}

}  // namespace protocol
}  // namespace xrpm
