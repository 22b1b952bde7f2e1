// Runtime: the emulated .NET Compact Framework runtime of one device: an AppDomain running one
// application, its managed heap, loaded classes, threads, statics, GC handles, finalizer queue,
// collector, performance counters and heap walker. It is the RuntimePort the device agent uses.
//
// Managed code (the scenarios) runs on the thread that holds the world: the game thread inside a
// frame (GameLoop brackets frames with world().EnterMutator/LeaveMutator), or any thread while
// no game thread runs (setup, tests). Allocation may collect, which may move every object: an
// address held in a C++ variable is valid only until the next allocation. Objects that must
// survive an allocation are kept in GC-visible slots (frame locals via MethodFrameScope, statics,
// handles, fields of rooted objects) and re-read afterwards.
//
// Frames and allocation samples (RuntimePort::SetFrameEventSink): BeginFrame/EndFrame bracket a
// frame; EndFrame reports its FrameRecord (duration, exact bytes and objects, the collections
// since the previous frame and their pause, the bytes left in the 1 MB budget). Allocate runs
// an AllocationSampler (one compare per allocation when idle) and reports each sampled
// allocation with its type and the allocating thread's managed frames, innermost first. A new
// sink or interval takes effect at the next BeginFrame; sink calls hold sink_mu_, so after
// SetFrameEventSink returns the previous sink is never called again.
//
// Allocation origins: every allocation records the frame counter (frames completed) and the
// allocating thread's interned stack (sites(), allocation_sites.h) in a side table the collector
// keeps current across compaction and sweeps (origins(), object_origins.h); the heap walk reports
// them (AllocationClock, DescribeSite, ObjectOrigin). Cost on the allocation path: one cached
// site read and one 12-byte vector push (see docs/PERFORMANCE.md); 12 B per live object.
//
// Thread-safety: the RuntimePort methods are thread-safe as runtime_port.h documents (counters
// are sampled from their last publication; InduceFullCollection and WalkHeap need the world
// stopped). Everything else belongs to the thread that holds the world.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <mutex>
#include <stdexcept>
#include <string>
#include <string_view>

#include "xrpm/agent/runtime_port.h"
#include "xrpm/emulator/allocation_ledger.h"
#include "xrpm/emulator/allocation_sites.h"
#include "xrpm/emulator/collector.h"
#include "xrpm/emulator/core_types.h"
#include "xrpm/emulator/counters.h"
#include "xrpm/emulator/finalizer_queue.h"
#include "xrpm/emulator/handle_table.h"
#include "xrpm/emulator/managed_heap.h"
#include "xrpm/emulator/method_table.h"
#include "xrpm/emulator/object_origins.h"
#include "xrpm/emulator/root_set.h"
#include "xrpm/emulator/runtime_roots.h"
#include "xrpm/emulator/statics.h"
#include "xrpm/emulator/threads.h"
#include "xrpm/emulator/type_table.h"
#include "xrpm/emulator/world_lock.h"

namespace xrpm::emulator {

struct RuntimeConfig {
  std::string app_name = "bubbles.exe";
  uint64_t heap_reserve_bytes = 3ull << 30;  // address space for the GC heap
  uint32_t gc_budget_bytes = 1u << 20;       // NETCF collects after each 1 MB allocated
  uint64_t boot_offset_ms = 0x763f000;       // device uptime when the runtime starts (~34 h)
  uint32_t finalizers_per_frame = 8;         // the finalizer thread's share of a frame
  // Test aid: collect and compact before every allocation, and fill freed memory with 0xCD,
  // so that a stale address held across an allocation is caught by VerifyHeap().
  bool gc_stress = false;
  // Record every object's allocation frame and site (object_origins.h) and report them in heap
  // walks. Off only for the benchmark's baseline.
  bool record_origins = true;
  // A capture's walk (WalkHeap inside RunWithWorldStopped) in a copy-on-write child of the
  // process (agent/snapshot_walk.h): the game resumes once the child exists and the walk is
  // replayed into the sink while it runs, so its pause holds the collection and the fork only.
  // Off: the walk runs in the pause, as on the device (NETCF has no fork). On Linux only.
  bool snapshot_walks = false;
};

// Thrown when the managed heap's reservation is exhausted even after a full collection.
class ManagedOutOfMemory : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class Runtime final : public agent::RuntimePort {
 public:
  explicit Runtime(RuntimeConfig config = {});
  ~Runtime() override;
  Runtime(const Runtime&) = delete;
  Runtime& operator=(const Runtime&) = delete;

