// Documents (documents.h).
// Thread-safety: UI thread only; the worker tasks below touch only the copies they were given.
#include "xrpm/app/documents.h"

#include <algorithm>
#include <filesystem>

#include "xrpm/formats/snapshot_io.h"
#include "xrpm/model/human_format.h"

namespace xrpm::app {
namespace {
constexpr size_t kKeptDiagnostics = 20;

double Seconds(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// What every document gets as soon as its snapshot is in memory (one pass each).
struct Basics {
  std::shared_ptr<const TypeTable> types;
  std::shared_ptr<const HeapOverview> overview;
};
Basics ComputeBasics(const Snapshot& snap) {
  return {std::make_shared<TypeTable>(BuildTypeTable(snap)),
          std::make_shared<HeapOverview>(OverviewOf(snap))};
}
}  // namespace

Documents::Documents(Worker& worker, SessionLog& log, Settings& settings)
    : worker_(worker), log_(log), settings_(settings) {}

SnapshotDoc* Documents::doc(uint32_t id) {
  for (auto& d : docs_)
    if (d->id == id) return d.get();
  return nullptr;
}

const SnapshotDoc* Documents::doc(uint32_t id) const {
  return const_cast<Documents*>(this)->doc(id);
}

void Documents::SetActive(uint32_t id) {
  if (doc(id)) active_id_ = id;
}

uint32_t Documents::NewDoc(std::string title, std::string path, DocOrigin origin) {
  auto d = std::make_unique<SnapshotDoc>();
  d->id = next_id_++;
  d->title = std::move(title);
  d->path = std::move(path);
  d->origin = origin;
  d->state = DocState::kLoading;
  const uint32_t id = d->id;
  docs_.push_back(std::move(d));
  active_id_ = id;
  return id;
}

void Documents::Fail(uint32_t id, const std::string& what) {
  log_.Add(LogEntry::kError, what);
  if (SnapshotDoc* d = doc(id)) {
    d->state = DocState::kFailed;
    d->problem = what;
  }
}

uint32_t Documents::OpenFile(const std::string& path) {
  const std::string name = std::filesystem::path(path).filename().string();
  const uint32_t id = NewDoc(name, path, DocOrigin::kOpened);
  settings_.last_dir = std::filesystem::path(path).parent_path().string();
  log_.Add(LogEntry::kInfo, "Opening " + path);
  worker_.Post(
      "Opening " + name,
      [this, id, path](TaskContext& ctx) -> Completion {
        const auto t0 = std::chrono::steady_clock::now();
        ctx.SetPhase("Reading " + path);
        Diagnostics diags;
        auto snap = std::make_shared<Snapshot>(formats::LoadSnapshot(path, diags));
        snap->source = path;
        if (ctx.cancelled())
          return [this, id, path] {
            log_.Add(LogEntry::kInfo, "Opening " + path + " cancelled");
            Close(id, /*discard=*/true);
          };
        ctx.SetPhase("Counting types", 0);
        Basics basics = ComputeBasics(*snap);
        const double secs = Seconds(t0);
        std::vector<std::string> first;
        for (const auto& dg : diags.kept()) {
          if (first.size() >= kKeptDiagnostics) break;
          first.push_back(dg.ToString());
        }
        return [this, id, path, snap, basics, secs, first = std::move(first),
                total = diags.total()]() mutable {
          SnapshotDoc* d = doc(id);
          if (!d) return;  // closed while loading
          d->snapshot = std::move(snap);
          d->types = basics.types;
          d->overview = basics.overview;
          d->load_seconds = secs;
          d->diagnostics_total = total;
          d->diagnostics = std::move(first);
          d->state = DocState::kReady;
          settings_.AddRecent(AbsolutePath(path));
          log_.Add(
              total ? LogEntry::kWarning : LogEntry::kInfo,
              "Opened " + path + ": " + FormatCount(d->snapshot->object_count()) + " objects, " +
                  FormatBytes(d->snapshot->total_bytes()) + " in " + FormatDuration(secs) +
                  (total ? " (" + FormatCount(total) + " problems in the file, see Summary)" : ""));
          StartAnalysis(id);
        };
      },
      [this, id, path](const std::string& m) {
        Fail(id, "Could not open " + path + ": " + m);
        settings_.RemoveRecent(path);
      });
  return id;
}

uint32_t Documents::OpenDemo(const DemoHeapOptions& o) {
  const std::string title = "Demo heap " + FormatShortCount(double(o.objects)) +
                            (o.generation ? " gen " + std::to_string(o.generation) : "");
  const uint32_t id = NewDoc(title, "", DocOrigin::kGenerated);
  worker_.Post(
      "Generating " + title,
      [this, id, o](TaskContext& ctx) -> Completion {
        const auto t0 = std::chrono::steady_clock::now();
        ctx.SetPhase("Generating objects");
        auto snap = std::make_shared<Snapshot>(GenerateDemoHeap(o));
        ctx.SetPhase("Counting types");
        Basics basics = ComputeBasics(*snap);
        const double secs = Seconds(t0);
        return [this, id, snap, basics, secs] {
          SnapshotDoc* d = doc(id);
          if (!d) return;
          d->snapshot = snap;
          d->types = basics.types;
          d->overview = basics.overview;
          d->load_seconds = secs;
          d->state = DocState::kReady;
          d->unsaved = true;
          log_.Add(LogEntry::kInfo,
                   "Generated " + d->title + ": " + FormatCount(snap->object_count()) + " objects");
          StartAnalysis(id);
        };
      },
      [this, id](const std::string& m) { Fail(id, "Could not generate the demo heap: " + m); });
  return id;
}

uint32_t Documents::AddSnapshot(Snapshot snap, DocOrigin origin, std::string title) {
  return AddSnapshot(std::make_shared<const Snapshot>(std::move(snap)), origin, std::move(title));
}

uint32_t Documents::AddSnapshot(std::shared_ptr<const Snapshot> snap, DocOrigin origin,
                                std::string title) {
  if (title.empty()) title = NewCaptureTitle("");
  const uint32_t id = NewDoc(std::move(title), "", origin);
  SnapshotDoc* d = doc(id);
  d->unsaved = origin != DocOrigin::kOpened;
  worker_.Post(
      "Counting types of " + d->title,
      [this, id, snap = std::move(snap)](TaskContext& ctx) -> Completion {
        ctx.SetPhase("Counting types");
        Basics basics = ComputeBasics(*snap);
        return [this, id, snap, basics] {
          SnapshotDoc* d = doc(id);
          if (!d) return;
          d->snapshot = snap;
          d->types = basics.types;
          d->overview = basics.overview;
          d->state = DocState::kReady;
          StartAnalysis(id);
        };
      },
      [this, id](const std::string& m) { Fail(id, "Could not read the capture: " + m); });
  return id;
}

std::string Documents::NewCaptureTitle(const std::string& app) {
  return "Capture " + std::to_string(++captures_) + (app.empty() ? "" : " — " + app);
}

void Documents::StartAnalysis(uint32_t id) {
  SnapshotDoc* d = doc(id);
  if (!d || !d->snapshot || d->analysis) return;
  d->state = DocState::kAnalysing;
  d->analysis_note.clear();
  worker_.Post(
      "Analysing " + d->title,
      [this, id, snap = d->snapshot, index = index_choice_](TaskContext& ctx) -> Completion {
        std::shared_ptr<const DocAnalysis> a;
        try {
          a = AnalyseDoc(snap, ctx, index);
        } catch (const Cancelled&) {
          return [this, id] {
            if (SnapshotDoc* d = doc(id)) {
              d->state = DocState::kReady;
              d->analysis_note = "Analysis cancelled: no retained sizes, paths or dominators.";
              log_.Add(LogEntry::kWarning, "Analysis of " + d->title + " cancelled");
            }
          };
        }
        return [this, id, a] {
          SnapshotDoc* d = doc(id);
          if (!d) return;
          d->analysis = a;
          d->types = std::make_shared<TypeTable>(WithRetained(*d->types, a->retained_by_type));
          d->analysis_seconds = a->seconds;
          d->state = DocState::kReady;
          log_.Add(LogEntry::kInfo,
                   "Analysed " + d->title + " in " + FormatDuration(a->seconds) + ": " +
                       FormatCount(a->totals.reachable_objects) + " reachable objects, " +
                       std::to_string(a->suspects.size()) + " leak suspects" +
                       (a->lean_index ? " (lean index: referrers are found by a scan)" : ""));
        };
      },
      [this, id](const std::string& m) {
        if (SnapshotDoc* d = doc(id)) {
          d->state = DocState::kReady;
          d->analysis_note = "Analysis failed: " + m;
          log_.Add(LogEntry::kError, "Could not analyse " + d->title + ": " + m);
        }
      });
}

void Documents::Analyse(uint32_t id) {
  StartAnalysis(id);
}

void Documents::SaveAs(uint32_t id, const std::string& path, const std::string& format) {
  SnapshotDoc* d = doc(id);
  if (!d || !d->snapshot) {
    log_.Add(LogEntry::kError, "Nothing to save: the snapshot is not loaded yet");
    return;
  }
  log_.Add(LogEntry::kInfo, "Saving " + d->title + " to " + path);
  worker_.Post(
      "Saving " + std::filesystem::path(path).filename().string(),
      [this, id, path, format, snap = d->snapshot](TaskContext& ctx) -> Completion {
        const auto t0 = std::chrono::steady_clock::now();
        ctx.SetPhase("Writing " + path);
        const formats::FormatInfo* f =
            format.empty() ? formats::FormatForPath(path, false) : formats::FindFormat(format);
        std::vector<std::string> lost = formats::FormatLosses(*snap, f ? f->name : "netcf");
        formats::SaveSnapshot(*snap, path, format);
        const double secs = Seconds(t0);
        return [this, id, path, secs, lost = std::move(lost)] {
          settings_.AddRecent(AbsolutePath(path));
          settings_.last_dir = std::filesystem::path(AbsolutePath(path)).parent_path().string();
          log_.Add(LogEntry::kInfo, "Saved " + path + " in " + FormatDuration(secs));
          for (const std::string& l : lost)
            log_.Add(LogEntry::kWarning, "The saved file does not keep " + l);
          if (SnapshotDoc* d = doc(id)) {
            d->path = path;
            d->unsaved = false;
            d->title = std::filesystem::path(path).filename().string();
          }
        };
      },
      [this, path](const std::string& m) {
        log_.Add(LogEntry::kError, "Could not save " + path + ": " + m + " (nothing was written)");
      });
}

bool Documents::Close(uint32_t id, bool discard) {
  auto it = std::find_if(docs_.begin(), docs_.end(), [&](auto& d) { return d->id == id; });
  if (it == docs_.end()) return true;
  if ((*it)->unsaved && !discard) return false;
  docs_.erase(it);
  if (active_id_ == id) active_id_ = docs_.empty() ? 0 : docs_.back()->id;
  return true;
}

bool Documents::HasUnsaved() const {
  return std::any_of(docs_.begin(), docs_.end(), [](auto& d) { return d->unsaved; });
}

void Documents::FindHolders(uint32_t id, uint32_t type_index) {
  SnapshotDoc* d = doc(id);
  if (!d || !d->analysis || type_index >= d->snapshot->type_count()) return;
  const uint32_t group = d->analysis->index().group_of_type(type_index);
  if ((d->holders && d->holders->group == group) || d->holders_pending == group) return;
  d->holders_pending = group;
  worker_.Post(
      "Paths holding " + d->analysis->index().group_name(group),
      [this, id, group, a = d->analysis](TaskContext& ctx) -> Completion {
        ctx.SetPhase("Merging shortest paths");
        auto h = std::make_shared<Holders>();
        h->group = group;
        h->paths = a->MergeHolders(group, 12);
        return [this, id, h] {
          if (SnapshotDoc* d = doc(id)) {
            d->holders = h;
            if (d->holders_pending == h->group) d->holders_pending = kNoIndex;
          }
        };
      },
      [this, id](const std::string& m) {
        if (SnapshotDoc* d = doc(id)) d->holders_pending = kNoIndex;
        log_.Add(LogEntry::kError, "Could not find the paths: " + m);
      });
}

namespace {

std::shared_ptr<ObjectDetails> Describe(const DocAnalysis& a, uint32_t node) {
  auto d = std::make_shared<ObjectDetails>();
  d->node = node;
  d->out = a.index().OutList(node);
  d->in = a.index().Referrers(node);
  d->contents = analysis::DescribeContents(a.index(), node, d->in);
  return d;
}

}  // namespace

void Documents::DescribeObject(uint32_t id, uint32_t node) {
  SnapshotDoc* d = doc(id);
  if (!d || !d->analysis || node >= d->analysis->index().node_count()) return;
  if ((d->details && d->details->node == node) || d->details_pending == node) return;
  if (d->analysis->index().has_reverse()) {
    d->details = Describe(*d->analysis, node);
    return;
  }
  d->details_pending = node;
  worker_.Post(
      "Referrers of " + FormatHex(d->snapshot->object_id[node]),
      [this, id, node, a = d->analysis](TaskContext& ctx) -> Completion {
        ctx.SetPhase("Finding referrers");
        std::shared_ptr<const ObjectDetails> details = Describe(*a, node);
        return [this, id, details] {
          if (SnapshotDoc* d = doc(id)) {
            d->details = details;
            if (d->details_pending == details->node) d->details_pending = kNoIndex;
          }
        };
      },
      [this, id](const std::string& m) {
        if (SnapshotDoc* d = doc(id)) d->details_pending = kNoIndex;
        log_.Add(LogEntry::kError, "Could not find the referrers: " + m);
      });
}

}  // namespace xrpm::app
