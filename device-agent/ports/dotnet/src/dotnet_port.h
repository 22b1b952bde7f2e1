// DotnetPort: the device agent's RuntimePort over a running CoreCLR, driven by the profiler's
// callbacks (profiler.h forwards them).
//
// A capture, as the agent runs it (RunWithWorldStopped -> InduceFullCollection -> WalkHeap):
//   1. RunWithWorldStopped does not stop the world itself: CoreCLR stops it only inside a
//      collection, so it notes the time limit and calls fn on the capture thread at once.
//   2. InduceFullCollection calls ICorProfilerInfo::ForceGC from the capture thread, which has
//      never run managed code. The first full (generation 2) collection after that is recorded:
//      with every managed thread stopped the runtime reports each live object with its
//      references (ObjectReferences) and every root with its kind, flags and id
//      (RootReferences2); the walk comes after the collection moved the objects, so the port
//      asks each object's size as it is reported (GetObjectSize2). ForceGC returns when the
//      world runs again. A ForceGC or
//      GC event mask the runtime refuses while still starting is retried until the time limit; a
//      collection that reported no objects (another collection came first) is forced again, at most
//      three times. The GC events (COR_PRF_MONITOR_GC: the heap walk, roots) come in one of two
//      modes, chosen at start-up (EventMode):
//        kPerCapture  background collections are off in the process (DOTNET_gcConcurrent=0,
//                     which xrpm-dotnet sets): the runtime then lets the profiler turn the GC
//                     events on for the capture's collection and off after it; otherwise only
//                     collection start and end are reported (COR_PRF_HIGH_BASIC_GC, counters),
//                     and collections cost what they cost without a profiler (with background
//                     collections off, which itself made a GC-heavy loop ~2x slower:
//                     docs/DOTNET.md).
//        kAlways      otherwise: the runtime refuses the GC events after start-up while
//                     background collections are on, so they are asked for at start-up, which
//                     turns background collections off. The runtime then walks the heap for the
//                     profiler after every collection: outside a capture the port answers the
//                     walk's first object with an error (the runtime stops calling), except
//                     for an induced collection (GC.Collect, or another tool's forced
//                     collection: dotnet-gcdump reads the same walk through EventPipe), whose
//                     walk goes on unrecorded. Every collection also reports its roots.
//   2'. With the frame method's hook (frame_hook.h) and the method returned within the frame
//      window, the game thread is held in the method's exit call at its next return while the
//      collection is forced (HoldAtFrameEnd / Release); a game that did not return in time is
//      collected where it is, and a collection that caught the game thread inside the method
//      is not recorded and the capture tries again (at most five times, then it records where
//      it is). The capture's log line says where the game was stopped and after which frame.
//      The game's pause is the recorded collection, from where the game thread was held when it
//      was (WorldStoppedAtNs); the wait for the frame boundary before it is the capture's stop
//      wait, not part of the pause.
//   2''. A capture that joins another tool's collection (JoinInducedCollection, `xrpm capture
//      --join-induced-gc`) forces none: it arms the recording for the next full collection
//      whose reason is "induced" (dotnet-gcdump's, through EventPipe, or the program's
//      GC.Collect) and waits up to its time limit for it (kPerCapture: with the GC events on
//      for that wait). The runtime walks that collection's heap once, for the profiler and for
//      EventPipe alike, so the capture and the other tool read the same objects. A collection
//      that reported no objects is not the one: the wait goes on. At the time limit, or when the
//      capture is cancelled, the recording is disarmed under the record's lock; a collection
//      already recording is waited for, so no GC thread writes the record after the wait.
//      Layouts and static fields are prepared before the wait (RunWithWorldStopped), so a
//      class first loaded during it has no values, slots or static roots in this capture.
//   3. WalkHeap tells the sink the world resumed (the game's pause ended with the collection),
//      adds the non-GC heap's objects the record references (frozen string literals: found
//      with IsFrozenObject, they never move), names the classes and hands the record to the
//      sink as a walk (heap_walker.h). Nothing is read from objects then (they may have moved;
//      the frozen ones do not); ClassIDs and FunctionIDs stay valid.
// The snapshot walk (set_snapshot_walk; xrpm-dotnet's default; not for a joined collection or
// one another tool induced, whose walk is the other tool's too): at the recorded collection's first
// object the GC thread makes a copy-on-write child (record_child.h), which records the rest of the
// heap report and sends the record; the parent's report ends there, so the game's pause is the
// collection, the roots and the clone, and WalkHeap first receives the record, the game running. A
// child that fails (killed, hung) fails that capture; the port records in the pause from then on.
// Fields and values (field_layouts.h): the layouts of the classes loaded since the last capture
// are computed before the collection (RunWithWorldStopped, program running, with the static
// fields); inside it, as each object is reported, its slots and values are read from its memory
// into the record; the walk describes each type's layout and sends what the sink's detail asks
// for (values and text cut at its string cap only with detail.values).
// After an attach (set_attached) the class load events miss the classes loaded before it: the
// first capture adds the classes of the compiled code (loaded_classes.h) and each capture the
// classes of the objects it met, for the next capture's static fields and layouts.
// Frames (dotnet_frames.h): with the frame method's hook, one record per frame, its collections
// counted at GarbageCollectionFinished; with --allocations (dotnet_allocations.h) its exact
// allocations and allocation samples with managed stacks from every thread.
// Roots: stack -> one kThread container (id 0: the runtime does not say which thread) and a
// kJitFrame container per method (id2: its FunctionID; labelled with the method's name when the
// sink asks for field detail); finalizer queue -> kFinalized; GC handles -> kStrongPtr, table 2
// strong, 3 pinned (flag pinned), 0 weak (flag weak: a live weak handle's target, which does not
// keep it alive); others -> kRootTable. Static reference fields (static_roots.h) -> a kClass
// container per declaring class (id1: its type id), each root's slot the field's index in the
// statics of the class's layout (its static reference fields); the runtime's handle to the
// statics storage stays a handle root.
//
// Thread-safety: RuntimePort methods from the agent's threads (one capture at a time;
// ForecastCaptureSizes from its network thread, whenever a host connects); the On*
// callbacks from the runtime's GC threads, inside a collection, except OnClassLoaded (the
// loading thread), OnObjectAllocated and OnEventPipeEvent (the allocating thread;
// dotnet_allocations.h).
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <string>

