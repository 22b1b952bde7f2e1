// String building and boxing as NETCF's base class library does them, allocation included:
// String.Concat, Int32.ToString, String.Format with a boxed argument and a params Object[].
// These are the usual sources of per-frame garbage in XNA games.
//
// Thread-safety: none; managed code on the thread that holds the world.
#pragma once

#include <cstdint>

#include "xrpm/emulator/runtime.h"

namespace xrpm::emulator {

// String.Concat(*a, *b). Both are GC slots.
Addr StringConcat(Runtime& rt, Addr* a, Addr* b);
// v.ToString()
Addr Int32ToString(Runtime& rt, int32_t v);
// (object)v
Addr BoxInt32(Runtime& rt, int32_t v);
// String.Format(*format, (object)arg): boxes arg into a params Object[1]; "{0}" is replaced.
Addr StringFormatInt(Runtime& rt, Addr* format, int32_t arg);

}  // namespace xrpm::emulator
