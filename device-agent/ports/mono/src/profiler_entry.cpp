// The Mono profiler module's entry point: mono_profiler_init_xrpm parses the options, creates
// the MonoPort, wires Mono's profiler callbacks to it and starts the device agent, which prints
// "xrpm-agent: listening on ADDR:PORT" as it does in the emulator.
//
// Bad options or an agent that cannot listen end the process with exit code 2 before the
// program runs (never a program silently running without its agent). When the launcher passed
// a status descriptor (XRPM_MONO_STATUS_FD), one line tells it the outcome.
//
// The module is not linked against libmono-2.0: its mono_* symbols bind to the mono executable
// that loaded it (Debian's /usr/bin/mono-sgen links the runtime statically).
//
// Thread-safety: init runs once on Mono's main thread before any managed code; the callbacks run
// on Mono's threads and only touch lock-free state or MonoPort's documented entry points.
#include <mono/metadata/appdomain.h>
#include <mono/metadata/class.h>
#include <mono/metadata/loader.h>
#include <mono/metadata/profiler.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "mono_port.h"
#include "profiler_options.h"
#include "xrpm/agent/agent.h"

struct _MonoProfiler {
  xrpm::mono::MonoPort* port;
  xrpm::agent::Agent* agent;
  MonoProfilerHandle handle;
  xrpm::mono::FrameMethod frame;
  std::atomic<int64_t> threads;
  std::atomic<bool> ready;  // runtime_initialized has been raised
};

namespace {

using xrpm::mono::EventKind;
using xrpm::mono::MonoCounter;

_MonoProfiler g_prof;  // one profiler per process; never destroyed (Mono may call late)

void WriteStatus(const std::string& line) {
  const char* fd_text = std::getenv(xrpm::mono::kStatusFdEnv);
  if (!fd_text) return;
  const int fd = std::atoi(fd_text);
  std::string out = line + "\n";
  if (fd > 2) {
    ssize_t ignored = write(fd, out.data(), out.size());
    (void)ignored;
    close(fd);
  }
  unsetenv(xrpm::mono::kStatusFdEnv);
}

[[noreturn]] void FailStartup(const std::string& why) {
  std::fprintf(stderr, "xrpm-agent: %s\n", why.c_str());
  WriteStatus("error " + why);
  std::fflush(stderr);
  std::_Exit(2);
}

// The program's file name from the process's command line (the first *.exe argument).
std::string AppName() {
  FILE* f = std::fopen("/proc/self/cmdline", "rb");
  if (!f) return "mono";
  std::string all;
  char buf[4096];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, f)) > 0 && all.size() < (1u << 20)) all.append(buf, n);
  std::fclose(f);
  size_t pos = 0;
  while (pos < all.size()) {
    std::string arg = all.c_str() + pos;
    pos += arg.size() + 1;
    if (arg.size() > 4 && arg[0] != '-') {
      std::string ext = arg.substr(arg.size() - 4);
      for (char& c : ext) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      if (ext == ".exe" || ext == ".dll") {
        const size_t slash = arg.rfind('/');
        return slash == std::string::npos ? arg : arg.substr(slash + 1);
      }
    }
  }
  return "mono";
}

bool IsFrameMethod(MonoMethod* method) {
  const xrpm::mono::FrameMethod& f = g_prof.frame;
  const char* name = mono_method_get_name(method);
  if (!name || f.method != name) return false;
  MonoClass* klass = mono_method_get_class(method);
  const char* cname = klass ? mono_class_get_name(klass) : nullptr;
  const char* ns = klass ? mono_class_get_namespace(klass) : nullptr;
  return cname && f.class_name == cname && f.name_space == (ns ? ns : "");
}

// ---- callbacks ----