#include "corprof_abi.h"
#include "dotnet_allocations.h"
#include "dotnet_counters.h"
#include "dotnet_game_api.h"
#include "dotnet_origins.h"
#include "field_layouts.h"
#include "frame_hook.h"
#include "heap_record.h"
#include "managed_threads.h"
#include "record_child.h"
#include "static_roots.h"
#include "xrpm/agent/runtime_port.h"

namespace xrpm {
namespace dotnet {

class DotnetPort final : public agent::RuntimePort {
 public:
  // How the GC events are asked for (see the class comment).
  enum class EventMode : uint8_t { kPerCapture, kAlways };
  // What every mask holds: class loads (static_roots.h) and the threads' ends and names
  // (managed_threads.h).
  static constexpr cor::DWORD kAlwaysMaskLow = cor::kMonitorClassLoads | cor::kMonitorThreads;
  // The event mask outside captures in `mode` (low, high words of SetEventMask2).
  static cor::DWORD IdleMaskLow(EventMode mode) {
    return kAlwaysMaskLow | (mode == EventMode::kAlways ? cor::kMonitorGc : 0);
  }
  static cor::DWORD IdleMaskHigh(EventMode mode) {
    return mode == EventMode::kAlways ? 0 : cor::kHighBasicGc;
  }
  // What allocation origins add (dotnet_origins.h): per capture, the compacting collections'
  // moves between captures (the full GC events, always on in kAlways, report them already).
  static cor::DWORD OriginsMaskHigh(EventMode mode, bool origins) {
    return origins && mode == EventMode::kPerCapture ? cor::kHighMonitorGcMovedObjects : 0;
  }

  DotnetPort(cor::ICorProfilerInfo10* info, std::string app_name, std::string runtime_version,
             EventMode mode);
  DotnetPort(const DotnetPort&) = delete;
  DotnetPort& operator=(const DotnetPort&) = delete;