  const RuntimeConfig& config() const { return config_; }
  TypeTable& types() { return types_; }
  const TypeTable& types() const { return types_; }
  ManagedHeap& heap() { return heap_; }
  const ManagedHeap& heap() const { return heap_; }
  MethodTable& methods() { return methods_; }
  const MethodTable& methods() const { return methods_; }
  ThreadTable& threads() { return threads_; }
  const ThreadTable& threads() const { return threads_; }
  HandleTable& handles() { return handles_; }
  Statics& statics() { return statics_; }
  FinalizerQueue& finalizers() { return finalizers_; }
  RuntimeRoots& runtime_roots() { return roots_; }
  RootSet& roots() { return root_set_; }
  Counters& counters() { return counters_; }
  const Counters& counters() const { return counters_; }
  Collector& gc() { return gc_; }
  WorldLock& world() { return world_; }
  const CoreTypes& core() const { return core_; }
  const SiteTable& sites() const { return sites_; }
  ObjectOrigins& origins() { return origins_; }
  ManagedThread& main_thread() { return threads_.all()[0]; }
  ManagedThread& finalizer_thread() { return threads_.all()[1]; }
  // The managed thread whose code runs now: the main thread, or the finalizer thread while it
  // runs finalizers. BCL helpers push their frames on it.
  ManagedThread& current_thread() { return current_ ? *current_ : main_thread(); }

  // ---- allocation (may collect: see the class comment) ----
  Addr New(TypeIndex t);
  Addr NewArray(TypeIndex t, uint32_t length);
  Addr NewString(std::string_view ascii);
  // GC.Collect(): a full compacting collection requested by managed code.
  void GcCollect();
  // While suppressed, allocation does not collect (a startup phase building a large heap at
  // once, like GC.TryStartNoGCRegion); what it allocated does not count against the budget.
  void SuppressCollections(bool on) {
    no_gc_depth_ += on ? 1 : -1;
    if (no_gc_depth_ == 0) bytes_since_gc_ = 0;
  }

  // ---- object access ----
  TypeIndex TypeOf(Addr o) const { return heap_.Words(o)[0] & kTypeMask; }
  uint32_t SizeOf(Addr o) const { return types_.SizeOf(heap_.Words(o)); }
  Addr Ref(Addr o, uint16_t off) const { return heap_.Words(o)[off / 4]; }
  void SetRef(Addr o, uint16_t off, Addr v) { heap_.Words(o)[off / 4] = v; }
  int32_t I32(Addr o, uint16_t off) const { return static_cast<int32_t>(heap_.Words(o)[off / 4]); }
  void SetI32(Addr o, uint16_t off, int32_t v) {
    heap_.Words(o)[off / 4] = static_cast<uint32_t>(v);
  }
  // Unaligned-safe loads and stores of value fields (Single, Int64/TimeSpan).
  template <class T>
  T Load(Addr o, uint16_t off) const {
    T v;
    std::memcpy(&v, heap_.At(o) + off, sizeof v);
    return v;
  }
  template <class T>
  void Store(Addr o, uint16_t off, T v) {
    std::memcpy(heap_.At(o) + off, &v, sizeof v);
  }
  float F32(Addr o, uint16_t off) const { return Load<float>(o, off); }
  void SetF32(Addr o, uint16_t off, float v) { Store(o, off, v); }
  int64_t I64(Addr o, uint16_t off) const { return Load<int64_t>(o, off); }
  void SetI64(Addr o, uint16_t off, int64_t v) { Store(o, off, v); }
  uint32_t Length(Addr arr) const { return heap_.Words(arr)[2]; }
  Addr Elem(Addr arr, uint32_t i) const { return heap_.Words(arr)[3 + i]; }
  void SetElem(Addr arr, uint32_t i, Addr v) { heap_.Words(arr)[3 + i] = v; }
  uint8_t* ArrayData(Addr arr) { return heap_.At(arr) + kArrayHeaderBytes; }
  std::string StringValue(Addr str) const;  // ASCII view of a System.String

