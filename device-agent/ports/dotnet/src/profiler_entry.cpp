// The profiler library's one export, DllGetClassObject: CoreCLR loads the library named by
// CORECLR_PROFILER_PATH, asks it for the class factory of the CLSID in CORECLR_PROFILER
// (profiler_env.h) and creates the profiler object through it (profiler.h). Any other CLSID is
// refused (CLASS_E_CLASSNOTAVAILABLE). Our copies of protobuf-lite and ENet stay private (the
// library is linked with --exclude-libs).
//
// Thread-safety: the runtime calls these on its start-up thread.
#include <atomic>
#include <new>

#include "corprof_abi.h"
#include "profiler.h"
#include "profiler_env.h"

namespace xrpm {
namespace dotnet {
namespace {

class ClassFactory final : public cor::IClassFactory {
 public:
  cor::HRESULT QueryInterface(const cor::GUID& riid, void** object) override {
    if (!object) return cor::E_POINTER;
    if (riid == cor::kIID_IUnknown || riid == cor::kIID_IClassFactory) {
      *object = static_cast<cor::IClassFactory*>(this);
      AddRef();
      return cor::S_OK;
    }
    *object = nullptr;
    return cor::E_NOINTERFACE;
  }
  // A static object: the counts are kept for COM's sake only.
  cor::ULONG AddRef() override { return refs_.fetch_add(1) + 1; }
  cor::ULONG Release() override { return refs_.fetch_sub(1) - 1; }

  cor::HRESULT CreateInstance(cor::IUnknown* outer, const cor::GUID& riid, void** object) override {
    if (!object) return cor::E_POINTER;
    *object = nullptr;
    if (outer) return cor::CLASS_E_NOAGGREGATION;
    auto* profiler = new (std::nothrow) Profiler();
    if (!profiler) return cor::E_OUTOFMEMORY;
    const cor::HRESULT hr = profiler->QueryInterface(riid, object);
    profiler->Release();  // the caller's reference, if any, keeps it
    return hr;
  }
  cor::HRESULT LockServer(cor::BOOL) override { return cor::S_OK; }

 private:
  std::atomic<cor::ULONG> refs_{1};
};

ClassFactory g_factory;

}  // namespace
}  // namespace dotnet
}  // namespace xrpm

extern "C" __attribute__((visibility("default"))) xrpm::dotnet::cor::HRESULT DllGetClassObject(
    const xrpm::dotnet::cor::GUID& clsid, const xrpm::dotnet::cor::GUID& riid, void** object) {
  using namespace xrpm::dotnet;
  if (!object) return cor::E_POINTER;
  *object = nullptr;
  if (!(clsid == kProfilerClsid)) return cor::CLASS_E_CLASSNOTAVAILABLE;
  return g_factory.QueryInterface(riid, object);
}
