// Profiler: start-up, shutdown and the GC callbacks of the CoreCLR profiler object.
#include "profiler.h"

#include <unistd.h>

#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "agent_startup.h"
#include "dotnet_port.h"
#include "profiler_env.h"
#include "profiler_options.h"
#include "type_names.h"
#include "xrpm/agent/agent.h"

namespace xrpm {
namespace dotnet {
namespace {

// One agent per process; never destroyed (the runtime may call late).
agent::Agent* g_agent = nullptr;

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
      riid == cor::kIID_ICorProfilerCallback2) {
    *object = static_cast<cor::ICorProfilerCallback2*>(this);
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
  void* info = nullptr;
  if (!unknown || cor::Failed(unknown->QueryInterface(cor::kIID_ICorProfilerInfo10, &info)) ||
      !info)
    FailStartup("this runtime is too old for xrpm-dotnet (it needs .NET Core 3.0 or later)");
  info_ = static_cast<cor::ICorProfilerInfo10*>(info);
  // Background collections off (the launcher's DOTNET_gcConcurrent=0): GC events per capture.
  const char* concurrent = std::getenv(kGcConcurrentEnv);
  const DotnetPort::EventMode mode = concurrent && std::string(concurrent) == "0"
                                         ? DotnetPort::EventMode::kPerCapture
                                         : DotnetPort::EventMode::kAlways;
  if (cor::Failed(
          info_->SetEventMask2(DotnetPort::IdleMaskLow(mode), DotnetPort::IdleMaskHigh(mode))))
    FailStartup("the runtime refused the profiler's GC events");

  mono::ProfilerOptions opts;
  std::string error;
  const char* desc = std::getenv(kOptionsEnv);
  if (!mono::ParseProfilerOptions(desc && *desc ? desc : "xrpm", &opts, &error)) FailStartup(error);
  agent::AgentOptions agent_opts;
  agent_opts.address = opts.address;
  agent_opts.port = opts.port;
  agent_opts.announce = opts.announce;
  if (const char* token = std::getenv(kTokenEnv)) agent_opts.token = token;
  if (opts.quiet) agent_opts.log = [](const std::string&) {};
  // The program's own child processes start without the agent (profiler_env.h).
  unsetenv(kOptionsEnv);
  unsetenv(kTokenEnv);
  if (const char* set = std::getenv(kGcSetEnv)) {
    if (std::string(set) == "1") unsetenv(kGcConcurrentEnv);
    unsetenv(kGcSetEnv);
  }
  for (const char* name : kRuntimeProfilerEnv) unsetenv(name);

  port_ = new DotnetPort(info_, AppName(), RuntimeVersion(info_), mode);
  port_->set_log(agent_opts.log);
  port_->LogEventMode();
  g_agent = new agent::Agent(*port_, std::move(agent_opts));
  if (!g_agent->Start(&error)) FailStartup("device agent: " + error);
  WriteStatus("ok " + opts.address + ":" + std::to_string(g_agent->port()));
  return cor::S_OK;
}

cor::HRESULT Profiler::Shutdown() {
  if (g_agent) g_agent->Stop();
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

cor::HRESULT Profiler::ClassLoadFinished(cor::ClassID klass, cor::HRESULT status) {
  if (port_ && !cor::Failed(status)) port_->OnClassLoaded(klass);
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
