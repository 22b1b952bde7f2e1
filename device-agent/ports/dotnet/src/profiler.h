// Profiler: the CoreCLR profiler object (ICorProfilerCallback2) the runtime creates through the
// library's class factory (profiler_entry.cpp) at start-up.
//
// Initialize (the runtime's main thread, before any managed code): asks for
// ICorProfilerInfo10 (.NET Core 3.0 and later; an older runtime is refused), asks for the GC
// events in the mode the environment allows (dotnet_port.h, EventMode), reads the agent's options,
// token and handshake descriptor from the environment (profiler_env.h) and removes them and the
// runtime's profiler variables from it, creates the DotnetPort and starts the device agent, which
// prints "xrpm-agent: listening on ADDR:PORT". Bad options or an agent that cannot listen end the
// process with exit code 2 before the program runs (never a program silently running without
// its agent), after telling the launcher why on the descriptor.
// Shutdown stops the agent before the runtime tears down what a capture would walk.
// The GC and class load callbacks go to the port (dotnet_port.h); every other callback is ignored
// (corprof_abi.h's placeholders).
//
// Lifetime: COM reference counting; the runtime holds the object until the process ends, and
// the port and agent it creates are never destroyed (the runtime may call late).
//
// Thread-safety: the runtime calls Initialize and Shutdown once each; the GC callbacks come from
// its GC threads.
#pragma once

#include <atomic>

#include "corprof_abi.h"

namespace xrpm {
namespace dotnet {

class DotnetPort;

class Profiler final : public cor::ICorProfilerCallback2 {
 public:
  Profiler() = default;

  cor::HRESULT QueryInterface(const cor::GUID& riid, void** object) override;
  cor::ULONG AddRef() override;
  cor::ULONG Release() override;

  cor::HRESULT Initialize(cor::IUnknown* info) override;
  cor::HRESULT Shutdown() override;
  cor::HRESULT ObjectReferences(cor::ObjectID object, cor::ClassID klass, cor::ULONG ref_count,
                                cor::ObjectID refs[]) override;
  cor::HRESULT GarbageCollectionStarted(int32_t generation_count, cor::BOOL generation_collected[],
                                        int32_t reason) override;
  cor::HRESULT GarbageCollectionFinished() override;
  cor::HRESULT ClassLoadFinished(cor::ClassID klass, cor::HRESULT status) override;
  cor::HRESULT RootReferences2(cor::ULONG count, cor::ObjectID objects[], cor::GcRootKind kinds[],
                               cor::GcRootFlags flags[], cor::UINT_PTR ids[]) override;

 private:
  std::atomic<cor::ULONG> refs_{1};
  cor::ICorProfilerInfo10* info_ = nullptr;
  DotnetPort* port_ = nullptr;
};

}  // namespace dotnet
}  // namespace xrpm
