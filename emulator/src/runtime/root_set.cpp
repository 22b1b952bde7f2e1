#include "xrpm/emulator/root_set.h"

namespace xrpm::emulator {
namespace {
using agent::ContainerType;

bool VisitAll(RootVisitor& v, std::vector<Addr>& slots, uint8_t flags) {
  for (Addr& a : slots)
    if (a != kNull && !v.Root(&a, flags)) return false;
  return true;
}
}  // namespace

bool RootSet::Enumerate(RootVisitor& v) {
  if (!v.Container({ContainerType::kInternalVm})) return false;
  if (!VisitAll(v, runtime_.internal(), 0)) return false;
  if (!v.Container({ContainerType::kRootTable})) return false;
  if (!VisitAll(v, runtime_.gc_specific(), 0)) return false;

  for (ManagedThread& t : threads_.all()) {
    if (!v.Container({ContainerType::kThread, t.id, 0})) return false;
    for (size_t d = 0; d < t.frames.size(); ++d) {
      Frame& f = t.frames[d];
      if (!v.Container({f.kind, t.StackId(d), MethodTable::WireId(f.method)})) return false;
      for (Local& l : f.locals)
        if (l.obj != kNull && !v.Root(&l.obj, l.flags)) return false;
    }
  }

  TypeIndex open_class = 0xFFFFFFFFu;
  for (StaticSlot& s : statics_.slots()) {
    if (s.value == kNull) continue;
    if (s.owner != open_class) {
      open_class = s.owner;
      if (!v.Container({ContainerType::kClass, s.owner, 0})) return false;
    }
    if (!v.StaticRoot(&s.value, s.index)) return false;
  }

  if (!v.Container({ContainerType::kStrongPtr, kHandleTableId, 0})) return false;
  for (HandleSlot& h : handles_.slots())
    if (h.in_use && h.target != kNull && !v.Root(&h.target, HandleRootFlags(h.type))) return false;

  if (!v.Container({ContainerType::kFinalized})) return false;
  for (Addr& a : finalizers_.pending())
    if (a != kNull && !v.Root(&a, 0)) return false;
  return true;
}

}  // namespace xrpm::emulator