  // ---- runtime services ----
  Addr LoadAssembly(std::string_view name);       // an Assembly object, rooted internally
  Addr Intern(std::string_view literal);          // String.Intern: rooted in the root table
  Addr TypeObject(TypeIndex t);                   // typeof(T): a RuntimeType in the root table
  ManagedThread& CreateThread(std::string name);  // with its System.Threading.Thread object
  // A managed method frame was entered: JIT-compiles the method on its first call.
  void EnterMethod(MethodId m);
  // Pushes a frame that stays until popped explicitly (a thread's outer frames, a frame a thread
  // is parked in). Returns its depth. MethodFrameScope is the scoped form.
  size_t PushFrame(ManagedThread& t, MethodId m, uint32_t locals,
                   agent::ContainerType kind = agent::ContainerType::kJitFrame);
  // Allocates an exception of type `t` with `message`, "throws" and catches it.
  void ThrowAndCatch(TypeIndex t, std::string_view message);

  // ---- frame boundary (game thread) ----
  // Start of a frame: the finalizer thread runs up to config().finalizers_per_frame finalizers.
  void BeginFrame();
  // End of a frame: memory and loader counters, then the counters are published.
  void EndFrame();
  size_t RunPendingFinalizers(size_t max);

  // ---- game events (game_events.h; the thread that holds the world) ----
  // What Xrpm.Profiler.Marker / RequestCapture / Scope do in a real game: a marker or capture
  // request goes to the agent's marker queue (when an agent installed one; text cut at
  // agent::kMaxMarkerTextBytes), a scope tags the allocation samples taken while it is open.
  // `tag` must outlive its scope (a literal). Cost: one uncontended mutex and a copy of the text
  // per marker (a relaxed load with no agent); two stores per scope.
  void Marker(const char* text) { PostMarker(agent::MarkerKind::kMarker, text); }
  void RequestCapture(const char* label) { PostMarker(agent::MarkerKind::kCaptureRequest, label); }
  void EnterScope(const char* tag);
  void LeaveScope() { scopes_.Leave(); }

  // Checks heap consistency: the heap parses exactly up to top(); every reference field and every
  // root points at an object start; no GC bit is left set. Returns "" or the first problem.
  std::string VerifyHeap();
  // The origin table against the heap (part of VerifyHeap): one entry per object, in order.
  std::string VerifyOrigins();

  // ---- RuntimePort ----
  agent::RuntimeInfo Info() const override;
  uint64_t BootMillis() const override;
  size_t CounterCount() const override { return kCounterCount; }
  agent::CounterInfo DescribeCounter(size_t index) const override {
    return Counters::Describe(index);
  }
  size_t SampleCounters(agent::CounterValue* out, size_t count) const override {
    return counters_.Sample(out, count);
  }
  bool RunWithWorldStopped(void (*fn)(void* ctx), void* ctx, uint32_t timeout_ms) override;
  void InduceFullCollection() override;
  // Inside RunWithWorldStopped with config().snapshot_walks: a walk in a child, replayed after
  // the game resumed (the sink's WorldResumed says when); else, or when no child can be made,
  // the walk in the pause (WalkPaused).
  void WalkHeap(agent::HeapInfoCallback& sink) override;
  void WalkPaused(agent::HeapInfoCallback& sink);
  bool SetFrameEventSink(agent::FrameEventSink* sink, uint32_t sample_bytes) override;
  bool SupportsFrameEvents() const override { return true; }
  bool SetGameEventSink(agent::GameEventSink* sink) override;
  // Layouts, slots, labels and values (heap_walk.cpp, field_reporter.h).
  bool ReportsFields() const override { return true; }
  bool ReportsValues() const override { return true; }

