// Managed threads and their stacks of method frames, whose locals are GC roots (descriptor 1).
//
// A ManagedThread is a logical thread of the emulated program (the game's main thread, the
// finalizer thread, an audio streaming thread); the emulator's game OS thread executes their
// code. Each Frame is one method activation with a fixed number of local slots; a slot holds an
// object address (or null) and root flags: pinned (1) for objects handed to native code, interior
// (4) for a byref into the object. The collector rewrites slots when it moves objects, so code
// that must keep an object across an allocation keeps it in a slot and re-reads it.
//
// Frames live in a std::deque and locals in a vector sized once, so Addr* slot pointers stay
// valid until their frame is popped.
//
// Thread-safety: none; used by the thread that holds the world.
#pragma once

#include <cstdint>
#include <deque>
#include <string>
#include <vector>

#include "xrpm/agent/heap_walker.h"
#include "xrpm/emulator/method_table.h"
#include "xrpm/emulator/object_model.h"

namespace xrpm::emulator {

struct Local {
  Addr obj = kNull;
  uint8_t flags = 0;  // NETCF root flags: 1 pinned, 4 interior
};

struct Frame {
  agent::ContainerType kind = agent::ContainerType::kJitFrame;
  MethodId method = kNoMethod;
  std::vector<Local> locals;
  // The allocation site (SiteTable id) of the stack whose innermost frame this is, or 0 until
  // an allocation here first needs it. Frames nest LIFO, so the frames below never change while
  // this one lives and the cached id stays right.
  uint32_t alloc_site = 0;
};

struct ManagedThread {
  uint32_t id = 0;  // managed thread id, the ThreadID of its container
  std::string name;
  std::deque<Frame> frames;  // frames[0] is the outermost

  // Stack id of a frame: the thread id in the high half, the depth in the low half.
  uint64_t StackId(size_t depth) const { return (uint64_t{id} << 16) | depth; }
};

class ThreadTable {
 public:
  ManagedThread& Create(std::string name);
  std::deque<ManagedThread>& all() { return threads_; }
  const std::deque<ManagedThread>& all() const { return threads_; }
  // The thread with managed id `id`, or nullptr.
  const ManagedThread* Find(uint64_t id) const;

 private:
  std::deque<ManagedThread> threads_;
};

}  // namespace xrpm::emulator