  // ---- RuntimePort ----
  agent::RuntimeInfo Info() const override;
  uint64_t BootMillis() const override;
  size_t CounterCount() const override { return kDotnetCounterCount; }
  agent::CounterInfo DescribeCounter(size_t index) const override {
    return DotnetCounters::Describe(index);
  }
  size_t SampleCounters(agent::CounterValue* out, size_t count) const override {
    return counters_.Sample(out, count);
  }
  bool RunWithWorldStopped(void (*fn)(void* ctx), void* ctx, uint32_t timeout_ms) override;
  void InduceFullCollection() override;
  // The start of the recorded collection (OnGcStarted's time), 0 before the first.
  int64_t WorldStoppedAtNs() const override {
    return recorded_start_ns_.load(std::memory_order_acquire);
  }
  // The recorded collection's first root or object report (the collection proper ended).
  int64_t HeapReportStartNs() const override {
    return report_start_ns_.load(std::memory_order_acquire);
  }
  // Before any capture: objects guessed from the small-object generations' bytes in use at the
  // runtime's latest collection (HeapUse), 3 references each. Any thread.
  bool ForecastCaptureSizes(uint64_t* objects, uint64_t* refs) const override;
  // The record's objects (the non-GC heap's found after the pause included) and references,
  // while the walk reports them.
  bool WalkSizes(uint64_t* objects, uint64_t* refs) const override {
    *objects = walk_objects_.load(std::memory_order_acquire);
    *refs = walk_refs_.load(std::memory_order_acquire);
    return *objects != 0;
  }
  bool JoinsInducedCollections() const override { return true; }
  void JoinInducedCollection(uint32_t timeout_ms, const std::atomic<int64_t>* cancelled) override;
  void WalkHeap(agent::HeapInfoCallback& sink) override;
  // Layouts, slots, values and string text (field_layouts.h), a stack frame's method
  // ("Graph.Program.Main").
  bool ReportsFields() const override { return true; }
  bool ReportsValues() const override { return true; }
  // Frame records (dotnet_frames.h) while the frame method's hook is on (launched, not
  // attached); with --allocations also their allocations and allocation samples, one per
  // `sample_bytes` on average (dotnet_allocations.h).
  bool SupportsFrameEvents() const override { return frame_ != nullptr; }
  bool SetFrameEventSink(agent::FrameEventSink* sink, uint32_t sample_bytes) override {
    if (!frame_) return false;
    if (allocations_ && sink) allocations_->SetSubscription(sample_bytes);
    frame_->frames().SetSink(sink);
    if (allocations_ && !sink) allocations_->SetSubscription(0);
    return true;
  }
  // The sampled route's samples follow the runtime's interval (dotnet_allocations.h).
  uint32_t FrameSampleBytes(uint32_t requested) const override {
    return allocations_ ? allocations_->SampleBytes(requested) : requested;
  }
  // The sampled route's frame rows carry the samples' weights, not a count.
  bool FrameTotalsEstimated() const override {
    return allocations_ && allocations_->route() == AllocationRoute::kSampled;
  }

  // Xrpm.Profiler.Marker / RequestCapture (dotnet_game_api.h), each with the frame in progress
  // (the frame hook's count; 0 without the hook).
  bool SetGameEventSink(agent::GameEventSink* sink) override { return game_.SetSink(sink); }
  agent::GameEvents& game_events() { return game_; }

  // The frame method's hook (frame_hook.h): captures then hold the game at a frame's end
  // when the method returned within its window. Before the agent starts.
  void set_frame_hook(FrameHook* hook) {
    frame_ = hook;
    if (hook) hook->frames().set_start(start_);  // frame times on BootMillis' clock
  }
  // Allocations reported (--allocations; dotnet_allocations.h): its route's bits go into every
  // event mask. Before the agent starts.
  void set_allocations(DotnetAllocations* allocations) { allocations_ = allocations; }
  // Allocation origins kept (dotnet_origins.h; with --allocations unless turned off): each
  // collection's moves update them (OriginsMaskHigh), each capture reports them. Before the
  // agent starts.
  void set_origins(DotnetOrigins* origins) { origins_ = origins; }
  // The profiler was attached to a running process: the classes loaded before are found at the
  // first capture (loaded_classes.h) and from the objects each capture meets. Before the agent
  // starts.
  void set_attached() { attached_ = true; }
  // The capture's heap report recorded in a copy-on-write child (the snapshot walk, above) or
  // in the pause. Before the agent starts.
  void set_snapshot_walk(bool on) { snapshot_walk_.store(on); }
  // Where the port's lines go (the agent's log function; empty: stderr, "xrpm-agent: ").
  void set_log(std::function<void(const std::string&)> log) { log_ = std::move(log); }
  const std::function<void(const std::string&)>& log() const { return log_; }
  // Logs the event mode ("GC events per capture ..." / "GC events always on ...").
  void LogEventMode() const;

