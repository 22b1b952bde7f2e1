// UTF-16 text from devices and files, as the UTF-8 the host shows: Utf16ToUtf8 (unpaired
// surrogates become U+FFFD, so that string text always shows) and IsWellFormedUtf8, the check a
// reader applies to stored text (NUL allowed, unlike protocol/utf8.h's check of protobuf
// strings). O(length).
//
// Thread-safety: pure functions.
#pragma once

#include <string>
#include <string_view>

namespace xrpm {

// Converts UTF-16 units to UTF-8; unpaired surrogates become U+FFFD.
std::string Utf16ToUtf8(std::u16string_view units);
// Is `s` well-formed UTF-8 (NUL allowed, no surrogates, shortest forms, at most U+10FFFF)?
bool IsWellFormedUtf8(std::string_view s);

}  // namespace xrpm
