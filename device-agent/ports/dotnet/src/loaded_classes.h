// LoadedClasses: classes a process had loaded before the profiler was attached to it, found
// without loading anything.
//
// CoreCLR reports class loads (ClassLoadFinished) only from the moment the profiler asks for
// them; after an attach (xrpm-dotnet --attach) the classes the program loaded before are never
// reported, so StaticRoots would not name their static fields. The profiling API has no "loaded
// classes" enumerator, and asking for a type definition's class (GetClassFromToken) loads it
// when it is not, so this takes the classes of the functions the JIT compiled so far
// (EnumJITedFunctions, GetFunctionInfo): every class whose static constructor ran as compiled
// code, the program's own in particular (its static fields have storage only once that ran).
// Classes whose code is all precompiled (the base library's ReadyToRun code) or generic shared
// code (no single class) are not found; the capture's walk adds the classes of the objects it
// met (DotnetPort), so classes with instances are known from the next capture on.
//
// Cost: one pass over the compiled functions (~1 us each), once, on the capture thread before
// the first capture after an attach (the program running).
//
// Thread-safety: a plain function; call it from a thread outside the runtime's callbacks.
#pragma once

#include <cstddef>
#include <vector>

#include "corprof_abi.h"

namespace xrpm {
namespace dotnet {

// Appends the distinct classes of the JIT-compiled functions to *out; the number of functions
// looked at.
size_t FindClassesOfCompiledCode(cor::ICorProfilerInfo10* info, std::vector<cor::ClassID>* out);

}  // namespace dotnet
}  // namespace xrpm