  // ---- runtime callbacks (profiler.h) ----
  void OnGcStarted(int32_t generation_count, const cor::BOOL* collected, int32_t reason);
  void OnGcFinished();
  // A collection's survivors (MovedReferences2 / SurvivingReferences2), for the origins.
  void OnMoved(const cor::ObjectID* from, const cor::ObjectID* to, const size_t* lengths,
               cor::ULONG count) {
    if (origins_) origins_->Moved(from, to, lengths, count);
  }
  void OnSurvived(const cor::ObjectID* starts, const size_t* lengths, cor::ULONG count) {
    if (origins_) origins_->Survived(starts, lengths, count);
  }
  void OnClassLoaded(cor::ClassID klass) {
    counters_.Add(DotnetCounter::kClassesLoaded, 1);
    statics_.OnClassLoaded(klass);
  }
  void OnThreadDestroyed(cor::ThreadID thread) { threads_.OnDestroyed(thread); }
  void OnThreadNameChanged(cor::ThreadID thread, const cor::WCHAR* name, cor::ULONG length) {
    threads_.OnNameChanged(thread, name, length);
  }
  void OnObjectAllocated(cor::ObjectID object, cor::ClassID klass) {
    if (allocations_) allocations_->OnAllocated(object, klass);
  }
  void OnEventPipeEvent(uint32_t event_id, const uint8_t* data, size_t bytes,
                        const cor::UINT_PTR* ips, uint32_t ip_count) {
    if (allocations_) allocations_->OnEventPipeEvent(event_id, data, bytes, ips, ip_count);
  }
  // False: the runtime may stop this collection's heap walk (it is not recorded).
  bool OnObjectReferences(cor::ObjectID object, cor::ClassID klass, cor::ULONG count,
                          const cor::ObjectID* refs);
  void OnRootReferences(cor::ULONG count, const cor::ObjectID* objects,
                        const cor::GcRootKind* kinds, const cor::GcRootFlags* flags,
                        const cor::UINT_PTR* ids);

 private:
  void Log(const std::string& line) const;
  bool Collect(std::string* failure);  // one capture's forced collection(s), recorded
  // Sizes to reserve before the first capture, from the GC heap's bytes in use.
  HeapRecord::Sizes FirstRecordGuess() const;
  // The last record's sizes, grown with the heap's bytes in use since (reserved before a capture).
  HeapRecord::Sizes ScaledLastSizes() const;
  // One capture's wait for an induced collection, recorded (2'' above).
  bool Join(uint32_t timeout_ms, const std::atomic<int64_t>* cancelled, std::string* failure);
  // Records one object (its non-null references among refs[0..count)), its slots and values
  // read from its memory now. Throws std::bad_alloc.
  void RecordObject(RecordedObject o, const cor::ObjectID* refs, size_t count);
  // Appends the non-GC heap's objects the record references, and to *named_recorded those of
  // `named` (sorted) the record holds. A record arriving from `child` is read as it comes;
  // false with *error when its bytes stopped coming (the child reaped). Throws bad_alloc.
  bool AddFrozenObjects(const std::vector<uint64_t>& named, std::vector<uint64_t>* named_recorded,
                        RecordChild* child, std::string* error);
  // Every range of the GC heap's generations now (GetGenerationBounds, however many); false
  // when the runtime gave none.
  bool GenerationBounds(std::vector<cor::GcGenerationRange>* out) const;
  // Bytes in use in `ranges`: all, generation 0's, the large and pinned object heaps'.
  struct GenerationUse {
    uint64_t all = 0, generation0 = 0, large = 0;
  };
  static GenerationUse UseOf(const std::vector<cor::GcGenerationRange>& ranges);
  // The generations' bytes in use at the runtime's latest collection (all zero: no bounds yet).
  GenerationUse HeapUse() const;
  void OriginRanges();  // gc_bounds_ -> origin_ranges_
  // The origins' view of the collection starting and ending (dotnet_origins.h).
  void BeginOriginsCollection(int32_t generation_count, const cor::BOOL* collected);
  void EndOriginsCollection();
  // The capture's origins line ("" without origins).
  std::string OriginsLine(size_t reported) const;
  // Reports the record to the sink; a snapshot process's (child: its head received) is read
  // from it twice as the walk goes, a window at a time (record_child.h).
  void Walk(agent::HeapInfoCallback& sink, RecordChild* child);
  // The snapshot walk's roots and record head from the child into record_ (the game running);
  // false when it failed (ChildFailed).
  bool ReceiveFromChild(RecordChild& child, agent::HeapInfoCallback& sink);
  // The child failed (`error`): the sink gets WalkFailed and kEnd, and unless the capture was
  // cancelled the port records in the pause from now on. With or without record_mu_ held
  // (the walk's own sink calls are made under it).
  void ChildFailed(std::string error, agent::HeapInfoCallback& sink);
  void LogStopPoint();
  cor::DWORD ExtraMaskLow() const {
    return (frame_ ? FrameHook::kMaskLow : 0) | (allocations_ ? allocations_->mask_low() : 0);
  }
  static uint64_t FrameInProgress(const void* port) {
    const FrameHook* hook = static_cast<const DotnetPort*>(port)->frame_;
    return hook ? hook->completed() : 0;
  }
  cor::DWORD ExtraMaskHigh() const {
    return (allocations_ ? allocations_->mask_high() : 0) |
           OriginsMaskHigh(mode_, origins_ != nullptr);
  }

