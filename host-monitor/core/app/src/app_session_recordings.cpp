// Saved recordings in the monitor (AppSession): opening .xrpm
// recordings into the Timeline and Allocations views, saving the shown recording, and Compare's
// allocation traffic of two recordings (analysis::DiffAllocations, as `xrpm allocations --diff`).
// Thread-safety: the UI thread only, as the rest of AppSession (app_session.h); the worker tasks
// below touch only the copies they were given.
#include <algorithm>
#include <filesystem>

#include "xrpm/app/app_session.h"
#include "xrpm/formats/recording_file.h"
#include "xrpm/formats/xrpm_file.h"
#include "xrpm/model/human_format.h"

namespace xrpm::app {
namespace {

std::string FileName(const std::string& path) {
  return std::filesystem::path(path).filename().string();
}

// "1,234 frames, 567 samples, 3 markers".
std::string Contents(const FrameRecording& r) {
  return FormatCount(r.frames.size()) + " frames, " + FormatCount(r.samples.size()) + " samples, " +
         FormatCount(r.markers.size()) + " markers";
}

}  // namespace

bool IsRecordingFile(const std::string& path) {
  try {
    const auto& tags = formats::RecordingPartTags();
    for (const formats::XrpmPartInfo& p : formats::ListXrpmParts(path))
      if (std::find(tags.begin(), tags.end(), p.tag) != tags.end()) return true;
  } catch (const std::exception&) {
    // Not an .xrpm, or too damaged to list: the snapshot reader says what is wrong.
  }
  return false;
}

FrameBoard& AppSession::frames() {
  RecordingDoc* r = recording(shown_recording_);
  return r && r->state == RecordingDoc::State::kReady ? r->board : frames_;
}

const FrameBoard& AppSession::frames() const {
  return const_cast<AppSession*>(this)->frames();
}

RecordingDoc* AppSession::recording(uint32_t id) {
  for (auto& r : recordings_)
    if (r->id == id) return r.get();
  return nullptr;
}

const FrameRecording* AppSession::RecordingOf(uint32_t id) const {
  if (id == kLiveRecording) return &frames_.recording();
  for (const auto& r : recordings_)
    if (r->id == id)
      return r->state == RecordingDoc::State::kReady ? &r->board.recording() : nullptr;
  return nullptr;
}

std::string AppSession::RecordingTitle(uint32_t id) const {
  if (id == kLiveRecording) {
    const std::string& app = frames_.recording().app;
    return "Live recording" + (app.empty() ? std::string() : " (" + app + ")");
  }
  for (const auto& r : recordings_)
    if (r->id == id) return r->title;
  return "(closed)";
}

void AppSession::ShowRecording(uint32_t id) {
  if (id == kLiveRecording || RecordingOf(id)) shown_recording_ = id;
}

void AppSession::CloseRecording(uint32_t id) {
  std::erase_if(recordings_, [&](const auto& r) { return r->id == id; });
  if (shown_recording_ == id) shown_recording_ = kLiveRecording;
}

AppSession::Opened AppSession::Open(const std::string& path) {
  if (IsRecordingFile(path)) return {true, OpenRecording(path)};
  return {false, OpenFile(path)};
}

uint32_t AppSession::OpenRecording(const std::string& path) {
  auto doc = std::make_unique<RecordingDoc>();
  doc->id = next_recording_id_++;
  doc->title = FileName(path);
  doc->path = path;
  const uint32_t id = doc->id;
  recordings_.push_back(std::move(doc));
  settings_.last_dir = std::filesystem::path(path).parent_path().string();
  Log(LogEntry::kInfo, "Opening recording " + path);
  worker_.Post(
      "Opening " + FileName(path),
      [this, id, path](TaskContext& ctx) -> Completion {
        ctx.SetPhase("Reading " + path);
        auto saved = std::make_shared<formats::SavedRecording>(formats::LoadRecordingFile(path));
        return [this, id, path, saved] {
          RecordingDoc* r = recording(id);
          if (!r) return;  // closed while loading
          r->endpoint = saved->endpoint;
          r->board.Load(std::move(saved->rec));
          r->state = RecordingDoc::State::kReady;
          shown_recording_ = id;
          settings_.AddRecent(AbsolutePath(path));
          Log(LogEntry::kInfo, "Opened recording " + path + ": " + Contents(r->board.recording()) +
                                   (r->endpoint.empty() ? "" : ", recorded from " + r->endpoint));
        };
      },
      [this, id, path](const std::string& m) {
        // The reader's errors start with the file's name ("rec.xrpm: at byte offset ...").
        const std::string what =
            "Could not open the recording " + (m.starts_with(path) ? m : path + ": " + m);
        Log(LogEntry::kError, what);
        if (RecordingDoc* r = recording(id)) {
          r->state = RecordingDoc::State::kFailed;
          r->problem = what;
        }
        settings_.RemoveRecent(AbsolutePath(path));
      });
  return id;
}

bool AppSession::SaveRecording(const std::string& path) {
  const uint32_t id = shown_recording_;
  const FrameRecording& shown = frames().recording();
  if (shown.frames.empty()) {
    Log(LogEntry::kError, "Nothing to save: no frames recorded (press Record frames first)");
    return false;
  }
  // A copy: the live recording keeps growing while the worker writes.
  auto saved = std::make_shared<formats::SavedRecording>();
  saved->rec = shown;
  if (const RecordingDoc* r = recording(id))
    saved->endpoint = r->endpoint;
  else
    saved->endpoint = link_.endpoint();
  last_saved_recording_.clear();
  Log(LogEntry::kInfo, "Saving the recording to " + path);
  worker_.Post(
      "Saving " + FileName(path),
      [this, id, path, saved](TaskContext& ctx) -> Completion {
        const auto t0 = std::chrono::steady_clock::now();
        ctx.SetPhase("Writing " + path);
        formats::SaveRecordingFile(*saved, path);
        const double secs =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        return [this, id, path, saved, secs] {
          settings_.AddRecent(AbsolutePath(path));
          settings_.last_dir = std::filesystem::path(AbsolutePath(path)).parent_path().string();
          last_saved_recording_ = path;
          if (RecordingDoc* r = recording(id)) {  // an opened recording saved under a new name
            r->path = path;
            r->title = FileName(path);
          }
          Log(LogEntry::kInfo, "Saved the recording (" + Contents(saved->rec) + ") to " + path +
                                   " in " + FormatDuration(secs));
        };
      },
      [this, path](const std::string& m) {
        Log(LogEntry::kError,
            "Could not save the recording to " + path + ": " + m + " (nothing was written)");
      });
  return true;
}

bool AppSession::CompareAllocations(uint32_t a, uint32_t b, analysis::AllocSiteKind by) {
  const FrameRecording* ra = RecordingOf(a);
  const FrameRecording* rb = RecordingOf(b);
  if (!ra || !rb) {
    Log(LogEntry::kError,
        "Compare allocations: " + RecordingTitle(ra ? b : a) + " is not a recording that was read");
    return false;
  }
  alloc_compare_.reset();  // replaced when the comparison is done
  auto r = std::make_shared<AllocCompareResult>();
  r->recordings = {a, b};
  r->titles = {RecordingTitle(a), RecordingTitle(b)};
  r->apps = {ra->app, rb->app};
  // Copies: the live recording keeps growing while the worker compares.
  auto copies =
      std::make_shared<std::array<FrameRecording, 2>>(std::array<FrameRecording, 2>{*ra, *rb});
  worker_.Post(
      "Comparing the allocations of " + r->titles[0] + " and " + r->titles[1],
      [this, r, copies, by](TaskContext& ctx) -> Completion {
        ctx.SetPhase("Allocation profiles per call site");
        r->diff = analysis::DiffAllocations((*copies)[0], (*copies)[1], by);
        return [this, r] {
          alloc_compare_ = r;
          Log(LogEntry::kInfo, "Compared the allocations of " + r->titles[0] + " and " +
                                   r->titles[1] + " by " + analysis::AllocSiteKindName(r->diff.by) +
                                   ": " + FormatCount(r->diff.rows.size()) + " sites");
        };
      },
      [this](const std::string& m) {
        Log(LogEntry::kError, "Could not compare allocations: " + m);
      });
  return true;
}

}  // namespace xrpm::app
