#include "xrpm/app/app_session.h"

#include <algorithm>
#include <filesystem>
#include <sstream>
#include <nlohmann/json.hpp>

#include "xrpm/model/human_format.h"
#include "xrpm/formats/snapshot_io.h"

namespace xrpm::app {
namespace {
// Recent files and the last directory must work from any working directory.
std::string AbsolutePath(const std::string& path) {
  std::error_code ec;
  const auto abs = std::filesystem::absolute(path, ec);
  return ec ? path : abs.lexically_normal().string();
}

constexpr size_t kMaxLog = 500;
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

AppSession::AppSession(Options opts)
    : opts_(std::move(opts)),
      config_dir_(opts_.config_dir.empty() ? ConfigDir() : opts_.config_dir),
      worker_(opts_.wake) {
  std::string problem;
  settings_ = LoadSettings(config_dir_ + "/settings.json", &problem);
  if (!problem.empty()) Log(LogEntry::kWarning, problem);
}

AppSession::~AppSession() {
  worker_.CancelAll();
  if (opts_.persist) SaveSettingsNow();
}

void AppSession::SaveSettingsNow() {
  if (!opts_.persist) return;
  try {
    SaveSettings(settings_, config_dir_ + "/settings.json");
  } catch (const std::exception& e) {
    Log(LogEntry::kWarning, std::string("Could not save settings: ") + e.what());
  }
}

double AppSession::Now() const {
  return Seconds(start_);
}

void AppSession::Log(LogEntry::Level level, std::string text) {
  if (level == LogEntry::kError) last_error_ = text;
  log_.push_back(LogEntry{level, Now(), std::move(text)});
  while (log_.size() > kMaxLog) log_.pop_front();
}

SnapshotDoc* AppSession::doc(uint32_t id) {
  for (auto& d : docs_)
    if (d->id == id) return d.get();
  return nullptr;
}

void AppSession::SetActive(uint32_t id) {
  if (doc(id)) active_id_ = id;
}

uint32_t AppSession::NewDoc(std::string title, std::string path, DocOrigin origin) {
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

void AppSession::Fail(uint32_t id, const std::string& what) {
  Log(LogEntry::kError, what);
  if (SnapshotDoc* d = doc(id)) {
    d->state = DocState::kFailed;
    d->problem = what;
  }
}

uint32_t AppSession::OpenFile(const std::string& path) {
  const std::string name = std::filesystem::path(path).filename().string();
  const uint32_t id = NewDoc(name, path, DocOrigin::kOpened);
  settings_.last_dir = std::filesystem::path(path).parent_path().string();
  Log(LogEntry::kInfo, "Opening " + path);
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
            Log(LogEntry::kInfo, "Opening " + path + " cancelled");
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
          Log(total ? LogEntry::kWarning : LogEntry::kInfo,
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

uint32_t AppSession::OpenDemo(const DemoHeapOptions& o) {
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
          Log(LogEntry::kInfo,
              "Generated " + d->title + ": " + FormatCount(snap->object_count()) + " objects");
          StartAnalysis(id);
        };
      },
      [this, id](const std::string& m) { Fail(id, "Could not generate the demo heap: " + m); });
  return id;
}

uint32_t AppSession::AddSnapshot(Snapshot snap, DocOrigin origin, std::string title) {
  return AddSnapshot(std::make_shared<const Snapshot>(std::move(snap)), origin, std::move(title));
}

uint32_t AppSession::AddSnapshot(std::shared_ptr<const Snapshot> snap, DocOrigin origin,
                                 std::string title) {
  if (title.empty()) title = "Capture " + std::to_string(++captures_);
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

void AppSession::StartAnalysis(uint32_t id) {
  SnapshotDoc* d = doc(id);
  if (!d || !d->snapshot || d->analysis) return;
  d->state = DocState::kAnalysing;
  d->analysis_note.clear();
  worker_.Post(
      "Analysing " + d->title,
      [this, id, snap = d->snapshot](TaskContext& ctx) -> Completion {
        std::shared_ptr<const DocAnalysis> a;
        try {
          a = AnalyseDoc(snap, ctx);
        } catch (const analysis::Cancelled&) {
          return [this, id] {
            if (SnapshotDoc* d = doc(id)) {
              d->state = DocState::kReady;
              d->analysis_note = "Analysis cancelled: no retained sizes, paths or dominators.";
              Log(LogEntry::kWarning, "Analysis of " + d->title + " cancelled");
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
          Log(LogEntry::kInfo, "Analysed " + d->title + " in " + FormatDuration(a->seconds) + ": " +
                                   FormatCount(a->totals.reachable_objects) +
                                   " reachable objects, " + std::to_string(a->suspects.size()) +
                                   " leak suspects");
        };
      },
      [this, id](const std::string& m) {
        if (SnapshotDoc* d = doc(id)) {
          d->state = DocState::kReady;
          d->analysis_note = "Analysis failed: " + m;
          Log(LogEntry::kError, "Could not analyse " + d->title + ": " + m);
        }
      });
}

void AppSession::Analyse(uint32_t id) {
  StartAnalysis(id);
}

void AppSession::FindHolders(uint32_t id, uint32_t type_index) {
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
        h->paths = analysis::MergeShortestPaths(a->index(), a->forest, &a->dom(), group, 12);
        return [this, id, h] {
          if (SnapshotDoc* d = doc(id)) {
            d->holders = h;
            if (d->holders_pending == h->group) d->holders_pending = kNoIndex;
          }
        };
      },
      [this, id](const std::string& m) {
        if (SnapshotDoc* d = doc(id)) d->holders_pending = kNoIndex;
        Log(LogEntry::kError, "Could not find the paths: " + m);
      });
}

void AppSession::Compare(std::vector<uint32_t> ids) {
  std::vector<std::shared_ptr<const DocAnalysis>> parts;
  std::vector<std::string> titles;
  for (uint32_t id : ids) {
    SnapshotDoc* d = doc(id);
    if (!d || !d->analysis) {
      Log(LogEntry::kError,
          "Compare needs analysed snapshots; " +
              (d ? d->title + " is not analysed yet" : std::string("one was closed")));
      return;
    }
    parts.push_back(d->analysis);
    titles.push_back(d->title);
  }
  if (parts.size() < 2) {
    Log(LogEntry::kError, "Compare needs at least two snapshots");
    return;
  }
  worker_.Post(
      "Comparing " + std::to_string(parts.size()) + " snapshots",
      [this, ids, titles, parts](TaskContext& ctx) -> Completion {
        auto r = std::make_shared<CompareResult>();
        r->docs = ids;
        r->titles = titles;
        r->last = parts.back();
        std::vector<analysis::HeapSummary> sums;
        for (const auto& p : parts) sums.push_back(p->summary);
        ctx.SetPhase("Diff by type");
        r->diff = analysis::DiffSummaries(sums);
        ctx.SetPhase("Growing types");
        analysis::Progress progress;
        progress.cancel = ctx.cancel_flag();
        r->growth = analysis::FindGrowthSuspects(r->diff, r->last->heap, {}, progress);
        return [this, r] {
          compare_ = r;
          Log(LogEntry::kInfo, "Compared " + std::to_string(r->docs.size()) + " snapshots: " +
                                   std::to_string(r->growth.size()) + " growing types");
        };
      },
      [this](const std::string& m) { Log(LogEntry::kError, "Could not compare: " + m); });
}

void AppSession::FindLeaks(uint32_t a, uint32_t b, uint32_t c) {
  auto r = std::make_shared<LeaksResult>();
  r->docs = {a, b, c};
  std::array<std::shared_ptr<const DocAnalysis>, 3> parts;
  for (size_t k = 0; k < 3; ++k) {
    SnapshotDoc* d = doc(r->docs[k]);
    r->titles[k] = d ? d->title : "(closed)";
    if (d) parts[k] = d->analysis;
    if (!parts[k] && r->error.empty())
      r->error = "Capture " + std::string(1, char('A' + k)) + " (" + r->titles[k] + ") " +
                 (d ? "is not analysed yet." : "was closed.");
  }
  if (!r->error.empty()) {
    leaks_ = r;
    return;
  }
  const analysis::LeakNames names = {r->titles[0], r->titles[1], r->titles[2]};
  r->error = analysis::CheckLeakCaptures(*parts[0]->snapshot, *parts[1]->snapshot,
                                         *parts[2]->snapshot, names);
  if (!r->error.empty()) {
    leaks_ = r;
    Log(LogEntry::kWarning, "Leak filter: " + r->error);
    return;
  }
  worker_.Post(
      "Finding leaks in " + r->titles[2],
      [this, r, parts](TaskContext& ctx) -> Completion {
        analysis::Progress progress;
        progress.cancel = ctx.cancel_flag();
        ctx.SetPhase("Allocated between A and B, alive in C");
        const analysis::LeakNames names = {r->titles[0], r->titles[1], r->titles[2]};
        try {
          r->report = analysis::FindLeaks(*parts[0]->snapshot, *parts[1]->snapshot,
                                          parts[2]->index(), parts[2]->forest, {}, names, progress);
          r->c = parts[2];
        } catch (const analysis::LeakFilterError& e) {
          r->error = e.what();
        }
        return [this, r] {
          leaks_ = r;
          if (r->error.empty())
            Log(LogEntry::kInfo, "Leak filter: " + std::to_string(r->report.groups.size()) +
                                     " groups allocated between " + r->titles[0] + " and " +
                                     r->titles[1] + " still alive in " + r->titles[2]);
        };
      },
      [this](const std::string& m) { Log(LogEntry::kError, "Could not find leaks: " + m); });
}

void AppSession::SaveAs(uint32_t id, const std::string& path, const std::string& format) {
  SnapshotDoc* d = doc(id);
  if (!d || !d->snapshot) {
    Log(LogEntry::kError, "Nothing to save: the snapshot is not loaded yet");
    return;
  }
  Log(LogEntry::kInfo, "Saving " + d->title + " to " + path);
  worker_.Post(
      "Saving " + std::filesystem::path(path).filename().string(),
      [this, id, path, format, snap = d->snapshot](TaskContext& ctx) -> Completion {
        const auto t0 = std::chrono::steady_clock::now();
        ctx.SetPhase("Writing " + path);
        const formats::FormatInfo* f = format.empty() ? formats::FormatForPath(path, false) : formats::FindFormat(format);
        std::vector<std::string> lost = formats::FormatLosses(*snap, f ? f->name : "netcf");
        formats::SaveSnapshot(*snap, path, format);
        const double secs = Seconds(t0);
        return [this, id, path, secs, lost = std::move(lost)] {
          settings_.AddRecent(AbsolutePath(path));
          settings_.last_dir = std::filesystem::path(AbsolutePath(path)).parent_path().string();
          Log(LogEntry::kInfo, "Saved " + path + " in " + FormatDuration(secs));
          for (const std::string& l : lost)
            Log(LogEntry::kWarning, "The saved file does not keep " + l);
          if (SnapshotDoc* d = doc(id)) {
            d->path = path;
            d->unsaved = false;
            d->title = std::filesystem::path(path).filename().string();
          }
        };
      },
      [this, path](const std::string& m) {
        Log(LogEntry::kError, "Could not save " + path + ": " + m + " (nothing was written)");
      });
}

bool AppSession::Close(uint32_t id, bool discard) {
  auto it = std::find_if(docs_.begin(), docs_.end(), [&](auto& d) { return d->id == id; });
  if (it == docs_.end()) return true;
  if ((*it)->unsaved && !discard) return false;
  docs_.erase(it);
  if (active_id_ == id) active_id_ = docs_.empty() ? 0 : docs_.back()->id;
  return true;
}

bool AppSession::HasUnsaved() const {
  return std::any_of(docs_.begin(), docs_.end(), [](auto& d) { return d->unsaved; });
}

bool AppSession::SelectType(const std::string& name) {
  SnapshotDoc* d = active();
  if (!d || !d->snapshot) return false;
  const auto& types = d->snapshot->types;
  int64_t found = -1;
  if (d->types)
    for (const auto& row : d->types->rows)  // prefer a type that has instances
      if (types[row.type].name == name) {
        found = row.type;
        break;
      }
  if (found < 0)
    for (size_t t = 0; t < types.size(); ++t)
      if (types[t].name == name) {
        found = static_cast<int64_t>(t);
        break;
      }
  if (found < 0) return false;
  d->selection.type = found;
  d->selection.object = -1;
  d->selection.site.reset();
  return true;
}

bool AppSession::SelectObject(uint64_t object_index) {
  SnapshotDoc* d = active();
  if (!d || !d->snapshot || object_index >= d->snapshot->object_count()) return false;
  d->selection.object = static_cast<int64_t>(object_index);
  return true;
}

bool AppSession::Poll() {
  const bool ran = worker_.RunCompletions() > 0;
  const uint64_t before = counters_.samples();
  const size_t frames_before = frames_.recording().frames.size();
  PollDevice();
  return ran || counters_.samples() != before || frames_.recording().frames.size() != frames_before;
}

bool AppSession::SelectSite(const std::string& text) {
  SnapshotDoc* d = active();
  if (!d || !d->snapshot || !d->snapshot->has_origins()) return false;
  if (text == "all") {
    d->selection.site.reset();
    return true;
  }
  if (text == "unknown") {
    d->selection.site = kUnknownSite;
    return true;
  }
  const Snapshot& s = *d->snapshot;
  std::vector<analysis::SiteRow> rows;
  if (d->selection.type >= 0 && d->analysis)
    rows = analysis::SiteStatsOfGroup(d->analysis->index(),
                                      d->analysis->index().group_of_type(d->selection.type));
  else if (d->analysis)
    rows = d->analysis->origins.sites;
  for (const auto& r : rows)
    if (r.site != kUnknownSite &&
        analysis::SiteLabel(s, r.site, 0).find(text) != std::string::npos) {
      d->selection.site = r.site;
      return true;
    }
  return false;
}

bool AppSession::SelectAgeBin(const std::string& what) {
  SnapshotDoc* d = active();
  if (!d || !d->analysis || !d->analysis->origins.present) return false;
  const auto& bins = d->analysis->origins.ages.bins;
  int64_t pick = -1;
  for (size_t i = 0; i < bins.size(); ++i) {
    if (bins[i].count == 0) continue;
    if (what == "oldest" || (what == "largest" && (pick < 0 || bins[i].bytes > bins[pick].bytes)))
      pick = int64_t(i);
    else if (what != "largest" && what != "oldest") {
      uint64_t age = 0;
      try {
        age = std::stoull(what);
      } catch (const std::exception&) {
        return false;
      }
      if (bins[i].first <= age && age <= bins[i].last) pick = int64_t(i);
    }
  }
  if (pick < 0) return false;
  d->selection.age_bin = pick;
  return true;
}

void AppSession::Connect(const std::string& endpoint, const std::string& token) {
  counters_.Reset();
  // Remember it for the Connection panel and the next run ("HOST:PORT", port optional).
  const size_t colon = endpoint.rfind(':');
  settings_.host = endpoint.substr(0, colon);
  if (colon != std::string::npos) {
    try {
      settings_.port = std::stoi(endpoint.substr(colon + 1));
    } catch (const std::exception&) {
      // not a number: the client reports the bad endpoint
    }
  }
  settings_.token = token;
  link_.Connect(endpoint, token);
  Log(LogEntry::kInfo, "Connecting to " + endpoint);
}

void AppSession::Disconnect() {
  const bool had_emulator = link_.emulator_running();
  link_.Disconnect();
  Log(LogEntry::kInfo, had_emulator ? "Disconnected and stopped the emulator" : "Disconnected");
}

bool AppSession::StartDiscovery() {
  if (discovery_ && discovery_->running()) return true;
  auto d = std::make_unique<client::DeviceDiscovery>();
  d->on_new_device = opts_.wake;
  if (!d->Start(&discovery_error_)) {
    Log(LogEntry::kWarning, "Device discovery is off: " + discovery_error_);
    return false;
  }
  discovery_error_.clear();
  discovery_ = std::move(d);
  return true;
}

std::vector<client::DiscoveredDevice> AppSession::DiscoveredDevices() const {
  return discovery_ ? discovery_->Devices() : std::vector<client::DiscoveredDevice>{};
}

void AppSession::ConnectDiscovered(const client::DiscoveredDevice& d, const std::string& token) {
  Log(LogEntry::kInfo, "Picked " + d.beacon.app + " (" + d.beacon.platform + ") at " +
                           d.endpoint() + " from the devices on the network");
  Connect(d.endpoint(), token);
}

bool AppSession::LaunchEmulator(const std::string& scenario,
                                const std::vector<std::string>& extra_args) {
  const std::string program =
      FindCompanionProgram("xrpm-emulator", "emulator", settings_.emulator_path);
  if (program.empty()) {
    Log(LogEntry::kError,
        "Cannot find xrpm-emulator (next to xrpm-monitor, in the build tree or in PATH; or set "
        "emulator_path in settings.json)");
    return false;
  }
  std::error_code ec;
  std::filesystem::create_directories(config_dir_, ec);
  const std::string log_path = config_dir_ + "/emulator.log";
  std::string error;
  counters_.Reset();
  settings_.emulator_scenario = scenario;
  if (!link_.LaunchEmulator(program, scenario, settings_.port, log_path, &error, extra_args)) {
    Log(LogEntry::kError, "Could not start the emulator: " + error);
    return false;
  }
  Log(LogEntry::kInfo, "Started " + program + " --scenario " + scenario +
                           (extra_args.empty() ? "" : " ...") + " (output in " + log_path + ")");
  return true;
}

bool AppSession::LaunchMono(const std::string& game, const std::vector<std::string>& game_args) {
  const std::string launcher = FindCompanionProgram("xrpm-mono", "emulator");
  if (launcher.empty()) {
    Log(LogEntry::kError,
        "Cannot find xrpm-mono (next to xrpm-monitor, in the build tree or in PATH); it is built "
        "when Mono is installed: sudo apt-get install mono-runtime libmono-2.0-dev mono-mcs");
    return false;
  }
  const std::string program =
      game.empty() ? launcher.substr(0, launcher.find_last_of('/') + 1) + "XnaBubbles.exe" : game;
  std::error_code ec;
  std::filesystem::create_directories(config_dir_, ec);
  const std::string log_path = config_dir_ + "/mono.log";
  std::string error;
  counters_.Reset();
  std::vector<std::string> mono_options;
  std::istringstream words(settings_.mono_options);
  for (std::string w; words >> w;) mono_options.push_back(w);
  if (!link_.LaunchMono(launcher, program, settings_.port, log_path, &error, game_args,
                        mono_options)) {
    Log(LogEntry::kError, "Could not start " + program + " under Mono: " + error);
    return false;
  }
  Log(LogEntry::kInfo, "Started " + launcher + " -- " + program + " (output in " + log_path + ")");
  return true;
}

bool AppSession::Capture() {
  std::string error;
  if (!link_.StartCapture(&error)) {
    Log(LogEntry::kError, "Cannot capture: " + error);
    return false;
  }
  Log(LogEntry::kInfo, "Capturing the heap of " + link_.endpoint() + "...");
  return true;
}

bool AppSession::ExportCounters(const std::string& path) {
  const client::HostClient* c = link_.client();
  if (!c) {
    Log(LogEntry::kError, "No counters to export: not connected");
    return false;
  }
  try {
    ExportCountersCsv(c->counters(), path);
  } catch (const std::exception& e) {
    Log(LogEntry::kError, std::string("Could not export the counters: ") + e.what());
    return false;
  }
  Log(LogEntry::kInfo,
      "Exported " + FormatCount(c->counters().size()) + " counter samples to " + path);
  return true;
}

bool AppSession::StartFrames(uint32_t sample_bytes) {
  client::HostClient* c = link_.client();
  if (!c || c->state() != client::ConnectionState::kConnected) {
    Log(LogEntry::kError, "Cannot record frames: not connected");
    return false;
  }
  frames_.Reset();
  c->SubscribeFrames(sample_bytes);
  Log(LogEntry::kInfo, "Recording frames of " + link_.endpoint() + " (one allocation sampled per " +
                           FormatBytes(sample_bytes) + ")");
  return true;
}

void AppSession::StopFrames() {
  if (client::HostClient* c = link_.client()) c->SubscribeFrames(0);
  Log(LogEntry::kInfo, "Stopped recording frames (" +
                           FormatCount(frames_.recording().frames.size()) + " frames kept)");
}

void AppSession::PollDevice() {
  for (const auto& e : link_.Poll()) Log(e.error ? LogEntry::kError : LogEntry::kInfo, e.text);
  if (const client::HostClient* c = link_.client()) counters_.Update(c->counters());
  if (client::HostClient* c = link_.client()) {
    const std::string before = frames_error_;
    frames_.Update(*c);
    frames_error_ = c->frames_status().error;
    if (!frames_error_.empty() && frames_error_ != before)
      Log(LogEntry::kError, "The device refused to record frames: " + frames_error_);
  }
  if (auto r = link_.TakeCaptureResult()) {
    if (!r->ok) {
      Log(LogEntry::kError,
          std::string(r->incomplete ? "The capture is incomplete" : "The capture failed") +
              (r->error.empty() ? "" : ": " + r->error) + " (nothing was kept)");
      return;
    }
    const auto& st = r->stats;
    std::string app;
    if (const client::HostClient* c = link_.client()) app = c->device().app_name;
    const uint32_t id =
        AddSnapshot(r->snapshot, DocOrigin::kCaptured,
                    "Capture " + std::to_string(++captures_) + (app.empty() ? "" : " — " + app));
    last_capture_doc_ = id;
    Log(LogEntry::kInfo, "Captured " + FormatCount(st.objects) + " objects (" +
                             FormatBytes(st.heap_bytes) + ") in " + FormatDuration(st.elapsed_s) +
                             "; the game paused " + FormatDuration(double(st.pause_us) / 1e6));
  }
}

bool AppSession::WaitIdle(std::chrono::milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  // A completion may start new work (load -> analysis), so loop until truly idle.
  for (;;) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) return false;
    if (!worker_.WaitTasksDone(left)) return false;
    Poll();
    if (worker_.Idle()) return true;
  }
}

namespace {
// What the views show about a document's allocation origins (the scripted tests assert on it).
nlohmann::json OriginsJson(const SnapshotDoc& d) {
  const Snapshot& s = *d.snapshot;
  nlohmann::json j;
  j["present"] = s.has_origins();
  if (!s.has_origins()) {
    j["note"] = NoOriginsNote(s, d.path);
    return j;
  }
  j["sampled"] = s.origins->sample_bytes > 0;
  j["capture_frame"] = s.origins->capture_frame;
  j["site_count"] = s.origins->sites.size();
  j["selected_site"] = d.selection.site
                           ? nlohmann::json(analysis::SiteLabel(s, *d.selection.site, 0))
                           : nlohmann::json(nullptr);
  if (!d.analysis) return j;
  const DocOrigins& o = d.analysis->origins;
  j["known_objects"] = o.known_objects;
  j["unknown_objects"] = o.ages.unknown_count;
  j["unknown_bytes"] = o.ages.unknown_bytes;
  nlohmann::json sites = nlohmann::json::array();
  for (size_t i = 0; i < o.sites.size() && i < 10; ++i)
    sites.push_back({{"site", analysis::SiteLabel(s, o.sites[i].site, 0)},
                     {"count", o.sites[i].count},
                     {"bytes", o.sites[i].bytes}});
  j["top_sites"] = std::move(sites);
  nlohmann::json bins = nlohmann::json::array();
  for (const auto& b : o.ages.bins)
    bins.push_back({{"first", b.first}, {"last", b.last}, {"count", b.count}, {"bytes", b.bytes}});
  j["age_bins"] = std::move(bins);
  if (d.selection.age_bin >= 0 && size_t(d.selection.age_bin) < o.ages.bins.size()) {
    const auto& b = o.ages.bins[d.selection.age_bin];
    j["selected_age"] = {b.first, b.last};
  }
  return j;
}
}  // namespace

namespace {
// Compare's leak filter as shown: the captures, why not, and the (type, site) groups.
nlohmann::json LeaksJson(const LeaksResult& r) {
  nlohmann::json j;
  j["docs"] = r.docs;
  j["titles"] = r.titles;
  j["error"] = r.error;
  if (!r.error.empty() || !r.c) return j;
  const Snapshot& c = *r.c->snapshot;
  j["window"] = {r.report.window_first, r.report.window_end};
  j["sampled"] = r.report.sampled;
  j["count"] = r.report.count;
  j["bytes"] = r.report.bytes;
  nlohmann::json groups = nlohmann::json::array();
  for (const auto& g : r.report.groups) {
    nlohmann::json jg = {{"type", g.type},
                         {"site", analysis::SiteMethods(c, g.site)},
                         {"count", g.count},
                         {"bytes", g.bytes}};
    if (!g.paths.paths.empty())
      jg["path"] = analysis::MergedPathLabel(r.c->index(), g.paths.paths.front(), " -> ");
    groups.push_back(std::move(jg));
  }
  j["groups"] = std::move(groups);
  return j;
}
}  // namespace

std::string AppSession::StateJson() const {
  nlohmann::json j;
  j["active"] = active_id_;
  j["docs"] = nlohmann::json::array();
  for (const auto& d : docs_) {
    nlohmann::json jd = {{"id", d->id},
                         {"title", d->title},
                         {"path", d->path},
                         {"origin", DocOriginName(d->origin)},
                         {"state", DocStateName(d->state)},
                         {"unsaved", d->unsaved},
                         {"problem", d->problem},
                         {"diagnostics", d->diagnostics_total}};
    if (d->snapshot) {
      jd["objects"] = d->snapshot->object_count();
      jd["refs"] = d->snapshot->ref_count();
      jd["roots"] = d->snapshot->root_count();
      jd["bytes"] = d->snapshot->total_bytes();
      jd["sampled"] = d->snapshot->sampled();
      jd["types"] = d->types ? d->types->rows.size() : 0;
    }
    jd["selected_type"] = d->selection.type >= 0 && d->snapshot
                              ? nlohmann::json(d->snapshot->types[d->selection.type].name)
                              : nlohmann::json(nullptr);
    jd["selected_object"] = d->selection.object;
    jd["type_filter"] = d->selection.type_filter;
    jd["analysed"] = d->analysis != nullptr;
    if (d->analysis) {
      jd["reachable_objects"] = d->analysis->totals.reachable_objects;
      jd["suspects"] = d->analysis->suspects.size();
    }
    jd["grouping"] = SiteGroupingName(d->selection.grouping);
    if (d->snapshot) jd["origins"] = OriginsJson(*d);
    j["docs"].push_back(std::move(jd));
  }
  if (compare_) {
    nlohmann::json jc;
    jc["docs"] = compare_->docs;
    jc["rows"] = compare_->diff.rows.size();
    jc["growing"] = nlohmann::json::array();
    for (const auto& g : compare_->growth)
      jc["growing"].push_back(compare_->last->index().group_name(g.group));
    j["compare"] = std::move(jc);
  }
  if (leaks_) j["leaks"] = LeaksJson(*leaks_);
  nlohmann::json jc;
  jc["samples"] = counters_.samples();
  jc["paused"] = counters_.paused();
  jc["categories"] = counters_.categories();
  jc["counters"] = counters_.counters().size();
  j["counters"] = std::move(jc);
  {
    const client::FrameRecording& r = frames_.recording();
    nlohmann::json jf;
    jf["frames"] = r.frames.size();
    jf["samples"] = r.samples.size();
    jf["stacks"] = r.stacks.size();
    jf["dropped_records"] = r.dropped_records;
    jf["sample_bytes"] = r.sample_bytes;
    if (frames_.selection())
      jf["selection"] = {frames_.selection()->first, frames_.selection()->last};
    jf["group"] = AllocGroupName(frames_.group);
    j["frames"] = std::move(jf);
  }
  j["connection"] = {{"phase", link_.PhaseName()}, {"status", link_.status_text()}};
  nlohmann::json found = nlohmann::json::array();
  for (const auto& d : DiscoveredDevices())
    found.push_back({{"app", d.beacon.app},
                     {"address", d.address},
                     {"port", d.beacon.port},
                     {"token_required", d.beacon.token_required}});
  j["discovered"] = std::move(found);
  j["recent_files"] = settings_.recent_files;
  j["last_error"] = last_error_;
  j["busy"] = !worker_.Idle();
  return j.dump(2);
}

}  // namespace xrpm::app
