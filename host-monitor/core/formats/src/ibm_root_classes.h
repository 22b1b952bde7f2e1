// Pseudo class records that carry the model's non-static roots through an IBM classic heapdump.
//
// The classic format has no root records: only class records, whose heap references are the
// class's statics. The IBM writer therefore lists every root that is not a plain static of a
// known class in a pseudo class record named `xrpm/roots/<kind>[$<flag>...]` (kind: internal,
// local, finalizer, handle, static, gc-specific, or kind<N>; flags: $pinned, $weak, $interior, or
// $0x<hex> for unknown bits), e.g. `xrpm/roots/handle$pinned$weak`. Other tools see a class whose
// statics keep those objects alive, which is what a root is; the IBM reader turns the pseudo
// class's references back into roots of that kind and flags and creates no type for it.
//
// Thread-safety: pure functions.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace xrpm::formats {

// JVM form, e.g. "xrpm/roots/local" or "xrpm/roots/handle$weak".
std::string RootClassName(uint8_t kind, uint8_t flags);
// True when `jvm_name` is a pseudo root class name; sets kind and flags.
bool ParseRootClassName(std::string_view jvm_name, uint8_t* kind, uint8_t* flags);

}  // namespace xrpm::formats
