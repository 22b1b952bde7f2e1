// The managed stack of the calling thread, as the Mono port samples it for allocation samples
// (mono_frames.h) and allocation origins (origin_tracker.h): mono_stack_walk_no_il, managed
// frames only, innermost (allocating) method first, at most agent::kMaxSampleStackDepth; and
// a method's name as NETCF writes it ("Namespace.Class.Method", UTF-8).
//
// Cost: O(depth) per walk; MethodName allocates (called once per method by the callers' caches).
// Thread-safety: any thread attached to the runtime, for its own stack.
#pragma once

#include <cstdint>
#include <string>

#include "xrpm/agent/frame_events.h"

namespace xrpm {
namespace mono {

struct StackWalk {
  void* methods[agent::kMaxSampleStackDepth];  // MonoMethod*
  uint64_t keys[agent::kMaxSampleStackDepth];  // the same, as method keys
  uint32_t depth = 0;
};

// Fills `out` with the calling thread's managed stack.
void WalkManagedStack(StackWalk* out);

// "Namespace.Class.Method" for a MonoMethod* ("<unknown method>" if Mono has no name).
std::string MethodName(void* method);
// The same for a method key (a MonoMethod* as uint64_t): an agent::SiteTable::NameOf (no ctx).
std::string MethodNameOfKey(void* ctx, uint64_t key);

}  // namespace mono
}  // namespace xrpm
