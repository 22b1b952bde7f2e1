// Saved recordings: a FrameRecording (frame rows with their collections, markers, allocation
// samples with their stacks and scope tags, and the tables they refer to) kept in an .xrpm file
// as optional parts beside the snapshot (docs/FORMAT.md, "Recordings": tags rhdr, rdef, rmrk, the
// frame columns rf.. and the sample columns rs..). `xrpm frames -o` / `xrpm allocations -o` write
// one beside an empty snapshot; a reader that does not know the parts skips them, so old xrpm
// versions still open the file, and a snapshot file without them is "not a recording".
//
// Reading checks what the analyses rely on, as the host client checks the wire (its
// frame_batch_reader), against the same limits (xrpm/protocol/constants.h):
// column widths and counts, ids within the tables, table sizes, name and marker lengths, marker
// kinds, increasing frame numbers. Every failure is an InputError naming the file, the part, its
// byte offset, what was expected and what was found.
//
// Cost: O(frames + samples + markers + table bytes) both ways; memory is the recording plus the
// encoded parts. Saving is atomic (WriteXrpmFile: temporary file, fsync, rename).
//
// Thread-safety: pure functions; separate calls may run concurrently.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "xrpm/formats/xrpm_file.h"
#include "xrpm/model/frame_recording.h"

namespace xrpm::formats {

struct SavedRecording {
  FrameRecording rec;
  std::string endpoint;  // where it was recorded ("127.0.0.1:4510"), as the live run printed it

  friend bool operator==(const SavedRecording&, const SavedRecording&) = default;
};

// The tags of a recording's parts, for XrpmReadOptions::wanted.
const std::vector<std::string>& RecordingPartTags();

// The parts that hold `r` (for XrpmWriteOptions::extra_parts), all optional.
std::vector<formats::XrpmPart> EncodeRecordingParts(const SavedRecording& r);

// Does `c` (read with RecordingPartTags() wanted) hold a recording?
bool HasRecording(const formats::XrpmContents& c);
// Decodes the recording held by `c`. Throws InputError (file `name`, part and byte offset):
// "missing-part" when only some of the parts are present, "bad-count" for columns of different
// lengths, "bad-part" for content out of range. Requires HasRecording(c).
SavedRecording DecodeRecording(const formats::XrpmContents& c, const std::string& name);

// Writes `r` beside an empty snapshot to `path`, atomically. Throws std::runtime_error on I/O.
void SaveRecordingFile(const SavedRecording& r, const std::string& path);
// Reads a recording. Throws InputError for a corrupt file, and with code "no-recording" for a
// valid .xrpm without one (a heap snapshot).
SavedRecording LoadRecordingFile(const std::string& path);
// The same from bytes (tests, fuzzing; `verify_checksums` off only for fuzzing).
SavedRecording ParseRecording(std::string_view bytes, const std::string& name,
                              bool verify_checksums = true);

}  // namespace xrpm::formats
