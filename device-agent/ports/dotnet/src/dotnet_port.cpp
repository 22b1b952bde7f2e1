// DotnetPort: the capture's collection and its recording (the walk over the record after it:
// dotnet_port_walk.cpp).
// dotnet_port_walk.cpp).
#include "dotnet_port.h"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <thread>
#include <tuple>
#include <type_traits>
#include <unordered_map>
#include <vector>

#include "loaded_classes.h"
#include "type_names.h"
#include "xrpm/agent/origin_reporter.h"
#include "xrpm/protocol/constants.h"

namespace xrpm {
namespace dotnet {
namespace {

using agent::ContainerType;
using agent::WalkResult;

using agent::NowNs;  // runtime_port.h: the clock of WorldStoppedAtNs

constexpr int kMaxCollections = 3;
constexpr int kRetryMs = 20;     // a ForceGC refused while the runtime starts is retried this often
constexpr int kMaxMidFrame = 5;  // collections that caught the game inside its frame, per capture
// Sizes guessed before a first capture: some garbage is still in the heap, and objects average
// 30-60 bytes in the heaps we measured (HeapBench 56): an object per 48 bytes in use, each with
// ~3 references and ~14 bytes of record.
constexpr uint64_t kGuessBytesPerObject = 48;
constexpr uint64_t kGuessRefsPerObject = 3;
constexpr size_t kGuessRecordBytesPerObject = 14;

}  // namespace

DotnetPort::DotnetPort(cor::ICorProfilerInfo10* info, std::string app_name,
                       std::string runtime_version, EventMode mode)
    : info_(info),
      mode_(mode),
      app_name_(std::move(app_name)),
      runtime_version_(std::move(runtime_version)),
      start_(std::chrono::steady_clock::now()),
      threads_(info),
      statics_(info),
      layouts_(info) {
  const char* stop = std::getenv("XRPM_DOTNET_SNAPSHOT_STOP");
  snapshot_stop_for_test_ = stop && std::string(stop) == "1";
}

agent::RuntimeInfo DotnetPort::Info() const {
  return agent::RuntimeInfo{"CoreCLR via xrpm-dotnet",
                            runtime_version_.c_str(),
                            app_name_.c_str(),
                            "Linux (.NET)",
                            static_cast<uint32_t>(sizeof(void*)),
                            false,
                            2,
                            1};
}

uint64_t DotnetPort::BootMillis() const {
  return static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::milliseconds>(
                                   std::chrono::steady_clock::now() - start_)
                                   .count());
}

void DotnetPort::Log(const std::string& line) const {
  if (log_)
    log_(line);
  else
    std::fprintf(stderr, "xrpm-agent: %s\n", line.c_str());
}

void DotnetPort::LogEventMode() const {
  Log(mode_ == EventMode::kPerCapture ? "GC events per capture (background collections are off)"
      : attached_
          ? "GC events always on (asked for at the attach, which turned background collections "
            "off: the runtime allows them later only without background collections)"
          : "GC events always on (background collections were on: the runtime allows them only "
            "from start-up, which turned background collections off)");
  Log(snapshot_walk_.load()
          ? "captures: the heap report recorded in a snapshot process (--walk snapshot: "
            "the game pauses for the collection and the roots)"
          : "captures: the heap report recorded in the pause (--walk paused)");
  if (allocations_ && allocations_->route() == AllocationRoute::kExact)
    Log("allocations: every allocation reported (ObjectAllocated); frames carry the game "
        "thread's, a frames subscription gets one sample per its interval (start-up interval " +
        std::to_string(allocations_->mean_bytes()) + " bytes)");
  if (allocations_)
    Log(origins_ ? "allocations: captures carry the sampled objects' allocation origins (the "
                   "collections' moves followed)"
                 : "allocations: no allocation origins in captures (no_origins)");
  if (allocations_ && allocations_->route() == AllocationRoute::kSampled)
    Log("allocations: the runtime's randomized sampling (AllocationSampled over EventPipe, one "
        "sample per " +
        std::to_string(allocations_->mean_bytes()) +
        " bytes on average); frames carry the game thread's estimate");
}

// ---- runtime callbacks ----

void DotnetPort::OnGcStarted(int32_t generation_count, const cor::BOOL* collected, int32_t reason) {
  const int64_t started_ns = NowNs();
  gc_start_ns_.store(started_ns, std::memory_order_relaxed);
  // Bytes allocated since the last collection (dotnet_counters.h): generation 0 now, and what
  // the large and pinned object heaps grew by.
  if (GenerationBounds(&gc_bounds_)) {
    const GenerationUse use = UseOf(gc_bounds_);
    const uint64_t grown = use.large > large_after_gc_ ? use.large - large_after_gc_ : 0;
    counters_.Add(DotnetCounter::kManagedBytesAllocated,
                  static_cast<int64_t>(use.generation0 + grown));
  }
  if (origins_) BeginOriginsCollection(generation_count, collected);  // objects still in place
  induced_.store(reason == cor::kGcInduced, std::memory_order_relaxed);
  counters_.Add(DotnetCounter::kGarbageCollections, 1);
  if (reason == cor::kGcInduced && !armed_.load(std::memory_order_acquire))
    counters_.Add(DotnetCounter::kCallsToGcCollect, 1);  // the program's, not a capture's
  // The highest generation it collects (0-2; the large and pinned object heaps, 3 and 4, go with
  // generation 2), and why: the profiling API tells an induced collection from the others only.
  uint8_t generation = 0;
  for (int32_t g = 0; collected && g < generation_count && g < 3; ++g)
    if (collected[g]) generation = static_cast<uint8_t>(g);
  gc_generation_.store(generation, std::memory_order_relaxed);
  const bool full = generation_count > 2 && collected && collected[2];
  const bool wanted = !join_.load(std::memory_order_acquire) || reason == cor::kGcInduced;
  if (full && wanted && armed_.load(std::memory_order_acquire)) {
    // The world is stopped: where the game thread is is settled.
    const bool inside = frame_ && frame_->in_frame();
    if (inside && frame_wait_.load(std::memory_order_acquire) &&
        mid_frame_retries_.load(std::memory_order_acquire) < kMaxMidFrame) {
      caught_in_frame_.store(true, std::memory_order_release);
      return;
    }
    stopped_inside_.store(inside, std::memory_order_relaxed);
    stopped_held_.store(hold_start_ns_.load(std::memory_order_acquire) != 0,
                        std::memory_order_relaxed);
    stopped_after_.store(frame_ ? frame_->completed() : 0, std::memory_order_relaxed);
    std::lock_guard<std::mutex> lock(record_mu_);
    if (!armed_.load(std::memory_order_acquire)) return;  // a join that just gave up (Join)
    record_.Clear();
    child_.reset();  // a child whose record no walk took (none normally: WalkHeap takes it)
    // The game's pause began where it was held, if it was (a little before the collection).
    const int64_t held_ns = hold_start_ns_.load(std::memory_order_acquire);
    recorded_start_ns_.store(held_ns != 0 && held_ns < started_ns ? held_ns : started_ns,
                             std::memory_order_release);
    report_start_ns_.store(0, std::memory_order_release);
    recording_.store(true, std::memory_order_release);
  }
}

void DotnetPort::OnGcFinished() {
  // A snapshot walk's child: its report is over. It sends the record and ends here, never
  // returning into the runtime, whose other threads it does not have. (The flag, not child_:
  // in the game the capture thread may be taking child_ while a collection of the game's
  // finishes.)
  if (RecordChild::InChild()) {
    std::lock_guard<std::mutex> lock(record_mu_);
    if (!recording_.load(std::memory_order_acquire)) RecordChild::Exit(agent::CowChild::kExitThrew);
    child_->SendAndExit(record_);
  }
  const int64_t start = gc_start_ns_.load(std::memory_order_relaxed);
  const int64_t pause_ns = start != 0 ? NowNs() - start : 0;
  const bool bounds = GenerationBounds(&gc_bounds_);
  if (origins_) EndOriginsCollection();  // survivors at their new addresses, the dead gone
  if (start != 0) counters_.Add(DotnetCounter::kGcLatencyTime, pause_ns / 1000000);
  if (frame_)
    frame_->frames().OnGc(static_cast<uint32_t>(pause_ns / 1000),
                          gc_generation_.load(std::memory_order_relaxed),
                          induced_.load(std::memory_order_relaxed) ? protocol::GcReason::kInduced
                                                                   : protocol::GcReason::kOther);
  if (bounds) {
    const GenerationUse use = UseOf(gc_bounds_);
    counters_.Set(DotnetCounter::kManagedBytesInUseAfterGc, static_cast<int64_t>(use.all));
    large_after_gc_ = use.large;
    in_use_after_gc_.store(use.all, std::memory_order_relaxed);
    if (recording_.load(std::memory_order_acquire))
      recorded_in_use_.store(use.all, std::memory_order_relaxed);
  }
  if (!recording_.load(std::memory_order_acquire)) return;
  std::lock_guard<std::mutex> lock(record_mu_);
  try {
    // Where the GC heap is, to find the references that leave it (AddFrozenObjects); all of it
    // or nothing (then every reference is looked up among the reported objects).
    record_.gc_ranges.clear();
    if (bounds)
      for (const cor::GcGenerationRange& r : gc_bounds_)
        record_.gc_ranges.push_back({r.range_start, r.range_start + r.range_length_reserved});
    statics_.Read(&record_.statics);  // the slots' references, in their final places too
    statics_.ReadThreadStatics(threads_, &record_.statics);  // the slots where they are now
  } catch (const std::exception&) {
    record_.statics.clear();
  }
  try {
    if (origins_) origins_->Snapshot(&record_.origins);  // at the addresses the walk reported
  } catch (const std::exception&) {
    record_.origins.clear();  // the capture goes on without origins
  }
  recording_.store(false, std::memory_order_release);
  armed_.store(false, std::memory_order_release);
  recorded_.store(record_.stream.object_count() > 0 || (child_ && child_->pending()),
                  std::memory_order_release);
  recorded_cv_.notify_all();
}

void DotnetPort::RecordObject(RecordedObject o, const cor::ObjectID* refs, size_t count) {
  record_.BeginObject();
  size_t nulls = 0;
  for (size_t i = 0; i < count; ++i) nulls += refs[i] == 0;
  if (nulls == 0 && std::is_same<cor::ObjectID, uint64_t>::value) {
    record_.object_refs = reinterpret_cast<const uint64_t*>(refs);  // read in place, no copy
  } else {
    record_.refs.reserve(count - nulls);
    for (size_t i = 0; i < count; ++i)
      if (refs[i] != 0) record_.refs.push_back(refs[i]);
    record_.object_refs = record_.refs.data();
  }
  o.ref_count = static_cast<uint32_t>(count - nulls);
  record_.object_ref_count = count - nulls;
  layouts_.Record(&record_, &o);
  record_.EndObject(o);
}

bool DotnetPort::OnObjectReferences(cor::ObjectID object, cor::ClassID klass, cor::ULONG count,
                                    const cor::ObjectID* refs) {
  if (!recording_.load(std::memory_order_acquire))
    return induced_.load(std::memory_order_relaxed);  // walked on for another tool
  std::lock_guard<std::mutex> lock(record_mu_);
  const bool in_child = RecordChild::InChild();
  if (child_ && !in_child) return false;  // the child records the report: the parent's ends
  if (record_.stream.object_count() == 0 && report_start_ns_.load(std::memory_order_relaxed) == 0)
    report_start_ns_.store(NowNs(), std::memory_order_release);
  // Not when another tool walks this collection too (a joined capture, or an induced collection
  // that is not the port's ForceGC: dotnet-gcdump's), whose walk the parent's error would end.
  const bool others_walk =
      join_.load(std::memory_order_acquire) ||
      (induced_.load(std::memory_order_relaxed) && !forcing_.load(std::memory_order_acquire));
  if (snapshot_walk_.load(std::memory_order_acquire) && !child_ &&
      record_.stream.object_count() == 0 && !others_walk) {
    // The first object: the roots are in, the world stopped. The rest of the report goes on in
    // a copy-on-write child (record_child.h); the parent's ends here.
    std::string error;
    try {
      child_ = std::make_unique<RecordChild>();
      const bool stop = snapshot_stop_for_test_;
      snapshot_stop_for_test_ = false;  // the first child only
      snapshot_stop_tested_ = stop;
      if (!child_->Start(&error, stop)) {
        child_.reset();
        snapshot_error_ = error;  // logged by WalkHeap; this capture records in the pause
      }
    } catch (const std::exception&) {
      child_.reset();
    }
    if (child_ && !child_->in_child()) return false;
    child_next_alive_ = RecordChild::kAliveObjects;
  }
  try {
    // The walk runs after the collection moved everything: the object is in its final place
    // and its size can be read now, while its header is in the cache.
    size_t size = 0;
    if (cor::Failed(info_->GetObjectSize2(object, &size))) size = 0;
    // Its slots and values are read now (in place, world stopped).
    RecordObject(
        RecordedObject{object, klass, static_cast<uint32_t>(std::min<size_t>(size, UINT32_MAX))},
        refs, count);
  } catch (const std::exception&) {  // out of memory: this capture fails, the runtime goes on
    if (in_child) RecordChild::Exit(agent::CowChild::kExitThrew);
    recording_.store(false, std::memory_order_release);
    record_.Clear();
    return false;
  }
  if (in_child && record_.stream.object_count() >= child_next_alive_) {
    if (!child_->Alive()) RecordChild::Exit(agent::CowChild::kExitWriteFailed);  // parent gone
    child_next_alive_ += RecordChild::kAliveObjects;
  }
  return true;
}

void DotnetPort::OnRootReferences(cor::ULONG count, const cor::ObjectID* objects,
                                  const cor::GcRootKind* kinds, const cor::GcRootFlags* flags,
                                  const cor::UINT_PTR* ids) {
  if (!recording_.load(std::memory_order_acquire)) return;
  std::lock_guard<std::mutex> lock(record_mu_);
  if (report_start_ns_.load(std::memory_order_relaxed) == 0)
    report_start_ns_.store(NowNs(), std::memory_order_release);
  try {
    for (cor::ULONG i = 0; i < count; ++i)
      if (objects[i] != 0)
        record_.roots.push_back(RecordedRoot{objects[i], kinds[i], flags[i], ids[i]});
  } catch (const std::exception&) {
    recording_.store(false, std::memory_order_release);
    record_.Clear();
  }
}

// ---- the capture ----

bool DotnetPort::RunWithWorldStopped(void (*fn)(void* ctx), void* ctx, uint32_t timeout_ms) {
  // The program runs: the static fields' metadata and addresses may be asked for. Before fn,
  // so that the agent does not count it in the game's pause.
  const int64_t resolve_start = NowNs();
  std::vector<cor::ClassID> loaded;
  layouts_us_ = 0;
  try {
    if (attached_ && !census_done_) {
      census_done_ = true;
      std::vector<cor::ClassID> before;
      const size_t functions = FindClassesOfCompiledCode(info_, &before);
      for (cor::ClassID klass : before) statics_.OnClassLoaded(klass);
      Log("classes loaded before the attach: " + std::to_string(before.size()) + " found from " +
          std::to_string(functions) + " compiled functions");
    }
    statics_.Resolve(&loaded);
    // The threads whose thread statics the collection reads (the list is not to be had
    // inside it).
    if (statics_.has_thread_statics()) threads_.Refresh();
    const int64_t layouts_start = NowNs();
    layouts_.Prepare(loaded);  // the new classes' field layouts (field_layouts.h)
    layouts_us_ = (NowNs() - layouts_start) / 1000;
  } catch (const std::exception&) {  // out of memory: the capture goes on with what there is
  }
  resolve_us_ = (NowNs() - resolve_start) / 1000 - layouts_us_;
  {
    // The program still runs: reserving (and mapping) now is not part of its pause. A record
    // a snapshot process is to make is mapped, not touched: should the clone fail, the
    // recording in the pause faults its pages in (huge pages: one fault per 2 MiB).
    std::lock_guard<std::mutex> lock(record_mu_);
    try {
      const bool child_expected =
          snapshot_walk_.load(std::memory_order_acquire) && !join_.load(std::memory_order_acquire);
      record_.Reserve(last_sizes_.bytes ? ScaledLastSizes() : FirstRecordGuess(), !child_expected);
    } catch (const std::exception&) {  // the vectors grow in the collection instead
    }
  }
  // CoreCLR stops the world only inside a collection (InduceFullCollection): fn runs now.
  deadline_ = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
  frame_wait_.store(frame_ && frame_->Recent(), std::memory_order_release);
  mid_frame_retries_.store(0, std::memory_order_release);
  fn(ctx);
  LogStopPoint();
  return true;
}

bool DotnetPort::GenerationBounds(std::vector<cor::GcGenerationRange>* out) const {
  // Regions (.NET 7 and later) make one range per region: ask again with room for all of them.
  try {
    out->resize(out->empty() ? 64 : out->capacity());
  } catch (const std::exception&) {
    out->clear();
    return false;
  }
  for (int attempt = 0; attempt < 3; ++attempt) {
    cor::ULONG n = 0;
    if (cor::Failed(
            info_->GetGenerationBounds(static_cast<cor::ULONG>(out->size()), &n, out->data()))) {
      out->clear();
      return false;
    }
    if (n <= out->size()) {
      out->resize(n);
      return n > 0;
    }
    try {
      out->resize(n + n / 4);  // more regions than room: grow (a collection adds none meanwhile)
    } catch (const std::exception&) {
      break;
    }
  }
  out->clear();
  return false;
}

DotnetPort::GenerationUse DotnetPort::UseOf(const std::vector<cor::GcGenerationRange>& ranges) {
  GenerationUse use;
  for (const cor::GcGenerationRange& r : ranges) {
    use.all += r.range_length;
    if (r.generation == 0) use.generation0 += r.range_length;
    if (r.generation >= 3) use.large += r.range_length;  // the large and pinned object heaps
  }
  return use;
}

HeapRecord::Sizes DotnetPort::ScaledLastSizes() const {
  // The heap grew since the last capture (a compiler building its symbols does, 2 M -> 7 M
  // objects in 10 s): the record grows with it, in proportion to the bytes in use after the
  // latest collection against those after the recorded one; never below the last record.
  const uint64_t now = in_use_after_gc_.load(std::memory_order_relaxed);
  const uint64_t then = recorded_in_use_.load(std::memory_order_relaxed);
  if (then == 0 || now <= then) return last_sizes_;
  const double f = std::min(static_cast<double>(now) / static_cast<double>(then), 16.0);
  auto scaled = [f](size_t n) { return static_cast<size_t>(static_cast<double>(n) * f); };
  return HeapRecord::Sizes{scaled(last_sizes_.bytes), scaled(last_sizes_.classes)};
}

DotnetPort::GenerationUse DotnetPort::HeapUse() const {
  std::vector<cor::GcGenerationRange> ranges;
  if (!GenerationBounds(&ranges)) return {};  // out of memory too
  return UseOf(ranges);
}

HeapRecord::Sizes DotnetPort::FirstRecordGuess() const {
  // All of it: a large array's references take room in the record too.
  const uint64_t objects = HeapUse().all / kGuessBytesPerObject;
  return HeapRecord::Sizes{kGuessRecordBytesPerObject * static_cast<size_t>(objects), 0};
}

bool DotnetPort::ForecastCaptureSizes(uint64_t* objects, uint64_t* refs) const {
  // The generation table the runtime kept at its last collection: read, never waited for.
  // Without the large and pinned object heaps: a game's 2 GB of textures are a few objects,
  // not 44 M (the host reserves and faults in memory for each).
  const GenerationUse use = HeapUse();
  *objects = (use.all - use.large) / kGuessBytesPerObject;
  *refs = *objects * kGuessRefsPerObject;
  return *objects != 0;
}

bool DotnetPort::Collect(std::string* failure) {
  for (int collections = 0; collections < kMaxCollections;) {
    recorded_.store(false, std::memory_order_release);
    armed_.store(true, std::memory_order_release);
    cor::HRESULT hr = cor::S_OK;
    if (mode_ == EventMode::kPerCapture) {
      hr = info_->SetEventMask2(cor::kMonitorGc | kAlwaysMaskLow | ExtraMaskLow(), ExtraMaskHigh());
      if (hr == cor::CORPROF_E_RUNTIME_UNINITIALIZED &&
          std::chrono::steady_clock::now() < deadline_) {  // still starting: as ForceGC below
        armed_.store(false, std::memory_order_release);
        std::this_thread::sleep_for(std::chrono::milliseconds(kRetryMs));
        continue;
      }
      if (cor::Failed(hr)) {
        armed_.store(false, std::memory_order_release);
        *failure = "the runtime refused the GC events for the capture (" + cor::HexText(hr) +
                   "): are background collections on (DOTNET_gcConcurrent)?";
        return false;
      }
    }
    // At the frame boundary: the game thread held at the frame method's next return while the
    // collection runs. A stalled game (no return before the time limit) is collected where it
    // is.
    const bool held =
        frame_wait_.load(std::memory_order_acquire) && frame_->HoldAtFrameEnd(deadline_);
    if (!held) frame_wait_.store(false, std::memory_order_release);
    hold_start_ns_.store(held ? frame_->held_since_ns() : 0, std::memory_order_release);
    forcing_.store(true, std::memory_order_release);
    hr = info_->ForceGC();
    forcing_.store(false, std::memory_order_release);
    if (held) frame_->Release();
    hold_start_ns_.store(0, std::memory_order_release);  // read by OnGcStarted, now past
    armed_.store(false, std::memory_order_release);
    if (mode_ == EventMode::kPerCapture)
      info_->SetEventMask2(IdleMaskLow(mode_) | ExtraMaskLow(),
                           IdleMaskHigh(mode_) | ExtraMaskHigh());
    if (recorded_.load(std::memory_order_acquire)) return true;
    if (caught_in_frame_.exchange(false, std::memory_order_acq_rel)) {
      mid_frame_retries_.fetch_add(1, std::memory_order_acq_rel);
      continue;  // not counted: the runtime did report the objects, inside a frame
    }
    if (cor::Failed(hr)) {
      if (std::chrono::steady_clock::now() >= deadline_) {
        *failure =
            "the runtime refused the capture's collection (ForceGC: " + cor::HexText(hr) + ")";
        return false;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(kRetryMs));
      continue;
    }
    ++collections;
  }
  *failure = "the runtime reported no objects in " + std::to_string(kMaxCollections) +
             " forced collections";
  return false;
}

bool DotnetPort::Join(uint32_t timeout_ms, const std::atomic<int64_t>* cancelled,
                      std::string* failure) {
  const auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
  frame_wait_.store(false, std::memory_order_release);  // the other tool picks the moment
  hold_start_ns_.store(0, std::memory_order_release);   // nobody held
  if (mode_ == EventMode::kPerCapture) {
    for (;;) {
      const cor::HRESULT hr =
          info_->SetEventMask2(cor::kMonitorGc | kAlwaysMaskLow | ExtraMaskLow(), ExtraMaskHigh());
      if (!cor::Failed(hr)) break;
      if (hr != cor::CORPROF_E_RUNTIME_UNINITIALIZED || std::chrono::steady_clock::now() >= until) {
        *failure = "the runtime refused the GC events for the capture (" + cor::HexText(hr) +
                   "): are background collections on (DOTNET_gcConcurrent)?";
        return false;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(kRetryMs));  // still starting
    }
  }
  {
    std::lock_guard<std::mutex> lock(record_mu_);
    recorded_.store(false, std::memory_order_release);
    join_.store(true, std::memory_order_release);
    armed_.store(true, std::memory_order_release);
  }
  // Armed: a tool started once this line is out is joined.
  Log("capture: waiting up to " + std::to_string(timeout_ms) +
      " ms for a full collection another tool induces (dotnet-gcdump collect -p " +
      std::to_string(getpid()) + "), inducing none");
  bool recorded = false;
  {
    std::unique_lock<std::mutex> lock(record_mu_);
    for (;;) {
      recorded = recorded_.load(std::memory_order_acquire);
      if (recorded) break;
      // A collection that reported no objects disarmed the recording: wait for the next one.
      if (!recording_.load(std::memory_order_acquire))
        armed_.store(true, std::memory_order_release);
      const bool stop = (cancelled && cancelled->load(std::memory_order_acquire) != 0) ||
                        std::chrono::steady_clock::now() >= until;
      if (stop && !recording_.load(std::memory_order_acquire)) break;
      // Woken when a recorded collection finishes; the slice bounds how late a cancel is seen.
      recorded_cv_.wait_for(lock, std::chrono::milliseconds(50));
    }
    // Under the lock: a collection starting from now on sees the recording disarmed.
    armed_.store(false, std::memory_order_release);
    join_.store(false, std::memory_order_release);
  }
  if (mode_ == EventMode::kPerCapture)
    info_->SetEventMask2(IdleMaskLow(mode_) | ExtraMaskLow(),
                         IdleMaskHigh(mode_) | ExtraMaskHigh());
  if (recorded) {
    Log("capture: recorded the collection another tool induced");
    return true;
  }
  *failure = cancelled && cancelled->load(std::memory_order_acquire) != 0
                 ? "the capture was cancelled while it waited for another tool's collection"
                 : "no full collection was induced within " + std::to_string(timeout_ms) +
                       " ms (start the other tool, e.g. dotnet-gcdump collect -p " +
                       std::to_string(getpid()) + ", once the capture waits)";
  return false;
}

void DotnetPort::JoinInducedCollection(uint32_t timeout_ms, const std::atomic<int64_t>* cancelled) {
  failure_.clear();
  if (!Join(timeout_ms, cancelled, &failure_)) {
    std::lock_guard<std::mutex> lock(record_mu_);
    record_.Clear();
  }
}

void DotnetPort::LogStopPoint() {
  if (!frame_ || !failure_.empty()) return;
  const std::string after = "after frame " + std::to_string(stopped_after_.load());
  const int retries = mid_frame_retries_.load();
  if (!frame_wait_.load())
    Log("capture: the game was stopped at once (" + frame_->name() + " did not return in the " +
        "last " + std::to_string(frame_->window_ms()) + " ms" +
        (frame_->found() ? "" : "; the program has not run it") + ")");
  else if (stopped_inside_.load())
    Log("capture: the game was stopped inside the frame method (" + frame_->name() + ", " + after +
        ", " + std::to_string(retries) + " collections caught it inside)");
  else
    Log("capture: the game was stopped at the frame boundary (" + frame_->name() + "), " + after +
        (stopped_held_.load() ? ", held at its return" : "") +
        (retries ? " (" + std::to_string(retries) + " collections caught it inside first)" : ""));
}

void DotnetPort::InduceFullCollection() {
  failure_.clear();
  if (!Collect(&failure_)) {
    std::lock_guard<std::mutex> lock(record_mu_);
    record_.Clear();
  }
}

}  // namespace dotnet
}  // namespace xrpm
