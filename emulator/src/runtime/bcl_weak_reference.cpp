#include "xrpm/emulator/bcl_weak_reference.h"

namespace xrpm::emulator {

Addr WeakReferenceNew(Runtime& rt, Addr* target) {
  Addr wr = rt.New(rt.core().weak_reference);
  uint32_t h = rt.handles().Alloc(*target, HandleType::kWeak);
  rt.SetI32(wr, rt.core().weak_reference_handle, static_cast<int32_t>(h));
  return wr;
}

void FinalizeWeakReference(Runtime& rt, Addr wr) {
  auto h = static_cast<uint32_t>(rt.I32(wr, rt.core().weak_reference_handle));
  rt.handles().Free(h);
  rt.SetI32(wr, rt.core().weak_reference_handle, 0);
}

}  // namespace xrpm::emulator
