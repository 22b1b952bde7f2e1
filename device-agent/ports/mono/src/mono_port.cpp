// MonoPort: capture hand-over, counters and the bookkeeper (the walk is in heap_walk.cpp).
#include "mono_port.h"

#include <mono/metadata/mono-gc.h>
#include <mono/metadata/object.h>
#include <mono/metadata/profiler.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <exception>

namespace xrpm {
namespace mono {
namespace {

using agent::NowNs;  // runtime_port.h: the clock of WorldStoppedAtNs

constexpr int kMaxCollectAttempts = 3;
constexpr int kRenotifyMs = 100;  // a safe-point request wakes the finalizer thread this often

// Each allocating thread's sampler (SampleInterval). initial-exec: read at a fixed offset from
// the thread pointer on every allocation, instead of through __tls_get_addr (the module is
// dlopen'ed; its 32 bytes fit the static TLS surplus glibc keeps for that).
thread_local agent::ThreadSampler t_sampler __attribute__((tls_model("initial-exec")));

}  // namespace

MonoPort::MonoPort(std::string app_name, FrameMethod frame, void (*reporting)(bool on),
                   bool allocations, uint32_t origin_sample_bytes, uint32_t frame_window_ms,
                   WalkMode walk)
    : app_name_(std::move(app_name)),
      frame_(std::move(frame)),
      reporting_(reporting),
      frame_window_ms_(frame_window_ms),
      start_(std::chrono::steady_clock::now()),
      frames_(allocations, start_),
      interval_(allocations ? origin_sample_bytes : 0),
      walk_mode_(walk) {
  const char* stop = std::getenv("XRPM_MONO_SNAPSHOT_STOP");  // snapshot_walk.h's test hook
  snapshot_stop_for_test_ = stop && std::string(stop) == "1";
  if (allocations && origin_sample_bytes > 0) origins_ = std::make_unique<OriginTracker>();
  bookkeeper_ = std::thread([this] { Bookkeeper(); });
}

MonoPort::~MonoPort() {
  {
    std::lock_guard<std::mutex> lock(book_mu_);
    book_stop_ = true;
  }
  book_cv_.notify_all();
  if (bookkeeper_.joinable()) bookkeeper_.join();
}

void MonoPort::Bookkeeper() {
  std::unique_lock<std::mutex> lock(book_mu_);
  while (!book_stop_) {
    book_cv_.wait_for(lock, std::chrono::milliseconds(100));
    registry_.Drain(events_);
  }
}

agent::RuntimeInfo MonoPort::Info() const {
  return agent::RuntimeInfo{"Mono (SGen) via xrpm-mono",
                            "6.8",
                            app_name_.c_str(),
                            "Linux x86-64 (Mono)",
                            static_cast<uint32_t>(sizeof(void*)),
                            false,
                            2,
                            1};
}

uint64_t MonoPort::BootMillis() const {
  return static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::milliseconds>(
                                   std::chrono::steady_clock::now() - start_)
                                   .count());
}

size_t MonoPort::SampleCounters(agent::CounterValue* out, size_t count) const {
  return counters_.Sample(out, count);
}

void MonoPort::UpdateMemoryCounters() {
  if (!memory_stale_.exchange(false, std::memory_order_acq_rel)) return;
  counters_.Set(MonoCounter::kManagedBytesInUseAfterGc, mono_gc_get_used_size());
  counters_.Set(MonoCounter::kGcHeap, mono_gc_get_heap_size());
}

// ---- capture hand-over ----

void MonoPort::SetRuntimeReady() {
  {
    std::lock_guard<std::mutex> lock(mu_);  // no capture runs yet: nobody holds it for long
    ready_.store(true, std::memory_order_release);
  }
  cv_.notify_all();
}

bool MonoPort::RunWithWorldStopped(void (*fn)(void* ctx), void* ctx, uint32_t timeout_ms) {
  // A capture asked for while Mono is still starting waits (within the time limit) for it.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
  {
    std::unique_lock<std::mutex> lock(mu_);
    if (!cv_.wait_until(lock, deadline, [&] { return ready_.load(std::memory_order_acquire); }))
      return false;
  }
  registry_.Drain(events_);
  // A frame method left within the window makes the capture wait for a frame boundary
  // (0: none ever left; the steady clock may count from a boot less than a window ago).
  const int64_t last_leave = last_frame_leave_ns_.load(std::memory_order_relaxed);
  const bool frame_recent =
      last_leave != 0 && NowNs() - last_leave < int64_t{frame_window_ms_} * 1000 * 1000;
  const StopPoint mode = frame_recent ? StopPoint::kFrameBoundary : StopPoint::kSafePoint;
  std::unique_lock<std::mutex> lock(mu_);
  phase_ = Phase::kRequested;
  mode_ = mode;
  walked_ = false;
  request_.store(static_cast<int>(mode), std::memory_order_release);
  // A safe point: the finalizer thread takes the request when woken. A wake-up can be lost
  // (a program just starting may not have its finalizer thread waiting yet), so it is
  // repeated every 100 ms until the request is taken or the time is up.
  bool taken = false;
  for (;;) {
    if (mode == StopPoint::kSafePoint) mono_gc_finalize_notify();
    const auto next = std::min(
        deadline, std::chrono::steady_clock::now() + std::chrono::milliseconds(kRenotifyMs));
    taken = cv_.wait_until(lock, next, [&] { return phase_ != Phase::kRequested; });
    if (taken || std::chrono::steady_clock::now() >= deadline) break;
  }
  if (!taken) {  // nobody took it: withdraw (under the lock, so no taker can race us)
    request_.store(0, std::memory_order_release);
    phase_ = Phase::kIdle;
    return false;
  }
  last_stop_.store(mode);
  lock.unlock();
  fn(ctx);  // InduceFullCollection, then WalkHeap (see below)
  lock.lock();
  if (phase_ == Phase::kWorldStopped || phase_ == Phase::kWalked) {
    phase_ = Phase::kWalkDone;
    cv_.notify_all();
  }
  cv_.wait(lock, [&] { return phase_ == Phase::kIdle; });  // the collector finished
  std::string walk_note;
  walk_note.swap(walk_note_);
  lock.unlock();
  for (const std::string& line :
       {"capture: the game was stopped " + LastStopPoint(), walk_note, OriginsLine()}) {
    if (line.empty()) continue;
    if (log_)
      log_(line);
    else
      std::fprintf(stderr, "xrpm-agent: %s\n", line.c_str());
  }
  return true;
}

std::string MonoPort::OriginsLine() const {
  if (!origins_) return "";
  const OriginTracker::Stats s = origins_->stats();
  std::string line = "capture: allocation origins: " + std::to_string(s.tracked) +
                     " sampled objects tracked (capacity " + std::to_string(s.capacity) + ", " +
                     std::to_string(s.table_bytes >> 10) + " KiB), " + std::to_string(s.sites) +
                     " sites, one sample per " + std::to_string(interval_.mean_bytes()) +
                     " bytes; " + std::to_string(s.recorded) + " recorded, " +
                     std::to_string(s.pruned) + " pruned as dead";
  const uint64_t lost = s.table_full + s.sites_full + s.lost_on_move;
  if (lost)
    line += "; " + std::to_string(lost) + " not kept (table full " + std::to_string(s.table_full) +
            ", sites full " + std::to_string(s.sites_full) + ", moved into a full bucket " +
            std::to_string(s.lost_on_move) + ")";
  return line;
}

std::string MonoPort::LastStopPoint() const {
  switch (last_stop_.load()) {
    case StopPoint::kFrameBoundary:
      return "at the frame boundary (" +
             (frame_.name_space.empty() ? "" : frame_.name_space + ".") + frame_.class_name + ":" +
             frame_.method + ")";
    case StopPoint::kSafePoint:
      return "at the next safe point (no frame method ran in the last " +
             (frame_window_ms_ == 1000 ? std::string("second")
                                       : std::to_string(frame_window_ms_) + " ms") +
             ")";
    default:
      return "";
  }
}

void MonoPort::InduceFullCollection() {
  // The collector runs the collection; wait until it stops at PRE_START_WORLD (or gives up).
  std::unique_lock<std::mutex> lock(mu_);
  cv_.wait(lock, [&] { return phase_ == Phase::kWorldStopped || phase_ == Phase::kIdle; });
}

void MonoPort::OnFrameLeave() {
  frames_.OnFrameLeave();
  last_frame_leave_ns_.store(NowNs(), std::memory_order_relaxed);
  if (memory_stale_.load(std::memory_order_relaxed)) UpdateMemoryCounters();
  if (request_.load(std::memory_order_acquire) != static_cast<int>(StopPoint::kFrameBoundary))
    return;
  Collect();
}

void MonoPort::OnFinalizing() {
  if (memory_stale_.load(std::memory_order_relaxed)) UpdateMemoryCounters();
  if (request_.load(std::memory_order_acquire) != static_cast<int>(StopPoint::kSafePoint)) return;
  Collect();
}

void MonoPort::Collect() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (phase_ != Phase::kRequested) return;  // another thread took it
    request_.store(0, std::memory_order_release);
    phase_ = Phase::kCollecting;
    collector_.store(pthread_self());
    roots_.clear();
    moves_.clear();
  }
  cv_.notify_all();
  // Layouts of the classes loaded so far, while this thread may still take Mono's locks.
  registry_.Drain(events_);
  layouts_.Prepare(registry_);
  capture_gc_.store(true, std::memory_order_release);
  if (reporting_) reporting_(true);
  for (int attempt = 0; attempt < kMaxCollectAttempts; ++attempt) {
    mono_gc_collect(mono_gc_max_generation());
    std::lock_guard<std::mutex> lock(mu_);
    if (walked_) break;
  }
  if (reporting_) reporting_(false);
  capture_gc_.store(false, std::memory_order_release);
  {
    std::lock_guard<std::mutex> lock(mu_);
    phase_ = Phase::kIdle;
  }
  cv_.notify_all();
}