  cor::ICorProfilerInfo10* const info_;
  const EventMode mode_;
  const std::string app_name_;
  const std::string runtime_version_;
  const std::chrono::steady_clock::time_point start_;
  std::function<void(const std::string&)> log_;
  DotnetCounters counters_;
  ManagedThreads threads_;  // whose thread statics a capture reads
  StaticRoots statics_;
  FieldLayouts layouts_;  // after statics_: Prepare takes the classes Resolve looked at
  std::atomic<int64_t> gc_start_ns_{0};
  std::atomic<uint8_t> gc_generation_{0};      // the collection in progress's highest generation
  std::atomic<int64_t> recorded_start_ns_{0};  // the last recorded collection's start
  std::atomic<int64_t> report_start_ns_{0};    // its first root or object report
  std::atomic<uint64_t> walk_objects_{0}, walk_refs_{0};  // WalkSizes: the record being walked
  FrameHook* frame_ = nullptr;
  DotnetAllocations* allocations_ = nullptr;
  DotnetOrigins* origins_ = nullptr;
  std::vector<cor::GcGenerationRange> gc_bounds_;  // GC threads: the collection's bounds
  uint64_t large_after_gc_ = 0;  // GC threads: the large and pinned heaps after the last one
  std::atomic<uint64_t> in_use_after_gc_{0};  // bytes in use after the latest collection
  std::atomic<uint64_t> recorded_in_use_{0};  // the same after the last recorded one
  std::vector<DotnetOrigins::GenerationRange>
      origin_ranges_;  // GC threads: gc_bounds_ for the origins
  bool attached_ = false;
  bool census_done_ = false;  // the capture thread's
  agent::GameEvents game_{start_, &DotnetPort::FrameInProgress, this};

  // The capture (the capture thread, and the GC callbacks while armed_).
  std::chrono::steady_clock::time_point deadline_;
  std::atomic<bool> armed_{false};      // record the next full collection
  std::atomic<bool> recording_{false};  // this collection is being recorded
  std::atomic<bool> recorded_{false};
  std::atomic<bool> induced_{false};     // the collection under way was induced
  std::atomic<bool> join_{false};        // armed_ for an induced collection only (Join)
  std::condition_variable recorded_cv_;  // with record_mu_: a recorded collection finished
  // The frame boundary (frame_hook.h): this capture waits for frame ends; a collection that
  // caught the game thread inside the frame method is not recorded (at most kMaxMidFrame times).
  std::atomic<bool> frame_wait_{false};
  std::atomic<bool> caught_in_frame_{false};
  std::atomic<int64_t> hold_start_ns_{0};  // the game thread held at a frame end since (or 0)
  std::atomic<bool> stopped_held_{false};  // the recorded collection's game thread was held
  std::atomic<int> mid_frame_retries_{0};
  std::atomic<bool> stopped_inside_{false};  // the recorded collection's
  std::atomic<uint64_t> stopped_after_{0};   // frames completed at the recorded collection
  std::mutex record_mu_;  // GC threads during the recorded collection (server GC: several)
  HeapRecord record_;
  // The snapshot walk: asked for and not failed yet; the recorded collection's child (made on
  // the GC thread under record_mu_, received by WalkHeap); in the child, the object count of
  // its next sign of life.
  std::atomic<bool> snapshot_walk_{false};
  std::atomic<bool> forcing_{false};  // the capture thread is in ForceGC
  std::unique_ptr<RecordChild> child_;
  size_t child_next_alive_ = 0;
  std::string snapshot_error_;  // why the last recorded collection made no child (record_mu_)
  // Test hook (XRPM_DOTNET_SNAPSHOT_STOP=1 when the port is made): the first child stops itself
  // before it records (record_child.h), so a test can kill it at a known point.
  bool snapshot_stop_for_test_ = false;
  bool snapshot_stop_tested_ = false;  // the last child was the hook's (under record_mu_)
  HeapRecord::Sizes last_sizes_;       // the last record's, reserved before the next collection
  std::string failure_;                // why the last InduceFullCollection recorded nothing
  int64_t resolve_us_ = 0;             // the last StaticRoots::Resolve
  int64_t layouts_us_ = 0;             // the last FieldLayouts::Prepare
};

}  // namespace dotnet
}  // namespace xrpm
