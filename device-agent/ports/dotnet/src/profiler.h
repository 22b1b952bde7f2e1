// Profiler: the CoreCLR profiler object (ICorProfilerCallback10) the runtime creates through the
// library's class factory (profiler_entry.cpp), at start-up or when a client attaches it to a
// running process (xrpm-dotnet --attach, diagnostics_ipc.h).
//
// Initialize (the runtime's main thread, before any managed code): asks for
// ICorProfilerInfo10 (.NET Core 3.0 and later; an older runtime is refused), asks for the GC
// events in the mode the environment allows (dotnet_port.h, EventMode), reads the agent's options,
// token and handshake descriptor from the environment (profiler_env.h) and removes them and the
// runtime's profiler variables from it, installs the frame method's hook (frame_hook.h; not with
// the no_frame option), creates the DotnetPort and starts the device agent, which
// prints "xrpm-agent: listening on ADDR:PORT". Bad options or an agent that cannot listen end the
// process with exit code 2 before the program runs (never a program silently running without
// its agent), after telling the launcher why on the descriptor.
// InitializeForAttach (a runtime thread of a running process, the program going on): the same
// start with the options, token and status FIFO from the attach's client data instead of the
// environment. What only start-up allows (the exact route's allocation callback) is refused;
// the frame method is hooked from the modules already loaded (ProfilerAttachComplete:
// frame_hook.h). The GC events are asked for once the agent listens (kAlways; kPerCapture when the
// process already runs with DOTNET_gcConcurrent=0), which makes the runtime turn background
// collections off, waiting for one under way up to the attach's timeout. Classes loaded before the
// attach are not reported to the profiler: the port finds them otherwise (dotnet_port.h,
// loaded_classes.h). Any failure is written to the status FIFO and
// refused (the runtime unloads the profiler): the process is never ended or left stopped. Shutdown
// stops the agent before the runtime tears down what a capture would walk. The GC, class load
// and thread (end, name) callbacks, and with --allocations ObjectAllocated (the exact route) or
// EventPipeEventDelivered (the sampled route; dotnet_allocations.h), go to the port
// (dotnet_port.h); module loads and ReJIT requests go to the frame hook (frame_hook.h); every other
// callback is ignored (corprof_abi.h's placeholders). --allocations=exact is refused on attach.
//
// Lifetime: COM reference counting; the runtime holds the object until the process ends, and
// the port and agent it creates are never destroyed (the runtime may call late).
//
// Thread-safety: the runtime calls Initialize and Shutdown once each; the GC callbacks come from
// its GC threads.
#pragma once

#include <atomic>
#include <string>

#include "corprof_abi.h"

namespace xrpm {
namespace dotnet {

class DotnetPort;
class FrameHook;

class Profiler final : public cor::ICorProfilerCallback10 {
 public:
  Profiler() = default;

  cor::HRESULT QueryInterface(const cor::GUID& riid, void** object) override;
  cor::ULONG AddRef() override;
  cor::ULONG Release() override;

  cor::HRESULT Initialize(cor::IUnknown* info) override;
  cor::HRESULT InitializeForAttach(cor::IUnknown* info, void* client_data,
                                   cor::ULONG client_bytes) override;
  cor::HRESULT Shutdown() override;
  cor::HRESULT ProfilerAttachComplete() override;
  cor::HRESULT ObjectReferences(cor::ObjectID object, cor::ClassID klass, cor::ULONG ref_count,
                                cor::ObjectID refs[]) override;
  cor::HRESULT GarbageCollectionStarted(int32_t generation_count, cor::BOOL generation_collected[],
                                        int32_t reason) override;
  cor::HRESULT GarbageCollectionFinished() override;
  cor::HRESULT MovedReferences2(cor::ULONG count, cor::ObjectID from[], cor::ObjectID to[],
                                size_t lengths[]) override;
  cor::HRESULT SurvivingReferences2(cor::ULONG count, cor::ObjectID starts[],
                                    size_t lengths[]) override;
  cor::HRESULT ClassLoadFinished(cor::ClassID klass, cor::HRESULT status) override;
  cor::HRESULT ModuleLoadFinished(cor::ModuleID module, cor::HRESULT status) override;
  cor::HRESULT GetReJITParameters(cor::ModuleID module, cor::mdToken method,
                                  cor::ICorProfilerFunctionControl* control) override;
  cor::HRESULT ReJITError(cor::ModuleID module, cor::mdToken method, cor::FunctionID function,
                          cor::HRESULT status) override;
  cor::HRESULT ThreadDestroyed(cor::ThreadID thread) override;
  cor::HRESULT ThreadNameChanged(cor::ThreadID thread, cor::ULONG length,
                                 cor::WCHAR name[]) override;
  cor::HRESULT ObjectAllocated(cor::ObjectID object, cor::ClassID klass) override;
  cor::HRESULT RootReferences2(cor::ULONG count, cor::ObjectID objects[], cor::GcRootKind kinds[],
                               cor::GcRootFlags flags[], cor::UINT_PTR ids[]) override;
  cor::HRESULT EventPipeEventDelivered(cor::EventPipeProvider provider, cor::DWORD event_id,
                                       cor::DWORD event_version, cor::ULONG metadata_bytes,
                                       const uint8_t* metadata, cor::ULONG data_bytes,
                                       const uint8_t* data, const cor::GUID* activity,
                                       const cor::GUID* related_activity, cor::ThreadID thread,
                                       cor::ULONG frame_count, cor::UINT_PTR frames[]) override;

 private:
  // Creates the port (with the frame method's hook unless the options say no_frame) and starts
  // the agent; "" or why not (nothing left running then).
  std::string Start(const std::string& options, const std::string& token, bool attached,
                    std::string* endpoint);

  std::atomic<cor::ULONG> refs_{1};
  cor::ICorProfilerInfo10* info_ = nullptr;
  DotnetPort* port_ = nullptr;
  std::atomic<FrameHook*> frame_{nullptr};  // set before the mask asks for module loads
};

}  // namespace dotnet
}  // namespace xrpm
