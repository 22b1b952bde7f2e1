// UTF-8 for protobuf `string` fields (which must be valid UTF-8): SanitizeUtf8 makes a
// runtime-supplied C string safe: invalid sequences become '?', the result is cut at max_bytes
// (on a character boundary), and a null pointer becomes "". IsValidUtf8 checks a received string
// (shortest forms, no surrogates, at most U+10FFFF, no NUL). Both O(length).
// Plain C++17. Thread-safety: reentrant.
#pragma once

#include <cstddef>
#include <string>

namespace xrpm {
namespace protocol {

std::string SanitizeUtf8(const char* s, size_t max_bytes);
bool IsValidUtf8(const std::string& s);

}  // namespace protocol
}  // namespace xrpm
