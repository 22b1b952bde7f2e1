#include "xrpm/emulator/frame_scope.h"

namespace xrpm::emulator {

FrameScope::FrameScope(Runtime& rt, ManagedThread& thread, MethodId method, uint32_t locals,
                       agent::ContainerType kind)
    : thread_(thread), depth_(rt.PushFrame(thread, method, locals, kind)) {}

}  // namespace xrpm::emulator
