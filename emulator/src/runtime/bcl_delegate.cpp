#include "xrpm/emulator/bcl_delegate.h"

#include "xrpm/emulator/method_frame_scope.h"

namespace xrpm::emulator {
namespace {
struct Offsets {
  uint16_t target, method_ptr, list, count;
  explicit Offsets(const Runtime& rt)
      : target(rt.types().Offset(rt.core().delegate, "_target")),
        method_ptr(rt.types().Offset(rt.core().delegate, "_methodPtr")),
        list(rt.types().Offset(rt.core().multicast_delegate, "_invocationList")),
        count(rt.types().Offset(rt.core().multicast_delegate, "_invocationCount")) {}
};

// A multicast delegate of the type of `like` over the Object[] in *list (GC slots both).
Addr NewMulticast(Runtime& rt, Addr* like, Addr* list, uint32_t count) {
  Offsets o(rt);
  Addr d = rt.New(rt.TypeOf(*like));
  Addr last = rt.Elem(*list, count - 1);
  rt.SetRef(d, o.target, rt.Ref(last, o.target));
  rt.SetI32(d, o.method_ptr, rt.I32(last, o.method_ptr));
  rt.SetRef(d, o.list, *list);
  rt.SetI32(d, o.count, static_cast<int32_t>(count));
  return d;
}
}  // namespace

Addr DelegateNew(Runtime& rt, TypeIndex type, Addr* target, MethodId method) {
  Offsets o(rt);
  Addr d = rt.New(type);
  rt.SetRef(d, o.target, *target);
  rt.SetI32(d, o.method_ptr, static_cast<int32_t>(MethodTable::WireId(method)));
  return d;
}

uint32_t DelegateInvocationCount(const Runtime& rt, Addr d) {
  Offsets o(rt);
  return rt.Ref(d, o.list) == kNull ? 1u : static_cast<uint32_t>(rt.I32(d, o.count));
}

Addr DelegateInvocationAt(const Runtime& rt, Addr d, uint32_t i) {
  Offsets o(rt);
  Addr list = rt.Ref(d, o.list);
  return list == kNull ? d : rt.Elem(list, i);
}

Addr DelegateTarget(const Runtime& rt, Addr d) {
  return rt.Ref(d, Offsets(rt).target);
}

Addr DelegateCombine(Runtime& rt, Addr* a, Addr* b) {
  if (*a == kNull) return *b;
  if (*b == kNull) return *a;
  MethodFrameScope f(rt, rt.current_thread(), "System.Delegate.Combine", 3);
  f.set(0, *a);
  f.set(1, *b);
  uint32_t na = DelegateInvocationCount(rt, *a), nb = DelegateInvocationCount(rt, *b);
  f.set(2, rt.NewArray(rt.core().object_array, na + nb));
  for (uint32_t i = 0; i < na; ++i) rt.SetElem(f.get(2), i, DelegateInvocationAt(rt, f.get(0), i));
  for (uint32_t i = 0; i < nb; ++i)
    rt.SetElem(f.get(2), na + i, DelegateInvocationAt(rt, f.get(1), i));
  return NewMulticast(rt, f.slot(1), f.slot(2), na + nb);
}

Addr DelegateRemoveTarget(Runtime& rt, Addr* source, Addr target) {
  if (*source == kNull) return kNull;
  uint32_t n = DelegateInvocationCount(rt, *source), keep = 0;
  Addr only = kNull;
  for (uint32_t i = 0; i < n; ++i) {
    Addr e = DelegateInvocationAt(rt, *source, i);
    if (DelegateTarget(rt, e) != target) {
      ++keep;
      only = e;
    }
  }
  if (keep == n) return *source;
  if (keep == 0) return kNull;
  if (keep == 1) return only;
  MethodFrameScope f(rt, rt.current_thread(), "System.Delegate.Remove", 3);
  f.set(0, *source);
  f.set(1, target);
  f.set(2, rt.NewArray(rt.core().object_array, keep));
  for (uint32_t i = 0, j = 0; i < n; ++i) {
    Addr e = DelegateInvocationAt(rt, f.get(0), i);
    if (DelegateTarget(rt, e) != f.get(1)) rt.SetElem(f.get(2), j++, e);
  }
  return NewMulticast(rt, f.slot(0), f.slot(2), keep);
}

}  // namespace xrpm::emulator
