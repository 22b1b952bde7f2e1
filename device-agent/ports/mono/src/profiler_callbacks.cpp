// The Mono port's profiler callbacks: one Mono profiler per process, each of Mono's events
// routed to the MonoPort (class loads, roots and handles into its event log, counters, frames,
// allocations, collections, moves). Used by the profiler module (profiler_entry.cpp) and by the
// in-process walk tests (tests/mono/mono_walk_test.cpp), which embed the runtime.
//
// Thread-safety: InstallProfiler once, before the runtime initialises; the callbacks run on
// Mono's threads and only touch lock-free state or MonoPort's documented entry points.
#include "profiler_callbacks.h"

#include "class_names.h"

#include <mono/metadata/appdomain.h>
#include <mono/metadata/class.h>
#include <mono/metadata/loader.h>
#include <mono/metadata/profiler.h>

#include <atomic>
#include <string>

struct _MonoProfiler {
  xrpm::mono::MonoPort* port;
  MonoProfilerHandle handle;
  xrpm::mono::FrameMethod frame;
  std::atomic<int64_t> threads;
  std::atomic<bool> ready;       // runtime_initialized has been raised
  std::atomic<bool> port_ready;  // an assembly loaded since: the port serves captures
  void (*on_shutdown)();
};

namespace {

using xrpm::mono::EventKind;
using xrpm::mono::MonoCounter;

_MonoProfiler g_prof;  // one profiler per process; never destroyed (Mono may call late)

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
  p->port->OnAllocation(object);
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
  if (p->port->capture_gc_active() || p->port->origins_enabled())
    p->port->OnMoves(reinterpret_cast<void* const*>(objects), count);
}
// Before the runtime has finished initialising, the name from the class's own metadata
// (mono_type_get_name needs the runtime, as Mono's log profiler notes).
void ClassLoaded(MonoProfiler* p, MonoClass* klass) {
  const std::string name = p->ready.load(std::memory_order_acquire)
                               ? xrpm::mono::ClassName(klass)
                               : xrpm::mono::PlainClassName(klass);
  p->port->events().Push(EventKind::kClassLoaded, reinterpret_cast<uintptr_t>(klass), 0, 0, 0,
                         name.c_str());
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
  // The first assembly loaded after the runtime initialised (the program's own, loaded by the
  // main thread once every profiler's runtime_initialized callback has returned): from now on
  // a capture may collect. Collecting earlier can deadlock another profiler that is still
  // starting its threads from its runtime_initialized callback (Mono's log profiler does).
  if (p->ready.load(std::memory_order_acquire) && !p->port_ready.exchange(true))
    p->port->SetRuntimeReady();
}
void DomainLoaded(MonoProfiler* p, MonoDomain* domain) {
  p->port->events().Push(EventKind::kDomainLoaded, reinterpret_cast<uintptr_t>(domain));
  p->port->counters().Add(MonoCounter::kAppDomainsCreated, 1);
}
void DomainName(MonoProfiler* p, MonoDomain* domain, const char* name) {
  p->port->events().Push(EventKind::kDomainName, reinterpret_cast<uintptr_t>(domain), 0, 0, 0,
                         name ? name : "");
}
void DomainUnloading(MonoProfiler* p, MonoDomain* domain) {
  p->port->events().Push(EventKind::kDomainUnloading, reinterpret_cast<uintptr_t>(domain));
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
  // Xrpm.dll's calls: the runtime's internal-call table exists from here on, before any of the
  // program's managed code runs.
  xrpm::mono::RegisterGameApi(&p->port->game_events());
  p->ready.store(true, std::memory_order_release);
}
void ShutdownBegin(MonoProfiler* p) {
  if (p->on_shutdown) p->on_shutdown();
}

}  // namespace

namespace xrpm {
namespace mono {

void SetReporting(bool on) {
  mono_profiler_set_gc_roots_callback(g_prof.handle, on ? GcRoots : nullptr);
  if (!g_prof.port->origins_enabled())  // origins need every collection's moves
    mono_profiler_set_gc_moves_callback(g_prof.handle, on ? GcMoves : nullptr);
}

void InstallProfiler(MonoPort* port, const FrameMethod& frame, bool allocations,
                     void (*on_shutdown)()) {
  g_prof.port = port;
  g_prof.frame = frame;
  g_prof.on_shutdown = on_shutdown;
  MonoProfilerHandle h = mono_profiler_create(&g_prof);
  g_prof.handle = h;
  mono_profiler_set_call_instrumentation_filter_callback(h, InstrumentFilter);
  mono_profiler_set_method_enter_callback(h, MethodEnter);
  mono_profiler_set_method_leave_callback(h, MethodLeave);
  if (allocations) {  // must be decided now: Mono compiles its allocators accordingly
    mono_profiler_enable_allocations();
    mono_profiler_set_gc_allocation_callback(h, Allocation);
  }
  if (port->origins_enabled()) mono_profiler_set_gc_moves_callback(h, GcMoves);
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
  mono_profiler_set_domain_unloading_callback(h, DomainUnloading);
  mono_profiler_set_domain_name_callback(h, DomainName);
  mono_profiler_set_thread_started_callback(h, ThreadStarted);
  mono_profiler_set_thread_stopped_callback(h, ThreadStopped);
  mono_profiler_set_monitor_contention_callback(h, MonitorContention);
  mono_profiler_set_runtime_initialized_callback(h, RuntimeInitialized);
  mono_profiler_set_runtime_shutdown_begin_callback(h, ShutdownBegin);
}

}  // namespace mono
}  // namespace xrpm
