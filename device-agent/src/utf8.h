// SanitizeUtf8: makes a runtime-supplied C string safe for a protobuf `string` field: invalid
// UTF-8 sequences become '?', the result is cut at max_bytes (on a character boundary), and a
// null pointer becomes "". O(length). Thread-safety: reentrant.
#pragma once

#include <cstddef>
#include <string>

namespace xrpm {
namespace agent {

std::string SanitizeUtf8(const char* s, size_t max_bytes);

}  // namespace agent
}  // namespace xrpm
