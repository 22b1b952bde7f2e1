#include "xrpm/emulator/bcl_string.h"

#include <string>

#include "xrpm/emulator/method_frame_scope.h"

namespace xrpm::emulator {

Addr StringConcat(Runtime& rt, Addr* a, Addr* b) {
  MethodFrameScope f(rt, rt.current_thread(), "System.String.Concat", 0);
  return rt.NewString(rt.StringValue(*a) + rt.StringValue(*b));
}

Addr Int32ToString(Runtime& rt, int32_t v) {
  MethodFrameScope f(rt, rt.current_thread(), "System.Int32.ToString", 0);
  return rt.NewString(std::to_string(v));
}

Addr BoxInt32(Runtime& rt, int32_t v) {
  Addr box = rt.New(rt.core().boxed_int32);
  rt.SetI32(box, rt.core().boxed_value, v);
  return box;
}

Addr StringFormatInt(Runtime& rt, Addr* format, int32_t arg) {
  MethodFrameScope f(rt, rt.current_thread(), "System.String.Format", 2);
  f.set(0, BoxInt32(rt, arg));
  Addr args = rt.NewArray(rt.core().object_array, 1);
  rt.SetElem(args, 0, f.get(0));
  f.set(1, args);
  std::string text = rt.StringValue(*format);
  if (size_t at = text.find("{0}"); at != std::string::npos)
    text.replace(at, 3, std::to_string(rt.I32(rt.Elem(f.get(1), 0), rt.core().boxed_value)));
  return rt.NewString(text);
}

}  // namespace xrpm::emulator
