// Human-readable numbers for the views: "1.2 MiB", "12,345", "3.4 M", "+1.5 KiB", "1 m 05 s".
// Pure functions; no locale dependence (a thin space-free comma grouping, binary units).
//
// Thread-safety: reentrant.
#pragma once

#include <cstdint>
#include <string>

namespace xrpm {

std::string FormatBytes(uint64_t bytes);       // "0 B", "932 B", "1.2 KiB", "45.0 MiB"
std::string FormatSignedBytes(int64_t bytes);  // "+1.2 KiB", "-300 B", "0 B"
std::string FormatCount(uint64_t n);           // "12,345,678"
std::string FormatSignedCount(int64_t n);      // "+12", "-3", "0"
std::string FormatShortCount(double n);        // "950", "12.3 k", "4.56 M"
std::string FormatDuration(double seconds);    // "850 ms", "12.3 s", "2 m 05 s"
std::string FormatPercent(double fraction);    // 0.1234 -> "12.3%"
// "0x1ce056"; at least `min_digits` hex digits, zero-padded ("0x00000000001ce056" for 16).
std::string FormatHex(uint64_t v, int min_digits = 0);
// "1ce056": an object id as the CLI and the views print it after a type ("Enemy@1ce056").
std::string FormatHexDigits(uint64_t v);

}  // namespace xrpm
