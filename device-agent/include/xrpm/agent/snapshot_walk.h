// SnapshotWalk: a heap walk run in a copy-on-write child of the game's process, so the game's
// pause holds the collection and the child's creation only, the way Redis saves. The Mono port
// (device-agent/ports/mono/src/heap_walk.cpp) and the emulator (emulator/src/runtime/
// heap_walk.cpp) use it; a runtime calls Start with the world stopped, lets the world go, tells
// the sink (HeapInfoCallback::WorldResumed: the game's pause ends there) and calls Replay.
//
// Algorithm: Start makes a pipe, a WalkRecorder over its write end (its buffer allocated here,
// in the parent), then the child:
//  - Clone::kRaw: a raw syscall(SYS_clone) with exit signal 0 and no other flag: a fork
//    without glibc's fork(), which would take every malloc arena lock and run the atfork
//    handlers. For a runtime whose stopped threads may be suspended anywhere (Mono's hybrid
//    suspend: one may hold an arena lock, and fork() would hang the game for good). The child
//    may use only the calling thread's own malloc arena, as the in-pause walk does.
//  - Clone::kFork: glibc's fork(), for a runtime whose threads stop only at safe points (the
//    emulator's game thread parks at its frame boundary): malloc is whole in the child.
// Either way the child has one thread, a copy of the caller (its stack, its TLS), and exit
// signal 0 (kRaw) or SIGCHLD (kFork). The child: PR_SET_PDEATHSIG SIGKILL (it dies with the
// calling thread), default dispositions for the crash signals (the runtime's handlers are the
// parent's business), SIGPIPE ignored (a parent that stopped reading makes the writes fail),
// then the walk into the recorder, then _exit. The parent returns at once; later Replay reads
// the pipe into the sink (WalkReplayer) while the game runs, then reaps the child:
// waitpid(__WALL), so a child with exit signal 0 is found too (it sends no SIGCHLD and is
// invisible to a runtime's waitpid(-1) of its own children).
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

  enum class Clone { kRaw, kFork };  // how the child is made (the header comment)

  // Starts the child, which runs walk(ctx, recorder) and exits. False (with *error) when no
  // child could be made; the caller then walks in the pause.
  bool Start(WalkDetail detail, void (*walk)(void* ctx, HeapInfoCallback& rec), void* ctx,
             bool stop_for_test, std::string* error, Clone clone = Clone::kRaw);
  // Replays the child's walk into `sink` (see the header comment) and reaps the child.
  ReplayResult Replay(HeapInfoCallback& sink);
  pid_t pid() const { return pid_; }

 private:
  std::string Reap(bool kill_first);  // the child's fate, "" when it exited with 0

  pid_t pid_ = -1;
  int fd_ = -1;
};

}  // namespace agent
}  // namespace xrpm
