// SnapshotWalk: a heap walk run in a copy-on-write child of the game's process, so the game's
// pause holds the collection and the child's creation only, the way Redis saves.
//
// Algorithm: at PRE_START_WORLD of the capture's collection, with every other thread stopped,
// the collector thread (MonoPort, heap_walk.cpp) calls Start: a pipe, a WalkRecorder over its
// write end (its buffer allocated here, in the parent), then a raw syscall(SYS_clone) with exit
// signal 0 and no other flag: a fork without glibc's fork(), which would take every malloc
// arena lock and run Mono's atfork handlers, and under Mono's hybrid suspend a suspended
// thread may hold an arena lock: the game would hang for good. The child has one thread, the
// collector's copy (its stack, its TLS: Mono's queries see the collector's thread); it uses
// the collector's own malloc arena only, which is what today's in-pause walk uses too. The
// child: PR_SET_PDEATHSIG SIGKILL (it dies with the collector thread), default dispositions
// for the crash signals (Mono's handlers are the parent's business), SIGPIPE ignored (a parent
// that stopped reading makes the writes fail), then the walk into the recorder, then _exit.
// The parent returns at once: the world restarts; later the capture thread calls Replay, which
// reads the pipe into the agent's sink (WalkReplayer) while the game runs, then reaps the
// child: waitpid(__WALL), since with exit signal 0 the child sends no SIGCHLD and is invisible
// to Mono's waitpid(-1) of its own children.
//
// SGen's concurrent sweep: a full collection hands its sweep to a worker thread that may still
// run when the world restarts, and mono_gc_walk_heap waits for it (a block being swept, the
// sweep job): in the child, which has no such thread, forever. xrpm-mono therefore runs Mono
// with MONO_GC_PARAMS no-concurrent-sweep when it snapshots (unless the environment already
// says concurrent-sweep or no-concurrent-sweep): the sweep (lazy: blocks are only checked) is
// then part of the collection. Any other wait the child cannot finish (a lock a thread running
// native code held at the clone) ends as a hung child: killed after kIdleTimeoutMs, the capture
// fails, and the port walks paused from then on (MonoPort).
//
// Failure: a child that dies (a crash, a kill) ends the stream early; one that sends nothing
// for kIdleTimeoutMs is killed; a cancel (the sink's Cancelled) is seen within 100 ms and kills
// the child. Each ends the replay with a message naming the stream's byte offset and the
// child's fate ("killed by signal 9"), the sink gets WalkFailed and kEnd, and the child is
// always reaped before Replay returns. What the child changes (the registry's new classes, the
// layout cache, origin pruning) stays in the child: the port keeps the in-pause walk when
// allocation origins are recorded (their pruning must reach the tracker, origin_tracker.h).
//
// Test hook: the environment variable XRPM_MONO_SNAPSHOT_STOP=1 (read when the port is made)
// makes the first snapshot's child stop itself (SIGSTOP) before it walks, so a test can kill
// it or cancel the capture at a known point.
//
// Complexity: the clone copies the page tables, O(resident memory / page size), in the pause;
// the pages the game writes afterwards are copied once each while the child lives. The stream
// is O(objects + references + values) bytes; the parent holds one record at a time.
//
// Thread-safety: Start on the collector thread (world stopped); Replay and the destructor on
// one other thread after Start returned.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <memory>
#include <string>

#include "profiler_options.h"
#include "xrpm/agent/heap_walker.h"
#include "xrpm/agent/walk_recording.h"

namespace xrpm {
namespace mono {

class SnapshotWalk {
 public:
  // A child that sends nothing for this long is taken for hung.
  static constexpr uint32_t kIdleTimeoutMs = 10000;

  SnapshotWalk() = default;
  ~SnapshotWalk();  // kills and reaps a child Replay did not
  SnapshotWalk(const SnapshotWalk&) = delete;
  SnapshotWalk& operator=(const SnapshotWalk&) = delete;

  // Starts the child, which runs walk(ctx, recorder) and exits. False (with *error) when no
  // child could be made; the caller then walks in the pause.
  bool Start(agent::WalkDetail detail, void (*walk)(void* ctx, agent::HeapInfoCallback& rec),
             void* ctx, bool stop_for_test, std::string* error);
  // Replays the child's walk into `sink` (see the header comment) and reaps the child.
  agent::ReplayResult Replay(agent::HeapInfoCallback& sink);
  pid_t pid() const { return pid_; }

 private:
  std::string Reap(bool kill_first);  // the child's fate, "" when it exited with 0

  pid_t pid_ = -1;
  int fd_ = -1;
};

}  // namespace mono
}  // namespace xrpm
