// Ground truth: a heap dump taken inside the emulator through the heap walker API, with no
// network, against which every capture is checked. The world is stopped at the game's frame
// boundary, a full compacting collection runs (so only live objects are dumped), and the walk
// feeds a SnapshotBuilderSink; the file is written atomically. With contents (dump_contents.h) the
// same walk also feeds the agent's capture, whose layouts, slots, labels and values the dump
// then carries exactly as a capture of that moment would.
//
// Thread-safety: call from any thread except the game thread while it is inside a frame.
#pragma once

#include <cstdint>
#include <string>

#include "xrpm/emulator/dump_contents.h"
#include "xrpm/emulator/runtime.h"
#include "xrpm/emulator/snapshot_builder_sink.h"
#include "xrpm/model/snapshot.h"

namespace xrpm::emulator {

// Names the runtime's threads and methods for root origins.
class RuntimeNamer final : public ContainerNamer {
 public:
  explicit RuntimeNamer(const Runtime& rt) : rt_(rt) {}
  std::string ThreadName(uint64_t thread_id) const override;
  std::string MethodName(uint64_t method_id) const override;

 private:
  const Runtime& rt_;
};

// Stops the world, collects, walks: the heap's shape, roots and allocation origins, no contents.
// Throws std::runtime_error when the game cannot be stopped within timeout_ms.
Snapshot DumpToSnapshot(Runtime& rt, uint32_t timeout_ms = 10000);
// The same with `contents` (none when contents.fields is false: the walk above, unchanged).
// Throws also when the contents' capture fails (dump_contents.h).
Snapshot DumpToSnapshot(Runtime& rt, const DumpContents& contents, uint32_t timeout_ms = 10000);
// DumpToSnapshot, then the file at `path` (atomic) in the format its extension names (.xrpm
// keeps what the .gclog cannot: root origins, allocation origins, finalizer traits and the
// contents; .gclog is the default for other extensions). Returns the snapshot written. Throws
// when the format cannot be written. Without `contents`: what the format keeps, values
// included (ContentsFor).
Snapshot WriteGroundTruthDump(Runtime& rt, const std::string& path, uint32_t timeout_ms = 10000);
Snapshot WriteGroundTruthDump(Runtime& rt, const std::string& path, const DumpContents& contents,
                              uint32_t timeout_ms = 10000);

}  // namespace xrpm::emulator
