// RecordChild: the capture's recording carried on in a copy-on-write child of the program
// (cow_child.h), so that the game's pause holds the collection, the roots and the child's
// creation, not the runtime's report of every object. CoreCLR reports the heap to a profiler
// inside the collection, with the world stopped, and that report alone costs 0.5-0.8x the
// collection (docs/PERFORMANCE.md): no profiler can record less in the pause.
//
// How: at the recorded collection's first ObjectReferences (the roots are in by then, the
// world is stopped, every object in its final place) the GC thread makes the child. The child,
// with one thread, a copy of that one, returns into the runtime and goes on with its heap
// report, recording every object into its copy of the record; at GarbageCollectionFinished it
// sends the record (its roots too: whatever the runtime reported after the clone) through a
// pipe and exits, never returning into the runtime. The parent returns an error from that
// ObjectReferences and from any other of the collection (the runtime then ends its report, per
// heap under the server GC) and lets the world go; once the game runs again the capture thread
// receives the record (ReceiveHead, More) and walks it as if recorded in the pause.
//
// The child is a raw clone (no atfork handlers, no malloc locks taken: the program's own
// native threads run through a collection). It may then use only the GC thread's own malloc
// arena, like Mono's snapshot walk; a wait it cannot finish (a lock another thread held at the
// clone) shows as a child that sends nothing for kIdleTimeoutMs: killed, the capture fails with
// that said, and the port records in the pause from then on. The child says it is alive every
// 65,536 objects (Alive), so a large heap is not taken for a hung child.
//
// Pipe: 'A' (alive) bytes, then 'R', a u64 root count, the roots (RecordedRoot, this process's
// layout), then the stream (RecordStream::Send) and its bytes once more (SendBytes): the
// parent's first pass (the non-GC heap's objects, AddFrozenObjects) and its walk each read
// them as they come, a window at a time, and the child lives until the walk has read them.
// Error offsets count from the pipe's first byte; the roots' memory grows with the bytes that
// arrive, whatever the count says.
//
// Thread-safety: Start and the child's calls on the recording GC thread; the receive on one
// thread (the capture thread) after the collection; never both at once.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "heap_record.h"
#include "xrpm/agent/cow_child.h"
#include "xrpm/agent/walk_recording.h"

namespace xrpm {
namespace dotnet {

class RecordChild {
 public:
  static constexpr uint32_t kIdleTimeoutMs = 10000;
  static constexpr size_t kAliveObjects = size_t{1} << 16;

  RecordChild() = default;
  ~RecordChild();
  RecordChild(const RecordChild&) = delete;
  RecordChild& operator=(const RecordChild&) = delete;

  // Makes the pipe and the child: true in both (in_child() tells which), false with *error
  // when none was made (the recording goes on in the pause). stop_for_test: the child stops
  // itself (SIGSTOP) first, so a test can kill it at a known point.
  bool Start(std::string* error, bool stop_for_test = false);
  bool in_child() const { return child_.child(); }
  // Whether this process is a record child (set only in the child, before Start returns
  // there): what a callback on any thread may ask without touching a RecordChild.
  static bool InChild();
  // In the parent: a child is making the record, and the receive has not ended (Finish, or a
  // failure that reaped it).
  bool pending() const { return !child_.child() && child_.running(); }
  pid_t pid() const { return child_.pid(); }

  // In the child: a sign of life; false when the parent stopped reading.
  bool Alive();
  // In the child: sends the record's roots and objects, then exits (0, or
  // CowChild::kExitWriteFailed).
  [[noreturn]] void SendAndExit(const HeapRecord& record);
  // In the child: exits with `code` (CowChild::ChildExit) without sending.
  [[noreturn]] static void Exit(int code);

  // In the parent, the game running: the child's roots into *record and the head of its
  // stream (RecordStream::ReceiveHead: counts, classes); the stream's bytes follow, twice, in
  // steps (More), so that the parent holds a window of them, not the whole record. False with
  // *error saying what broke (the byte offset, the child's fate: "the snapshot process was
  // killed by signal 9 (Killed)") when the stream ended early or was inconsistent, the child
  // sent nothing for `idle_timeout_ms` (then killed), or stop() said so (checked every
  // 100 ms; the child killed); the child is reaped then, and *record holds what came of it
  // (the caller releases it). Throws std::bad_alloc.
  bool ReceiveHead(HeapRecord* record, std::function<bool()> stop, std::string* error,
                   uint32_t idle_timeout_ms = kIdleTimeoutMs);
  // More of the stream's bytes (RecordStream::ReceiveMore; Rewind before the second sending);
  // false with *error as ReceiveHead's, the child reaped.
  bool More(RecordStream* stream, size_t at_least, std::string* error);
  // After the last byte of the second sending: the child reaped; false with *error (its fate)
  // unless it exited as it should. The destructor kills and reaps a child not finished.
  bool Finish(std::string* error);

 private:
  // Ends the receive: closes the pipe, reaps the child (killed when `kill`); its fate.
  std::string End(bool kill);
  // The receive broke (`why`): *error says so with the child's fate, the child reaped.
  bool Broken(const std::string& why, std::string* error);

  agent::CowChild child_;
  int fd_ = -1;                              // the parent's read end, or the child's write end
  std::unique_ptr<agent::FdByteSource> in_;  // the parent's, from ReceiveHead
  uint64_t offset_ = 0;                      // bytes read from the pipe
};

}  // namespace dotnet
}  // namespace xrpm