MonoProfilerCallInstrumentationFlags InstrumentFilter(MonoProfiler*, MonoMethod* method) {
  if (!IsFrameMethod(method)) return MONO_PROFILER_CALL_INSTRUMENTATION_NONE;
  return static_cast<MonoProfilerCallInstrumentationFlags>(
      MONO_PROFILER_CALL_INSTRUMENTATION_ENTER | MONO_PROFILER_CALL_INSTRUMENTATION_LEAVE);
}
void MethodEnter(MonoProfiler* p, MonoMethod*, MonoProfilerCallContext*) {
  p->port->frames().OnFrameEnter();
}
void Allocation(MonoProfiler* p, MonoObject* object) {
  p->port->frames().OnAllocation(object);
}
void MethodLeave(MonoProfiler* p, MonoMethod*, MonoProfilerCallContext*) {
  p->port->OnFrameLeave();
}
void GcEvent(MonoProfiler* p, MonoProfilerGCEvent ev, uint32_t gen, mono_bool serial) {
  p->port->OnGcEvent(static_cast<int>(ev), gen, serial != 0);
}
void GcRoots(MonoProfiler* p, uint64_t count, const mono_byte* const* addresses,
             MonoObject* const* objects) {
  if (p->port->capture_gc_active())
    p->port->OnRoots(count, reinterpret_cast<const void* const*>(addresses),
                     reinterpret_cast<void* const*>(objects));
}
void GcMoves(MonoProfiler* p, MonoObject* const* objects, uint64_t count) {
  if (p->port->capture_gc_active())
    p->port->OnMoves(reinterpret_cast<void* const*>(objects), count);
}
void SetReporting(bool on) {
  mono_profiler_set_gc_roots_callback(g_prof.handle, on ? GcRoots : nullptr);
  mono_profiler_set_gc_moves_callback(g_prof.handle, on ? GcMoves : nullptr);
}
// Namespace.Outer/Inner from the class's own metadata: what is safe before the runtime has
// finished initialising (mono_type_get_name needs it, as Mono's log profiler notes).
std::string PlainName(MonoClass* klass) {
  std::string name = mono_class_get_name(klass);
  MonoClass* outer = klass;
  for (MonoClass* n = mono_class_get_nesting_type(klass); n; n = mono_class_get_nesting_type(n)) {
    name = std::string(mono_class_get_name(n)) + "/" + name;
    outer = n;
  }
  const char* ns = mono_class_get_namespace(outer);
  return ns && *ns ? std::string(ns) + "." + name : name;
}

void ClassLoaded(MonoProfiler* p, MonoClass* klass) {
  if (p->ready.load(std::memory_order_acquire)) {
    char* name = mono_type_get_name(mono_class_get_type(klass));
    p->port->events().Push(EventKind::kClassLoaded, reinterpret_cast<uintptr_t>(klass), 0, 0, 0,
                           name ? name : "<unnamed class>");
    if (name) mono_free(name);
  } else {
    p->port->events().Push(EventKind::kClassLoaded, reinterpret_cast<uintptr_t>(klass), 0, 0, 0,
                           PlainName(klass).c_str());
  }
  p->port->counters().Add(MonoCounter::kClassesLoaded, 1);
}
void RootRegister(MonoProfiler* p, const mono_byte* start, uintptr_t size, MonoGCRootSource src,
                  const void* key, const char*) {
  p->port->events().Push(EventKind::kRootRegister, reinterpret_cast<uintptr_t>(start), size,
                         static_cast<uintptr_t>(src), reinterpret_cast<uintptr_t>(key));
}
void RootUnregister(MonoProfiler* p, const mono_byte* start) {
  p->port->events().Push(EventKind::kRootUnregister, reinterpret_cast<uintptr_t>(start));
}
void HandleCreated(MonoProfiler* p, uint32_t handle, MonoGCHandleType type, MonoObject*) {
  p->port->events().Push(EventKind::kHandleCreated, handle, static_cast<uintptr_t>(type));
}
void HandleDeleted(MonoProfiler* p, uint32_t handle, MonoGCHandleType) {
  p->port->events().Push(EventKind::kHandleDeleted, handle);
}
void Finalizing(MonoProfiler* p) {
  p->port->OnFinalizing();
}
void FinalizedObject(MonoProfiler* p, MonoObject*) {
  p->port->counters().Add(MonoCounter::kObjectsFinalized, 1);
}
void JitDone(MonoProfiler* p, MonoMethod*, MonoJitInfo* ji) {
  p->port->counters().Add(MonoCounter::kMethodsJitted, 1);
  if (ji) p->port->counters().Add(MonoCounter::kNativeBytesJitted, mono_jit_info_get_code_size(ji));
}
void ExceptionThrow(MonoProfiler* p, MonoObject*) {
  p->port->counters().Add(MonoCounter::kExceptionsThrown, 1);
}
void AssemblyLoaded(MonoProfiler* p, MonoAssembly*) {
  p->port->counters().Add(MonoCounter::kAssembliesLoaded, 1);
}
void DomainLoaded(MonoProfiler* p, MonoDomain*) {
  p->port->counters().Add(MonoCounter::kAppDomainsCreated, 1);
}
void DomainUnloaded(MonoProfiler* p, MonoDomain*) {
  p->port->counters().Add(MonoCounter::kAppDomainsUnloaded, 1);
}
void ThreadStarted(MonoProfiler* p, uintptr_t) {
  p->port->counters().Set(MonoCounter::kThreads, ++p->threads);
}
void ThreadStopped(MonoProfiler* p, uintptr_t) {
  p->port->counters().Set(MonoCounter::kThreads, --p->threads);
}
void MonitorContention(MonoProfiler* p, MonoObject*) {
  p->port->counters().Add(MonoCounter::kContestedMonitorEnter, 1);
}
void RuntimeInitialized(MonoProfiler* p) {
  p->ready.store(true, std::memory_order_release);
  p->port->SetRuntimeReady();
}
void ShutdownBegin(MonoProfiler* p) {
  if (p->agent) p->agent->Stop();  // before the runtime tears down what a capture would walk
}

}  // namespace

