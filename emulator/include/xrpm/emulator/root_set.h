// RootSet: enumerates every GC root of the runtime, grouped into heap-walker containers, for the
// collector (marking, updating moved objects) and the heap walker (reporting roots) alike.
//
// Order (the walk order; heap_walker.h documents the container -> descriptor mapping):
//   C_RT_INTERNALVM  internal roots                                  descriptor 0
//   C_RT_ROOTTABLE   interned strings, class descriptions            descriptor 5
//   per thread: C_RT_THREAD (id1 = thread id), then its frames outermost first
//               (C_RT_JIT / C_RT_NATIVE / C_RT_INTERNALFRAME ..., id1 = stack id, id2 = method id)
//                                                                    descriptor 1, flags 1 / 4
//   per class with a non-null static: C_RT_CLASS (id1 = class id)    descriptor 4
//   C_RT_STRONGPTR   the GC handle table (id1 = 1)                   descriptor 3, flags 1 / 2
//   C_RT_FINALIZED   objects awaiting finalization                   descriptor 2
// Only non-null slots are reported. A visitor may rewrite the slot it is given (the compactor
// does). Weak handle roots carry flag 2; they are reported but do not keep objects alive.
//
// Thread-safety: none; runs on the thread that holds the world.
#pragma once

#include <cstdint>

#include "xrpm/agent/heap_walker.h"
#include "xrpm/emulator/finalizer_queue.h"
#include "xrpm/emulator/handle_table.h"
#include "xrpm/emulator/runtime_roots.h"
#include "xrpm/emulator/statics.h"
#include "xrpm/emulator/threads.h"

namespace xrpm::emulator {

struct RootContainer {
  agent::ContainerType type;
  uint64_t id1 = 0;
  uint64_t id2 = 0;
};

class RootVisitor {
 public:
  virtual ~RootVisitor() = default;
  // A container begins. Returning false stops the enumeration.
  virtual bool Container(const RootContainer& c) = 0;
  // A non-null root of the current container. Returning false stops the enumeration.
  virtual bool Root(Addr* slot, uint8_t flags) = 0;
  // A static root (C_RT_CLASS): `index` is the field's StaticSlot::index. Default: Root.
  virtual bool StaticRoot(Addr* slot, uint32_t index) {
    (void)index;
    return Root(slot, 0);
  }
};

inline constexpr uint64_t kHandleTableId = 1;

class RootSet {
 public:
  RootSet(RuntimeRoots& runtime, ThreadTable& threads, Statics& statics, HandleTable& handles,
          FinalizerQueue& finalizers)
      : runtime_(runtime),
        threads_(threads),
        statics_(statics),
        handles_(handles),
        finalizers_(finalizers) {}

  // Returns false when the visitor stopped the enumeration.
  bool Enumerate(RootVisitor& v);

 private:
  RuntimeRoots& runtime_;
  ThreadTable& threads_;
  Statics& statics_;
  HandleTable& handles_;
  FinalizerQueue& finalizers_;
};

}  // namespace xrpm::emulator
