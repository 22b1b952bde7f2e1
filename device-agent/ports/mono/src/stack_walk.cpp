#include "stack_walk.h"

#include <mono/metadata/debug-helpers.h>
#include <mono/metadata/loader.h>
#include <mono/metadata/object.h>

namespace xrpm {
namespace mono {
namespace {

mono_bool CollectFrame(MonoMethod* method, int32_t, int32_t, mono_bool managed, void* data) {
  auto* w = static_cast<StackWalk*>(data);
  if (managed && method) {
    w->methods[w->depth] = method;
    w->keys[w->depth] = reinterpret_cast<uint64_t>(method);
    ++w->depth;
  }
  return w->depth >= agent::kMaxSampleStackDepth;  // true stops the walk
}

}  // namespace

void WalkManagedStack(StackWalk* out) {
  out->depth = 0;
  mono_stack_walk_no_il(&CollectFrame, out);
}

std::string MethodName(void* method) {
  char* n = mono_method_full_name(static_cast<MonoMethod*>(method), 0);
  std::string name = n ? n : "<unknown method>";
  if (n) mono_free(n);
  for (char& c : name)  // "Namespace.Class:Method" -> "Namespace.Class.Method", as NETCF names it
    if (c == ':') c = '.';
  return name;
}

std::string MethodNameOfKey(void* /*ctx*/, uint64_t key) {
  return MethodName(reinterpret_cast<void*>(static_cast<uintptr_t>(key)));
}

}  // namespace mono
}  // namespace xrpm
