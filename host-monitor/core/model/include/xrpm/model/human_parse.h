// Human-written quantities on command lines and in settings, the inverse of human_format.h:
// durations ("10s", "500ms", "2m", "1h", "1.5s"; a bare number is seconds) and byte sizes
// ("64MB", "512KiB", "1G"; a bare number is bytes; K/M/G are binary, as FormatBytes prints them,
// with or without "i" and "B").
//
// Both reject what they cannot read exactly (a sign, an unknown unit, trailing text, NaN, an
// overflow, zero or a negative value) with a message saying what was expected and what was
// found, so a CLI option can print it and exit 2.
//
// Thread-safety: reentrant.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace xrpm {

// A positive duration in seconds. False with *error ("expected a duration such as 10s, 500ms,
// 2m or 1h, found 'x'").
bool ParseDuration(std::string_view text, double* seconds, std::string* error);
// A positive byte count. False with *error ("expected a size such as 64MB, 512KB or 1048576,
// found 'x'").
bool ParseByteSize(std::string_view text, uint64_t* bytes, std::string* error);

}  // namespace xrpm