void MonoPort::OnGcEvent(int event, uint32_t generation, bool is_serial) {
  switch (event) {
    case MONO_GC_EVENT_PRE_STOP_WORLD:
      gc_start_ns_ = NowNs();
      break;
    case MONO_GC_EVENT_START:
      gc_generation_ = static_cast<uint8_t>(std::min<uint32_t>(generation, 15));
      break;
    case MONO_GC_EVENT_END:
      counters_.Add(MonoCounter::kGarbageCollections, 1);
      memory_stale_.store(true, std::memory_order_relaxed);
      break;
    case MONO_GC_EVENT_POST_START_WORLD:
      if (gc_start_ns_ != 0) {
        const int64_t pause_ns = NowNs() - gc_start_ns_;
        counters_.Add(MonoCounter::kGcLatencyTime, pause_ns / 1000000);
        frames_.OnGc(static_cast<uint32_t>(pause_ns / 1000), gc_generation_);
      }
      gc_start_ns_ = 0;
      break;
    default:
      break;
  }
  if (!capture_gc_.load(std::memory_order_acquire) ||
      !pthread_equal(collector_.load(), pthread_self()))
    return;
  if (event == MONO_GC_EVENT_START) {
    std::lock_guard<std::mutex> lock(roots_mu_);
    roots_.clear();  // a retry starts afresh
    moves_.clear();
    return;
  }
  if (event != MONO_GC_EVENT_PRE_START_WORLD) return;
  if (!is_serial || static_cast<int>(generation) != mono_gc_max_generation()) return;
  // The world is stopped after a full collection: hand over to the capture thread.
  std::unique_lock<std::mutex> lock(mu_);
  if (walked_ || phase_ != Phase::kCollecting) return;
  phase_ = Phase::kWorldStopped;
  cv_.notify_all();
  for (;;) {
    cv_.wait(lock, [&] { return phase_ == Phase::kWalking || phase_ == Phase::kWalkDone; });
    if (phase_ == Phase::kWalkDone) break;
    agent::HeapInfoCallback* sink = walk_sink_;
    const bool try_snapshot = walk_mode_ == WalkMode::kSnapshot && !snapshot_failed_;
    lock.unlock();
    // Origins are pruned by the walk: only the in-pause walk can (snapshot_walk.h).
    std::string note;
    if (walk_mode_ == WalkMode::kSnapshot && origins_)
      note =
          "capture: walked with the game paused (allocation origins are recorded: the walk "
          "prunes them in the game's own memory)";
    std::unique_ptr<SnapshotWalk> snapshot =
        WalkOnCollector(*sink, try_snapshot && !origins_, &note);
    lock.lock();
    walk_note_ = note;
    phase_ = Phase::kWalked;
    cv_.notify_all();
    if (snapshot) {  // the world restarts now; the capture thread replays the child's walk
      snapshot_ = std::move(snapshot);
      snapshot_taken_ = true;
      break;
    }
  }
  walked_ = true;
  phase_ = Phase::kCollecting;
}

