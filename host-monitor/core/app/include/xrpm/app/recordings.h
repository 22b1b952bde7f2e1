// Recordings: the frames recordings the Timeline and Allocations views can show: the live one
// (the FrameBoard DeviceSession feeds) and saved .xrpm recordings opened from files
// (RecordingDoc, recording_doc.h), which of them is shown, and saving the shown one. Reading and
// writing run on the session's Worker; what happened goes to the SessionLog, opened and saved
// files to the recent files in Settings.
//
// Thread-safety: not thread-safe; UI thread only. Worker tasks get copies of what they write
// (the live recording keeps growing meanwhile); their completions run on the UI thread.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "xrpm/app/device_link.h"
#include "xrpm/app/frame_board.h"
#include "xrpm/app/recording_doc.h"
#include "xrpm/app/session_log.h"
#include "xrpm/app/settings.h"
#include "xrpm/app/worker.h"

namespace xrpm::app {

class Recordings {
 public:
  // `live` is the live recording and `link` the connection it comes from (a saved live
  // recording remembers its endpoint); all of them are the session's and outlive this.
  Recordings(Worker& worker, SessionLog& log, Settings& settings, FrameBoard& live,
             const DeviceLink& link);
  Recordings(const Recordings&) = delete;
  Recordings& operator=(const Recordings&) = delete;

  // Reads a saved recording in the background; it appears at once in docs() (kLoading) and,
  // once read, is shown. A corrupt, truncated or non-recording file is refused: the document is
  // kFailed with the reader's error, which also goes to the log and last_error().
  uint32_t Open(const std::string& path);
  // Saves the shown recording (frames, collections, markers, allocation samples with their
  // stacks and tags) to `path` in the background, atomically (formats::SaveRecordingFile).
  // False, with the reason in the log, when there is nothing to save.
  bool Save(const std::string& path);
  // The path of the last recording saved ("" while a save runs or after it failed).
  const std::string& last_saved() const { return last_saved_; }

  const std::vector<std::unique_ptr<RecordingDoc>>& docs() const { return docs_; }
  RecordingDoc* doc(uint32_t id);
  void Close(uint32_t id);
  // The frames of kLiveRecording or of a ready RecordingDoc (nullptr: closed, loading, failed).
  const FrameRecording* contents(uint32_t id) const;
  // "Live recording (bubbles.exe)" or the file name.
  std::string Title(uint32_t id) const;

  // Which recording the Timeline shows: kLiveRecording or a ready RecordingDoc's id.
  uint32_t shown_id() const { return shown_; }
  void Show(uint32_t id);
  // The recording the Timeline and Allocations views show: the live one or an opened file.
  FrameBoard& shown();
  const FrameBoard& shown() const;

 private:
  Worker& worker_;
  SessionLog& log_;
  Settings& settings_;
  FrameBoard& live_;
  const DeviceLink& link_;
  std::vector<std::unique_ptr<RecordingDoc>> docs_;
  uint32_t shown_ = kLiveRecording;
  uint32_t next_id_ = 1;
  std::string last_saved_;
};

}  // namespace xrpm::app
