#include "xrpm/emulator/method_frame_scope.h"

namespace xrpm::emulator {

MethodFrameScope::MethodFrameScope(Runtime& rt, ManagedThread& thread, MethodId method,
                                   uint32_t locals, agent::ContainerType kind)
    : thread_(thread), depth_(rt.PushFrame(thread, method, locals, kind)) {}

}  // namespace xrpm::emulator
