// Recordings (recordings.h): opening saved .xrpm recordings into the Timeline and Allocations
// views, which recording is shown, and saving the shown one.
// Thread-safety: UI thread only; the worker tasks below touch only the copies they were given.
#include <algorithm>
#include <filesystem>

#include "xrpm/app/recordings.h"
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

Recordings::Recordings(Worker& worker, SessionLog& log, Settings& settings, FrameBoard& live,
                       const DeviceLink& link)
    : worker_(worker), log_(log), settings_(settings), live_(live), link_(link) {}

FrameBoard& Recordings::shown() {
  RecordingDoc* r = doc(shown_);
  return r && r->state == RecordingDoc::State::kReady ? r->board : live_;
}

const FrameBoard& Recordings::shown() const {
  return const_cast<Recordings*>(this)->shown();
}

RecordingDoc* Recordings::doc(uint32_t id) {
  for (auto& r : docs_)
    if (r->id == id) return r.get();
  return nullptr;
}

const FrameRecording* Recordings::contents(uint32_t id) const {
  if (id == kLiveRecording) return &live_.recording();
  for (const auto& r : docs_)
    if (r->id == id)
      return r->state == RecordingDoc::State::kReady ? &r->board.recording() : nullptr;
  return nullptr;
}

std::string Recordings::Title(uint32_t id) const {
  if (id == kLiveRecording) {
    const std::string& app = live_.recording().app;
    return "Live recording" + (app.empty() ? std::string() : " (" + app + ")");
  }
  for (const auto& r : docs_)
    if (r->id == id) return r->title;
  return "(closed)";
}

void Recordings::Show(uint32_t id) {
  if (id == kLiveRecording || contents(id)) shown_ = id;
}

void Recordings::Close(uint32_t id) {
  std::erase_if(docs_, [&](const auto& r) { return r->id == id; });
  if (shown_ == id) shown_ = kLiveRecording;
}

uint32_t Recordings::Open(const std::string& path) {
  auto d = std::make_unique<RecordingDoc>();
  d->id = next_id_++;
  d->title = FileName(path);
  d->path = path;
  const uint32_t id = d->id;
  docs_.push_back(std::move(d));
  settings_.last_dir = std::filesystem::path(path).parent_path().string();
  log_.Add(LogEntry::kInfo, "Opening recording " + path);
  worker_.Post(
      "Opening " + FileName(path),
      [this, id, path](TaskContext& ctx) -> Completion {
        ctx.SetPhase("Reading " + path);
        auto saved = std::make_shared<formats::SavedRecording>(formats::LoadRecordingFile(path));
        return [this, id, path, saved] {
          RecordingDoc* r = doc(id);
          if (!r) return;  // closed while loading
          r->endpoint = saved->endpoint;
          r->board.Load(std::move(saved->rec));
          r->state = RecordingDoc::State::kReady;
          shown_ = id;
          settings_.AddRecent(AbsolutePath(path));
          log_.Add(LogEntry::kInfo,
                   "Opened recording " + path + ": " + Contents(r->board.recording()) +
                       (r->endpoint.empty() ? "" : ", recorded from " + r->endpoint));
        };
      },
      [this, id, path](const std::string& m) {
        // The reader's errors start with the file's name ("rec.xrpm: at byte offset ...").
        const std::string what =
            "Could not open the recording " + (m.starts_with(path) ? m : path + ": " + m);
        log_.Add(LogEntry::kError, what);
        if (RecordingDoc* r = doc(id)) {
          r->state = RecordingDoc::State::kFailed;
          r->problem = what;
        }
        settings_.RemoveRecent(AbsolutePath(path));
      });
  return id;
}

bool Recordings::Save(const std::string& path) {
  const uint32_t id = shown_;
  const FrameRecording& shown = this->shown().recording();
  if (shown.frames.empty()) {
    log_.Add(LogEntry::kError, "Nothing to save: no frames recorded (press Record frames first)");
    return false;
  }
  // A copy: the live recording keeps growing while the worker writes.
  auto saved = std::make_shared<formats::SavedRecording>();
  saved->rec = shown;
  if (const RecordingDoc* r = doc(id))
    saved->endpoint = r->endpoint;
  else
    saved->endpoint = link_.endpoint();
  last_saved_.clear();
  log_.Add(LogEntry::kInfo, "Saving the recording to " + path);
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
          last_saved_ = path;
          if (RecordingDoc* r = doc(id)) {  // an opened recording saved under a new name
            r->path = path;
            r->title = FileName(path);
          }
          log_.Add(LogEntry::kInfo, "Saved the recording (" + Contents(saved->rec) + ") to " +
                                        path + " in " + FormatDuration(secs));
        };
      },
      [this, path](const std::string& m) {
        log_.Add(LogEntry::kError,
                 "Could not save the recording to " + path + ": " + m + " (nothing was written)");
      });
  return true;
}

}  // namespace xrpm::app
