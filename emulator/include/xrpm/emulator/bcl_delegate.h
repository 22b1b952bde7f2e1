// Delegates and events as the CLR models them: a delegate object holds _target (the instance the
// method is bound to) and _methodPtr; a multicast delegate also holds _invocationList (an
// Object[] of single-cast delegates) and _invocationCount. Delegate.Combine and Delegate.Remove
// never modify a delegate: they allocate a new one and a new invocation list, so subscribing
// and unsubscribing produce garbage, and an event field keeps every subscriber's target alive,
// the classic managed leak.
//
// Thread-safety: none; managed code on the thread that holds the world.
#pragma once

#include <cstdint>

#include "xrpm/emulator/runtime.h"

namespace xrpm::emulator {

// new D(target.method); `type` derives from System.MulticastDelegate.
Addr DelegateNew(Runtime& rt, TypeIndex type, Addr* target, MethodId method);
// Delegate.Combine(*a, *b); the result has the type of *b.
Addr DelegateCombine(Runtime& rt, Addr* a, Addr* b);
// Delegate.Remove of every entry bound to `target`; returns *source itself when none is.
Addr DelegateRemoveTarget(Runtime& rt, Addr* source, Addr target);
uint32_t DelegateInvocationCount(const Runtime& rt, Addr d);
// Entry i of the invocation list (the delegate itself when it is single-cast).
Addr DelegateInvocationAt(const Runtime& rt, Addr d, uint32_t i);
Addr DelegateTarget(const Runtime& rt, Addr d);

}  // namespace xrpm::emulator
