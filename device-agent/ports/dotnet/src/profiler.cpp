// Profiler: start-up, attach, shutdown and the GC callbacks of the CoreCLR profiler object.
#include "profiler.h"

#include <dlfcn.h>
#include <fcntl.h>
#include <unistd.h>

#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "agent_startup.h"
#include "diagnostics_ipc.h"
#include "dotnet_allocations.h"
#include "dotnet_game_api.h"
#include "dotnet_port.h"
#include "frame_hook.h"
#include "profiler_env.h"
#include "profiler_options.h"
#include "type_names.h"
#include "xrpm/agent/agent.h"

namespace xrpm {
namespace dotnet {
namespace {

// One agent per process; never destroyed (the runtime may call late).
agent::Agent* g_agent = nullptr;
// How long the program's exit waits for a capture still streaming (its heap already recorded).
constexpr uint32_t kShutdownCaptureWaitMs = 30000;

void WriteStatus(const std::string& line) {
  launch::WriteAgentStatus(kStatusFdEnv, line);
}

[[noreturn]] void FailStartup(const std::string& why) {
  launch::FailAgentStartup(kStatusFdEnv, why);
}

// The program's name from the process's command line: the first *.dll argument (dotnet
// PROGRAM.dll), else the executable's file name (an app host).
std::string AppName() {
  const std::vector<std::string> args = launch::ProcessArguments();
  std::string name = launch::FirstFileWithExtension(args, {".dll"});
  if (name.empty()) name = args.empty() ? "dotnet" : launch::BaseName(args[0]);
  return name;
}

// The runtime's major version (0 when it does not say).
int RuntimeMajor(cor::ICorProfilerInfo10* info) {
  cor::USHORT instance = 0, major = 0, minor = 0, build = 0, qfe = 0;
  int32_t type = 0;
  cor::WCHAR text[64];
  cor::ULONG len = 0;
  if (cor::Failed(info->GetRuntimeInformation(&instance, &type, &major, &minor, &build, &qfe, 64,
                                              &len, text)))
    return 0;
  return major;
}

// The sampled route's session interface: ICorProfilerInfo12 on a runtime that has the
// AllocationSampled event (.NET 10 and later); null otherwise (the exact route then).
cor::ICorProfilerInfo12* SampledAllocationInfo(cor::ICorProfilerInfo10* info) {
  if (RuntimeMajor(info) < 10) return nullptr;
  void* info12 = nullptr;
  if (cor::Failed(info->QueryInterface(cor::kIID_ICorProfilerInfo12, &info12))) return nullptr;
  return static_cast<cor::ICorProfilerInfo12*>(info12);
}

std::string RuntimeVersion(cor::ICorProfilerInfo10* info) {
  cor::USHORT instance = 0, major = 0, minor = 0, build = 0, qfe = 0;
  int32_t type = 0;
  cor::WCHAR text[64];
  cor::ULONG len = 0;
  if (cor::Failed(info->GetRuntimeInformation(&instance, &type, &major, &minor, &build, &qfe, 64,
                                              &len, text)))
    return "unknown";
  return std::to_string(major) + "." + std::to_string(minor) + "." + std::to_string(build);
}

}  // namespace

cor::HRESULT Profiler::QueryInterface(const cor::GUID& riid, void** object) {
  if (!object) return cor::E_POINTER;
  if (riid == cor::kIID_IUnknown || riid == cor::kIID_ICorProfilerCallback ||
      riid == cor::kIID_ICorProfilerCallback2 || riid == cor::kIID_ICorProfilerCallback3 ||
      riid == cor::kIID_ICorProfilerCallback4 || riid == cor::kIID_ICorProfilerCallback5 ||
      riid == cor::kIID_ICorProfilerCallback6 || riid == cor::kIID_ICorProfilerCallback7 ||
      riid == cor::kIID_ICorProfilerCallback8 || riid == cor::kIID_ICorProfilerCallback9 ||
      riid == cor::kIID_ICorProfilerCallback10) {
    *object = static_cast<cor::ICorProfilerCallback10*>(this);
    AddRef();
    return cor::S_OK;
  }
  *object = nullptr;
  return cor::E_NOINTERFACE;
}

cor::ULONG Profiler::AddRef() {
  return refs_.fetch_add(1, std::memory_order_relaxed) + 1;
}

cor::ULONG Profiler::Release() {
  const cor::ULONG left = refs_.fetch_sub(1, std::memory_order_acq_rel) - 1;
  if (left == 0) delete this;
  return left;
}

cor::HRESULT Profiler::Initialize(cor::IUnknown* unknown) {
  // Another process than the one the launcher started (a child that inherited the runtime's
  // copy of the environment: profiler_env.h): no agent here, and nothing touched.
  if (const char* pid = std::getenv(kPidEnv))
    if (std::to_string(getpid()) != pid) return cor::CORPROF_E_PROFILER_CANCEL_ACTIVATION;
  void* info = nullptr;
  if (!unknown || cor::Failed(unknown->QueryInterface(cor::kIID_ICorProfilerInfo10, &info)) ||
      !info)
    FailStartup("this runtime is too old for xrpm-dotnet (it needs .NET Core 3.0 or later)");
  info_ = static_cast<cor::ICorProfilerInfo10*>(info);
  const char* options = std::getenv(kOptionsEnv);
  const char* token = std::getenv(kTokenEnv);
  const std::string opts_text = options && *options ? options : "xrpm";
  const std::string token_text = token ? token : "";
  // The program's own child processes start without the agent (profiler_env.h).
  unsetenv(kOptionsEnv);
  unsetenv(kTokenEnv);
  unsetenv(kPidEnv);
  std::string endpoint;
  const std::string error = Start(opts_text, token_text, false, &endpoint);
  if (!error.empty()) FailStartup(error);
  WriteStatus("ok " + endpoint);
  return cor::S_OK;
}

cor::HRESULT Profiler::InitializeForAttach(cor::IUnknown* unknown, void* client_data,
                                           cor::ULONG client_bytes) {
  ipc::AttachClientData data;
  std::string error;
  if (!ipc::ParseClientData(static_cast<const uint8_t*>(client_data),
                            client_data ? client_bytes : 0, &data, &error)) {
    std::fprintf(stderr, "xrpm-agent: attach refused: %s\n", error.c_str());
    return cor::CORPROF_E_PROFILER_NOT_ATTACHABLE;
  }
  // The runtime unloads a profiler that refuses; one that runs must stay loaded, and a later
  // attach finds this copy: pin the library.
  Dl_info self{};
  if (dladdr(reinterpret_cast<void*>(&AppName), &self) && self.dli_fname)
    dlopen(self.dli_fname, RTLD_NOW | RTLD_NOLOAD | RTLD_NODELETE);
  void* info = nullptr;
  std::string endpoint;
  if (!unknown || cor::Failed(unknown->QueryInterface(cor::kIID_ICorProfilerInfo10, &info)) ||
      !info) {
    error = "this runtime is too old for xrpm-dotnet (it needs .NET Core 3.0 or later)";
  } else {
    info_ = static_cast<cor::ICorProfilerInfo10*>(info);
    error = Start(data.options, data.token, true, &endpoint);
  }
  std::string status = error.empty() ? "ok " + endpoint : "error " + error;
  if (!error.empty()) std::fprintf(stderr, "xrpm-agent: attach refused: %s\n", error.c_str());
  if (!data.status.empty()) {
    const int fd = open(data.status.c_str(), O_WRONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd >= 0) {
      status += "\n";
      (void)!write(fd, status.data(), status.size());  // a FIFO: one write, at most 4 KiB
      close(fd);
    }
  }
  return error.empty() ? cor::S_OK : cor::CORPROF_E_PROFILER_NOT_ATTACHABLE;
}

std::string Profiler::Start(const std::string& options, const std::string& token, bool attached,
                            std::string* endpoint) {
  mono::ProfilerOptions opts;
  std::string error;
  if (!mono::ParseProfilerOptions(options, &opts, &error)) return error;
  // Background collections off (the launcher's DOTNET_gcConcurrent=0): GC events per capture.
  const bool origins = opts.allocations && !opts.no_origins;
  const char* concurrent = std::getenv(kGcConcurrentEnv);
  const DotnetPort::EventMode mode = concurrent && std::string(concurrent) == "0"
                                         ? DotnetPort::EventMode::kPerCapture
                                         : DotnetPort::EventMode::kAlways;
  const bool frame_hook = !opts.no_frame;
  // The exact route's ObjectAllocated only from Initialize; the runtime's sampling session may
  // start any time (dotnet_allocations.h).
  if (opts.allocations && opts.allocations_exact && attached)
    return "allocations=exact needs the runtime's allocation callback, which CoreCLR allows only "
           "at start-up, never on attach: attach with --allocations (sampled), or start the "
           "program under xrpm-dotnet --allocations=exact";
  if (opts.allocations && !frame_hook)
    return "allocations need the frame method's hook (frames carry them): drop --no-frame";
  // The frame method's calls (frame_hook.h): modules report their loads from the mask on.
  FrameHook* frame = nullptr;
  if (frame_hook) {
    mono::FrameMethod method;
    if (!mono::ParseFrameMethod(opts.frame, &method, &error)) return error;
    frame = new FrameHook(info_, method, opts.frame_window_ms);
    frame_.store(frame, std::memory_order_release);
  }
  // The sampled route unless asked for the exact one or the runtime lacks the event.
  cor::ICorProfilerInfo12* info12 =
      opts.allocations && !opts.allocations_exact ? SampledAllocationInfo(info_) : nullptr;
  const AllocationRoute route = info12 ? AllocationRoute::kSampled : AllocationRoute::kExact;
  if (opts.allocations && attached && route == AllocationRoute::kExact)
    return "allocation samples on attach need the runtime's sampled allocations (.NET 10 and "
           "later; this runtime is " +
           RuntimeVersion(info_) +
           "): start the program under "
           "xrpm-dotnet --allocations instead";
  DotnetAllocations* allocations =
      opts.allocations ? new DotnetAllocations(info_, info12, frame, opts.sample_bytes, route)
                       : nullptr;
  // Never destroyed either: the runtime reports collections until the end.
  DotnetOrigins* origin_table = origins ? new DotnetOrigins() : nullptr;
  if (allocations) allocations->set_origins(origin_table);
  // The event mask: asking for the GC events turns background collections off in the process,
  // so an attach asks only once its agent listens (a port in use leaves the process as it was).
  auto set_mask = [&]() -> std::string {
    const cor::HRESULT hr = info_->SetEventMask2(
        DotnetPort::IdleMaskLow(mode) | (frame ? FrameHook::kMaskLow : 0) |
            (allocations ? allocations->mask_low() : 0),
        DotnetPort::IdleMaskHigh(mode) | (allocations ? allocations->mask_high() : 0) |
            DotnetPort::OriginsMaskHigh(mode, origin_table != nullptr));
    if (!cor::Failed(hr)) return "";
    return "the runtime refused the profiler's GC events (" + cor::HexText(hr) + ")" +
           (attached ? ": a background collection did not end within the attach's time limit?"
                     : "");
  };
  if (!attached && !(error = set_mask()).empty()) return error;
  if (allocations && route == AllocationRoute::kSampled &&
      !(error = allocations->StartSession()).empty())
    return error;
  agent::AgentOptions agent_opts;
  agent_opts.address = opts.address;
  agent_opts.port = opts.port;
  agent_opts.announce = opts.announce;
  agent_opts.token = token;
  if (opts.quiet) agent_opts.log = [](const std::string&) {};
  if (!attached) {
    if (const char* set = std::getenv(kGcSetEnv)) {
      if (std::string(set) == "1") unsetenv(kGcConcurrentEnv);
      unsetenv(kGcSetEnv);
    }
    for (const char* name : kRuntimeProfilerEnv) unsetenv(name);
  }

  auto* port = new DotnetPort(info_, AppName(), RuntimeVersion(info_), mode);
  port->set_log(agent_opts.log);
  port->set_frame_hook(frame);  // never destroyed: the method's code calls it until the end
  if (frame) frame->set_log(agent_opts.log);
  port->set_allocations(allocations);  // never destroyed either (ObjectAllocated until the end)
  port->set_origins(origin_table);
  if (attached) port->set_attached();
  port->set_snapshot_walk(opts.walk == mono::WalkMode::kSnapshot);
  port->LogEventMode();
  auto* agent = new agent::Agent(*port, std::move(agent_opts));
  if (!agent->Start(&error)) {
    // Nothing runs yet: both can go (after a failed attach the runtime may call no more).
    if (!attached) info_->SetEventMask2(cor::kMonitorNone, 0);
    delete agent;
    delete port;
    return "device agent: " + error;
  }
  if (attached && !(error = set_mask()).empty()) {
    agent->Stop();
    delete agent;
    delete port;
    return error;
  }
  port_ = port;
  g_agent = agent;
  PublishGameEvents(&port->game_events());  // Xrpm.dll's calls reach the agent from now on
  const auto& log = port->log();
  if (attached) {
    const std::string line = "attached to process " + std::to_string(getpid()) +
                             " (classes loaded before the attach are found at the first capture, "
                             "some only at the next: docs/DOTNET.md)";
    if (log)
      log(line);
    else
      std::fprintf(stderr, "xrpm-agent: %s\n", line.c_str());
  }
  *endpoint = opts.address + ":" + std::to_string(agent->port());
  return "";
}

cor::HRESULT Profiler::Shutdown() {
  // A capture whose heap was recorded streams on after the game resumed: the program ending
  // meanwhile (a compiler finishing) waits for it, bounded, instead of cutting it off.
  if (g_agent) g_agent->StopAfterCapture(kShutdownCaptureWaitMs);
  return cor::S_OK;
}

cor::HRESULT Profiler::ObjectReferences(cor::ObjectID object, cor::ClassID klass,
                                        cor::ULONG ref_count, cor::ObjectID refs[]) {
  // An error ends this collection's heap walk (dotnet_port.h says when).
  return port_ && port_->OnObjectReferences(object, klass, ref_count, refs) ? cor::S_OK
                                                                            : cor::E_FAIL;
}

cor::HRESULT Profiler::GarbageCollectionStarted(int32_t generation_count,
                                                cor::BOOL generation_collected[], int32_t reason) {
  if (port_) port_->OnGcStarted(generation_count, generation_collected, reason);
  return cor::S_OK;
}

cor::HRESULT Profiler::GarbageCollectionFinished() {
  if (port_) port_->OnGcFinished();
  return cor::S_OK;
}

cor::HRESULT Profiler::MovedReferences2(cor::ULONG count, cor::ObjectID from[], cor::ObjectID to[],
                                        size_t lengths[]) {
  if (port_) port_->OnMoved(from, to, lengths, count);
  return cor::S_OK;
}

cor::HRESULT Profiler::SurvivingReferences2(cor::ULONG count, cor::ObjectID starts[],
                                            size_t lengths[]) {
  if (port_) port_->OnSurvived(starts, lengths, count);
  return cor::S_OK;
}

cor::HRESULT Profiler::ClassLoadFinished(cor::ClassID klass, cor::HRESULT status) {
  if (port_ && !cor::Failed(status)) port_->OnClassLoaded(klass);
  return cor::S_OK;
}

cor::HRESULT Profiler::ProfilerAttachComplete() {
  // The modules loaded before the attach (later ones report their loads).
  if (FrameHook* frame = frame_.load(std::memory_order_acquire)) frame->CatchUp();
  return cor::S_OK;
}

cor::HRESULT Profiler::ModuleLoadFinished(cor::ModuleID module, cor::HRESULT status) {
  FrameHook* frame = frame_.load(std::memory_order_acquire);
  if (frame && !cor::Failed(status)) frame->OnModuleLoaded(module);
  return cor::S_OK;
}

cor::HRESULT Profiler::GetReJITParameters(cor::ModuleID module, cor::mdToken method,
                                          cor::ICorProfilerFunctionControl* control) {
  FrameHook* frame = frame_.load(std::memory_order_acquire);
  return frame ? frame->OnReJitParameters(module, method, control) : cor::S_OK;
}

cor::HRESULT Profiler::ReJITError(cor::ModuleID module, cor::mdToken method, cor::FunctionID,
                                  cor::HRESULT status) {
  FrameHook* frame = frame_.load(std::memory_order_acquire);
  if (frame) frame->OnReJitError(module, method, status);
  return cor::S_OK;
}

cor::HRESULT Profiler::ThreadDestroyed(cor::ThreadID thread) {
  if (port_) port_->OnThreadDestroyed(thread);
  return cor::S_OK;
}

cor::HRESULT Profiler::ThreadNameChanged(cor::ThreadID thread, cor::ULONG length,
                                         cor::WCHAR name[]) {
  if (port_) port_->OnThreadNameChanged(thread, name, length);
  return cor::S_OK;
}

cor::HRESULT Profiler::ObjectAllocated(cor::ObjectID object, cor::ClassID klass) {
  if (port_) port_->OnObjectAllocated(object, klass);
  return cor::S_OK;
}

cor::HRESULT Profiler::EventPipeEventDelivered(cor::EventPipeProvider, cor::DWORD event_id,
                                               cor::DWORD, cor::ULONG, const uint8_t*,
                                               cor::ULONG data_bytes, const uint8_t* data,
                                               const cor::GUID*, const cor::GUID*, cor::ThreadID,
                                               cor::ULONG frame_count, cor::UINT_PTR frames[]) {
  // The only session is the allocation sampling one (Microsoft-Windows-DotNETRuntime).
  if (port_) port_->OnEventPipeEvent(event_id, data, data_bytes, frames, frame_count);
  return cor::S_OK;
}

cor::HRESULT Profiler::RootReferences2(cor::ULONG count, cor::ObjectID objects[],
                                       cor::GcRootKind kinds[], cor::GcRootFlags flags[],
                                       cor::UINT_PTR ids[]) {
  if (port_) port_->OnRootReferences(count, objects, kinds, flags, ids);
  return cor::S_OK;
}

}  // namespace dotnet
}  // namespace xrpm
