// Game events: what the game itself tells the profiler through its runtime — markers
// ("Level 7 loaded"), capture requests, and the scope tags that label its allocation samples
// (Xrpm.Profiler.Marker / RequestCapture / Scope in a Mono game; the emulator's scenarios call
// the same through Runtime::Marker / RequestCapture / EnterScope / LeaveScope).
//
// Markers and capture requests: the runtime calls GameEventSink::OnMarker (the agent's marker
// queue, installed by RuntimePort::SetGameEventSink) on the game thread. The call copies at most
// kMaxMarkerTextBytes of the text (longer text is cut at a UTF-8 boundary, never refused) into a
// fixed-size slot of a bounded lock-free queue and returns: it never blocks, never allocates,
// and when the queue is full (a game posting thousands per frame) the marker is counted as
// dropped instead of growing memory.
//
// Scope tags: the runtime keeps, per game thread, a ScopeTagStack (below; bounded depth, no
// allocation) and reports the innermost open tag with each AllocationSample (tag_key, tag_name).
// The agent interns tags like methods (a small id, its text sent once per frames subscription).
//
// Thread-safety: GameEventSink::OnMarker may be called from any thread, concurrently. A
// ScopeTagStack belongs to one thread.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <mutex>

namespace xrpm {
namespace agent {

// Text of a marker, capture-request label or scope tag longer than this is cut (= the wire's
// protocol::kMaxMarkerBytes).
constexpr size_t kMaxMarkerTextBytes = 128;

enum class MarkerKind : uint32_t {
  kMarker = 0,          // Marker(text)
  kCaptureRequest = 1,  // RequestCapture(label)
};

class GameEventSink {
 public:
  // `text` is NUL-terminated (nullptr reads as ""); `frame` is the game frame it was posted in
  // (FrameRecord numbering: the frame the next OnFrame ends); `time_us` the device clock in the
  // FrameRecord::end_us scale.
  virtual void OnMarker(MarkerKind kind, const char* text, uint64_t frame,
                        uint64_t time_us) noexcept = 0;

 protected:
  ~GameEventSink() = default;
};

// GameEventSlot: a runtime's hold on the agent's GameEventSink, the one both runtimes use.
// on() is the game thread's whole cost without an agent (one relaxed load; a marker racing the
// agent's start may be lost: it is a hint). Set and Post hold a mutex, so the agent may swap
// or remove the sink while a game thread posts. Thread-safety: any thread.
class GameEventSlot {
 public:
  void Set(GameEventSink* sink) {
    std::lock_guard<std::mutex> lock(mu_);
    sink_ = sink;
    on_.store(sink != nullptr, std::memory_order_relaxed);
  }
  bool on() const { return on_.load(std::memory_order_relaxed); }
  void Post(MarkerKind kind, const char* text, uint64_t frame, uint64_t time_us) {
    std::lock_guard<std::mutex> lock(mu_);
    if (sink_) sink_->OnMarker(kind, text, frame, time_us);
  }

 private:
  std::mutex mu_;
  GameEventSink* sink_ = nullptr;  // guarded by mu_
  std::atomic<bool> on_{false};    // sink_ != nullptr, unlocked hint
};

// The scopes open on one game thread, innermost last. Enter past kMaxDepth counts the level but
// keeps the innermost kept tag (the deepest levels share their nearest kept ancestor's tag);
// Leave without Enter is ignored. O(1), no allocation. `key` is stable per tag text while the
// runtime lives (an interned string's address, a hash); `name` must outlive the scope.
class ScopeTagStack {
 public:
  static constexpr uint32_t kMaxDepth = 32;

  void Enter(uint64_t key, const char* name) {
    if (depth_ < kMaxDepth) {
      keys_[depth_] = key;
      names_[depth_] = name;
    }
    ++depth_;
  }
  void Leave() {
    if (depth_ > 0) --depth_;
  }
  uint32_t depth() const { return depth_; }
  // The innermost kept tag (0 / nullptr when no scope is open).
  uint64_t key() const { return depth_ ? keys_[Top()] : 0; }
  const char* name() const { return depth_ ? names_[Top()] : nullptr; }

 private:
  uint32_t Top() const { return (depth_ < kMaxDepth ? depth_ : kMaxDepth) - 1; }
  uint64_t keys_[kMaxDepth] = {};
  const char* names_[kMaxDepth] = {};
  uint32_t depth_ = 0;
};

}  // namespace agent
}  // namespace xrpm
