// SnapshotWalk: a heap walk run in a copy-on-write child of the game's process, so the game's
// pause holds the collection and the child's creation only, the way Redis saves. The Mono port
// (device-agent/ports/mono/src/heap_walk.cpp) and the emulator (emulator/src/runtime/
// heap_walk.cpp) use it; a runtime calls Start with the world stopped, lets the world go, tells
// the sink (HeapInfoCallback::WorldResumed: the game's pause ends there) and calls Replay.
//
// Algorithm: Start makes a pipe, a WalkRecorder over its write end (its buffer allocated here,
// in the parent), then the child (cow_child.h: a raw clone for a runtime whose stopped threads
// may be suspended anywhere, Mono's hybrid suspend; glibc's fork() for one whose threads stop
// only at safe points, the emulator's). The child runs the walk into the recorder, then
// _exit. The parent returns at once; later Replay reads the pipe into the sink (WalkReplayer)
// while the game runs, then reaps the child and makes the pages it shared writable again
// (CowChild::MakeWritableAgain: else the next collection faults on each).
//
// A wait the child cannot finish (a lock another thread held at the clone) ends as a hung
// child: killed after kIdleTimeoutMs, the capture fails, and the runtime should walk paused from
// then on.
//
// Failure: a child that dies (a crash, a kill) ends the stream early; one that sends nothing
// for kIdleTimeoutMs is killed; a cancel (the sink's Cancelled) is seen within 100 ms and kills
// the child. Each ends the replay with a message naming the stream's byte offset and the
// child's fate ("killed by signal 9"), the sink gets WalkFailed and kEnd, and the child is
// always reaped before Replay returns. What the child changes stays in the child.
//
// Test hook: Start's stop_for_test makes the child stop itself (SIGSTOP) before it walks, so a
// test can kill it or cancel the capture at a known point.
//
// Complexity: the clone copies the page tables, O(resident memory / page size), in the pause;
// the pages the game writes afterwards are copied once each while the child lives. The stream
// is O(objects + references + values) bytes; the parent holds one record at a time.
//
// Thread-safety: Start on the thread that stopped the world; Replay and the destructor on one
// thread (any) after Start returned.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <memory>
#include <string>

#include "xrpm/agent/cow_child.h"
#include "xrpm/agent/heap_walker.h"
#include "xrpm/agent/walk_recording.h"

namespace xrpm {
namespace agent {

class SnapshotWalk {
 public:
  // A child that sends nothing for this long is taken for hung.
  static constexpr uint32_t kIdleTimeoutMs = 10000;

  SnapshotWalk() = default;
  ~SnapshotWalk();  // kills and reaps a child Replay did not
  SnapshotWalk(const SnapshotWalk&) = delete;
  SnapshotWalk& operator=(const SnapshotWalk&) = delete;

  using Clone = CowChild::Clone;  // how the child is made (the header comment)

  // Starts the child, which runs walk(ctx, recorder) and exits. False (with *error) when no
  // child could be made; the caller then walks in the pause.
  bool Start(WalkDetail detail, void (*walk)(void* ctx, HeapInfoCallback& rec), void* ctx,
             bool stop_for_test, std::string* error, Clone clone = Clone::kRaw);
  // Replays the child's walk into `sink` (see the header comment) and reaps the child.
  ReplayResult Replay(HeapInfoCallback& sink);
  pid_t pid() const { return child_.pid(); }
  // After Replay: how the pages the child shared were made writable again, for the log.
  const CowChild::Rewritten& rewritten() const { return rewritten_; }

 private:
  CowChild child_;
  int fd_ = -1;
  CowChild::Rewritten rewritten_;
};

}  // namespace agent
}  // namespace xrpm