  // Test aid: every allocation from now on is also recorded exactly in `ledger` (nullptr stops).
  void set_allocation_ledger(AllocationLedger* ledger) { ledger_ = ledger; }
  // Frames reported so far (BeginFrame..EndFrame pairs): the frame counter that allocation
  // origins record.
  uint64_t frames_ended() const { return frame_number_; }
  // The allocation site of the current thread's stack now (interned on first use).
  SiteId CurrentSite();

  // Called by the collector when a collection ends (updates memory counters, publishes).
  void OnCollectionDone(const GcResult& r);

 private:
  Addr Allocate(TypeIndex t, uint32_t size, uint32_t length);
  void UpdateMemoryCounters();
  void SyncLoaderCounters();
  void ApplyFrameSink();
  void ReportSample(TypeIndex t, uint32_t size);
  void ReportFrame();
  void PostMarker(agent::MarkerKind kind, const char* text);
  uint64_t DeviceMicros(std::chrono::steady_clock::time_point t) const;

  RuntimeConfig config_;
  std::chrono::steady_clock::time_point start_;
  TypeTable types_;
  ManagedHeap heap_;
  MethodTable methods_;
  ThreadTable threads_;
  HandleTable handles_;
  Statics statics_;
  FinalizerQueue finalizers_;
  RuntimeRoots roots_;
  RootSet root_set_;
  Counters counters_;
  Collector gc_;
  WorldLock world_;
  // The capture thread's, inside RunWithWorldStopped: the world is stopped for it, and a
  // snapshot walk resumed it already (RunWithWorldStopped then does not).
  bool world_stopped_ = false, resumed_early_ = false;
  bool snapshot_broke_ = false;  // a child hung or died: walk paused from then on
  CoreTypes core_;
  SiteTable sites_;
  ObjectOrigins origins_;

  uint64_t bytes_since_gc_ = 0;
  uint64_t frame_bytes_ = 0;
  int no_gc_depth_ = 0;
  size_t classes_counted_ = 0;
  size_t methods_counted_ = 0;
  size_t app_domain_slot_ = 0;
  ManagedThread* current_ = nullptr;
  AllocationLedger* ledger_ = nullptr;

  // ---- frames and allocation samples ----
  std::mutex sink_mu_;                        // held for every sink call and sink change
  agent::FrameEventSink* sink_ = nullptr;     // guarded by sink_mu_
  uint32_t sink_sample_bytes_ = 0;            // guarded by sink_mu_
  std::atomic<uint64_t> sink_generation_{0};  // bumped by SetFrameEventSink
  uint64_t sink_applied_ = 0;                 // game thread: generation in force
  bool frames_on_ = false;                    // game thread: a sink was in force at BeginFrame
  agent::AllocationSampler sampler_;
  uint64_t frame_number_ = 0;
  bool in_frame_ = false;
  std::chrono::steady_clock::time_point frame_begin_, last_frame_end_;
  uint64_t frame_objects_ = 0;
  uint64_t gc_pause_us_total_ = 0, gc_pause_us_reported_ = 0;
  uint64_t gcs_reported_ = 0;
  uint32_t gc_kinds_pending_ = 0;  // the kinds of the collections since the last frame row

  // ---- game events ----
  agent::GameEventSlot game_sink_;
  agent::ScopeTagStack scopes_;  // the thread that holds the world
};

// RAII: collections suppressed while alive (see Runtime::SuppressCollections).
class NoGcScope {
 public:
  explicit NoGcScope(Runtime& rt) : rt_(rt) { rt_.SuppressCollections(true); }
  ~NoGcScope() { rt_.SuppressCollections(false); }
  NoGcScope(const NoGcScope&) = delete;
  NoGcScope& operator=(const NoGcScope&) = delete;

 private:
  Runtime& rt_;
};

}  // namespace xrpm::emulator