void MonoPort::OnRoots(uint64_t count, const void* const* addresses, void* const* objects) {
  std::lock_guard<std::mutex> lock(roots_mu_);
  for (uint64_t i = 0; i < count; ++i)
    if (objects[i])
      roots_.emplace_back(reinterpret_cast<uintptr_t>(addresses[i]),
                          reinterpret_cast<uintptr_t>(objects[i]));
}

void MonoPort::OnMoves(void* const* objects, uint64_t count) {
  if (origins_)
    for (uint64_t i = 0; i + 1 < count; i += 2)
      origins_->Move(reinterpret_cast<uintptr_t>(objects[i]),
                     reinterpret_cast<uintptr_t>(objects[i + 1]));
  if (!capture_gc_active()) return;
  std::lock_guard<std::mutex> lock(roots_mu_);
  for (uint64_t i = 0; i + 1 < count; i += 2)
    moves_.emplace_back(reinterpret_cast<uintptr_t>(objects[i]),
                        reinterpret_cast<uintptr_t>(objects[i + 1]));
}

void MonoPort::OnAllocation(void* object) {
  if (origins_) {
    origins_->Forget(reinterpret_cast<uintptr_t>(object));
  } else if (!frames_.on_game_thread()) {
    return;  // without origins only the game thread's allocations are counted and sampled
  }
  const auto size = static_cast<uint32_t>(mono_object_get_size(static_cast<MonoObject*>(object)));
  const bool game = frames_.CountAllocation(size);
  if (!interval_.Take(t_sampler, size, static_cast<uint64_t>(pthread_self()))) return;
  try {
    SampleAllocation(object, size, game);
  } catch (const std::exception&) {  // bad_alloc interning a site or a name: the sample is lost
  }
}

void MonoPort::SampleAllocation(void* object, uint32_t size, bool game_thread) {
  StackWalk walk;
  WalkManagedStack(&walk);
  if (origins_)
    origins_->Record(reinterpret_cast<uintptr_t>(object), frames_.completed(), walk.keys,
                     walk.depth, &MethodNameOfKey);
  if (game_thread) frames_.Sample(object, size, walk);
}

}  // namespace mono
}  // namespace xrpm
