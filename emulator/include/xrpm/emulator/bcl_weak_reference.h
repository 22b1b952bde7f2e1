// System.WeakReference: a finalizable object owning a weak GC handle to its target. The target
// is not kept alive; the collector clears the handle when the target dies, and the
// WeakReference's finalizer frees the handle.
//
// Thread-safety: none; managed code on the thread that holds the world.
#pragma once

#include "xrpm/emulator/runtime.h"

namespace xrpm::emulator {

// new WeakReference(*target)
Addr WeakReferenceNew(Runtime& rt, Addr* target);

}  // namespace xrpm::emulator