extern "C" __attribute__((visibility("default"))) void mono_profiler_init_xrpm(const char* desc) {
  xrpm::mono::ProfilerOptions opts;
  std::string error;
  if (!xrpm::mono::ParseProfilerOptions(desc ? desc : "xrpm", &opts, &error)) FailStartup(error);
  if (!xrpm::mono::ParseFrameMethod(opts.frame, &g_prof.frame, &error)) FailStartup(error);

  xrpm::agent::AgentOptions agent_opts;
  agent_opts.address = opts.address;
  agent_opts.announce = opts.announce;
  agent_opts.port = opts.port;
  if (const char* token = std::getenv(xrpm::mono::kTokenEnv)) {
    agent_opts.token = token;
    unsetenv(xrpm::mono::kTokenEnv);  // the program need not see it
  }
  if (opts.quiet) agent_opts.log = [](const std::string&) {};

  g_prof.port = new xrpm::mono::MonoPort(AppName(), g_prof.frame, &SetReporting, opts.allocations);
  g_prof.port->set_log(agent_opts.log);
  MonoProfilerHandle h = mono_profiler_create(&g_prof);
  g_prof.handle = h;
  mono_profiler_set_call_instrumentation_filter_callback(h, InstrumentFilter);
  mono_profiler_set_method_enter_callback(h, MethodEnter);
  mono_profiler_set_method_leave_callback(h, MethodLeave);
  if (opts.allocations) {  // must be decided now: Mono compiles its allocators accordingly
    mono_profiler_enable_allocations();
    mono_profiler_set_gc_allocation_callback(h, Allocation);
  }
  mono_profiler_set_gc_event_callback(h, GcEvent);
  mono_profiler_set_class_loaded_callback(h, ClassLoaded);
  mono_profiler_set_gc_root_register_callback(h, RootRegister);
  mono_profiler_set_gc_root_unregister_callback(h, RootUnregister);
  mono_profiler_set_gc_handle_created_callback(h, HandleCreated);
  mono_profiler_set_gc_handle_deleted_callback(h, HandleDeleted);
  mono_profiler_set_gc_finalizing_callback(h, Finalizing);
  mono_profiler_set_gc_finalized_object_callback(h, FinalizedObject);
  mono_profiler_set_jit_done_callback(h, JitDone);
  mono_profiler_set_exception_throw_callback(h, ExceptionThrow);
  mono_profiler_set_assembly_loaded_callback(h, AssemblyLoaded);
  mono_profiler_set_domain_loaded_callback(h, DomainLoaded);
  mono_profiler_set_domain_unloaded_callback(h, DomainUnloaded);
  mono_profiler_set_thread_started_callback(h, ThreadStarted);
  mono_profiler_set_thread_stopped_callback(h, ThreadStopped);
  mono_profiler_set_monitor_contention_callback(h, MonitorContention);
  mono_profiler_set_runtime_initialized_callback(h, RuntimeInitialized);
  mono_profiler_set_runtime_shutdown_begin_callback(h, ShutdownBegin);

  g_prof.agent = new xrpm::agent::Agent(*g_prof.port, std::move(agent_opts));
  if (!g_prof.agent->Start(&error)) FailStartup("device agent: " + error);
  WriteStatus("ok " + opts.address + ":" + std::to_string(g_prof.agent->port()));
}
