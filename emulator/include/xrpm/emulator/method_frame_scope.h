// MethodFrameScope: pushes one method frame on a managed thread's stack for the duration of a C++
// scope, JIT-compiling the method on its first call. Its local slots are GC roots (descriptor 1)
// that the collector updates when objects move, so scenario code keeps objects in slots across
// allocations:  Addr s = rt.NewString("x"); f.set(0, s); ... rt.New(...); use f.get(0).
//
// Thread-safety: none; used by the thread that holds the world. Scopes on one thread nest LIFO.
#pragma once

#include <cstdint>
#include <string_view>

#include "xrpm/emulator/runtime.h"

namespace xrpm::emulator {

class MethodFrameScope {
 public:
  MethodFrameScope(Runtime& rt, ManagedThread& thread, MethodId method, uint32_t locals,
                   agent::ContainerType kind = agent::ContainerType::kJitFrame);
  MethodFrameScope(Runtime& rt, ManagedThread& thread, std::string_view method, uint32_t locals,
                   agent::ContainerType kind = agent::ContainerType::kJitFrame)
      : MethodFrameScope(rt, thread, rt.methods().Intern(method), locals, kind) {}
  ~MethodFrameScope() { thread_.frames.pop_back(); }
  MethodFrameScope(const MethodFrameScope&) = delete;
  MethodFrameScope& operator=(const MethodFrameScope&) = delete;

  Addr get(uint32_t i) const { return frame().locals[i].obj; }
  void set(uint32_t i, Addr a, uint8_t flags = 0) {
    frame().locals[i].obj = a;
    frame().locals[i].flags = flags;
  }
  // A GC-updated slot, valid while this scope lives.
  Addr* slot(uint32_t i) { return &frame().locals[i].obj; }

 private:
  Frame& frame() const { return thread_.frames[depth_]; }
  ManagedThread& thread_;
  size_t depth_;
};

}  // namespace xrpm::emulator
