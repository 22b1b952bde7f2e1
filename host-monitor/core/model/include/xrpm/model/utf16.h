// UTF-16 text from devices and files, as the UTF-8 the host shows: Utf16ToUtf8 (unpaired
// surrogates become U+FFFD, so that string text always shows) and IsWellFormedUtf8, the check a
// reader applies to stored text (NUL allowed, unlike protocol/utf8.h's check of protobuf
// strings), and NextCodePoint, to walk UTF-8 text by characters. O(length).
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
// The code point at s[*i], advancing *i past it (*i < s.size()); a byte that starts no
// well-formed sequence reads as U+FFFD and is skipped alone.
char32_t NextCodePoint(std::string_view s, size_t* i);

}  // namespace xrpm
