// AppSession::StateJson: everything a test or script asserts, as JSON: each part of the session
// gives its piece, the facade adds its own.
// Thread-safety: UI thread only, as the rest of AppSession (app_session.h).
#include <algorithm>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "xrpm/app/alloc_diff_json.h"
#include "xrpm/app/analysis_json.h"
#include "xrpm/app/app_session.h"
#include "xrpm/app/inspection_rows.h"
#include "xrpm/formats/snapshot_io.h"
#include "xrpm/model/human_format.h"

namespace xrpm::app {

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
  j.update(OriginsSummaryJson(s));  // capture_frame, sample_bytes, sampled, sites, methods
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
// The Inspections view's rows: each inspection as `xrpm inspect --json` prints it, its findings
// in the view's order with the severity, type and object the view shows.
nlohmann::json InspectionsJson(const DocAnalysis& a) {
  const Snapshot& s = *a.snapshot;
  const std::vector<InspectionRow> rows = InspectionRows(a);
  nlohmann::json out = nlohmann::json::array();
  for (size_t i = 0; i < a.inspections.size(); ++i) {
    const analysis::Inspection& in = a.inspections[i];
    nlohmann::json findings = nlohmann::json::array();
    for (const InspectionRow& r : rows) {
      if (r.inspection != i) continue;
      nlohmann::json f = FindingJson(s, in.findings[r.finding]);
      f["severity"] = SeverityName(r.severity);
      f["type"] =
          r.type == kNoIndex ? nlohmann::json(nullptr) : nlohmann::json(s.types[r.type].name);
      f["object"] = r.object == kNoIndex ? nlohmann::json(nullptr) : nlohmann::json(r.object);
      findings.push_back(std::move(f));
    }
    nlohmann::json j = InspectionJson(s, in);
    j["findings"] = std::move(findings);
    out.push_back(std::move(j));
  }
  return out;
}

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
// The open snapshots and the selection in each.
void AddDocuments(const Documents& docs, nlohmann::json& j) {
  j["active"] = docs.active_id();
  j["docs"] = nlohmann::json::array();
  for (const auto& d : docs.docs()) {
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
      // Captured from a copy-on-write snapshot while the game ran (else in the pause).
      jd["snapshot_walk"] = d->snapshot->capture && d->snapshot->capture->snapshot_walk();
    }
    jd["selected_type"] = d->selection.type >= 0 && d->snapshot
                              ? nlohmann::json(d->snapshot->types[d->selection.type].name)
                              : nlohmann::json(nullptr);
    jd["selected_type_traits"] = d->selection.type >= 0 && d->snapshot
                                     ? TypeTraitsJson(d->snapshot->types[d->selection.type])
                                     : nlohmann::json(nullptr);
    jd["selected_object"] = d->selection.object;
    jd["type_filter"] = d->selection.type_filter;
    jd["analysed"] = d->analysis != nullptr;
    if (d->analysis) {
      jd["reachable_objects"] = d->analysis->totals.reachable_objects;
      jd["analysis_seconds"] = d->analysis_seconds;  // index to inspections, as Summary shows
      jd["suspects"] = d->analysis->suspects.size();
      jd["inspections"] = InspectionsJson(*d->analysis);
      jd["index"] = d->analysis->lean_index ? "lean" : "full";
    }
    if (d->details && d->details->node == d->selection.object)  // what the Inspector lists
      jd["selected_object_refs"] = {{"out", d->details->out.size()}, {"in", d->details->in.size()}};
    jd["grouping"] = SiteGroupingName(d->selection.grouping);
    if (d->snapshot) jd["origins"] = OriginsJson(*d);
    j["docs"].push_back(std::move(jd));
  }
}

// Compare's results: snapshots, leaks, allocations.
void AddComparisons(const Comparisons& c, nlohmann::json& j) {
  if (const auto& cmp = c.snapshots()) {
    nlohmann::json jc;
    jc["docs"] = cmp->docs;
    jc["rows"] = cmp->diff.rows.size();
    jc["growing"] = nlohmann::json::array();
    for (const auto& g : cmp->growth)
      jc["growing"].push_back(cmp->last->index().group_name(g.group));
    j["compare"] = std::move(jc);
  }
  if (c.leaks()) j["leaks"] = LeaksJson(*c.leaks());
  if (const auto& ac = c.allocations()) {
    const analysis::AllocationDiff& d = ac->diff;
    nlohmann::json rows = nlohmann::json::array();
    for (const analysis::AllocDiffRow& r : d.rows) rows.push_back(AllocDiffRowJson(r));
    j["alloc_compare"] = {{"a", ac->titles[0]},
                          {"b", ac->titles[1]},
                          {"by", analysis::AllocSiteKindName(d.by)},
                          {"sites", std::move(rows)}};
  }
}

// The recording the Timeline shows (live or opened from a file) and the opened ones.
void AddRecordings(const Recordings& recs, nlohmann::json& j) {
  {
    const FrameBoard& shown = recs.shown();
    const FrameRecording& r = shown.recording();
    nlohmann::json jf;
    jf["shown"] = recs.Title(recs.shown_id());
    jf["app"] = r.app;
    jf["frames"] = r.frames.size();
    jf["samples"] = r.samples.size();
    jf["stacks"] = r.stacks.size();
    jf["markers"] = r.markers.size();
    jf["tags"] = r.tags.size();
    jf["dropped_records"] = r.dropped_records;
    jf["sample_bytes"] = r.sample_bytes;
    jf["frame_totals"] = FrameTotalsName(r.frame_totals);
    if (shown.selection()) jf["selection"] = {shown.selection()->first, shown.selection()->last};
    jf["group"] = AllocGroupName(shown.group);
    j["frames"] = std::move(jf);
  }
  j["recordings"] = nlohmann::json::array();
  for (const auto& rd : recs.docs()) {
    const char* state = rd->state == RecordingDoc::State::kReady    ? "ready"
                        : rd->state == RecordingDoc::State::kFailed ? "failed"
                                                                    : "loading";
    nlohmann::json jr = {{"title", rd->title}, {"path", rd->path}, {"state", state}};
    if (!rd->problem.empty()) jr["problem"] = rd->problem;
    if (rd->state == RecordingDoc::State::kReady) {
      jr["frames"] = rd->board.recording().frames.size();
      jr["markers"] = rd->board.recording().markers.size();
    }
    j["recordings"].push_back(std::move(jr));
  }
}

// The connection, counters, auto capture and the devices found on the network.
void AddDevice(const DeviceSession& dev, nlohmann::json& j) {
  const CounterBoard& counters = dev.counters();
  nlohmann::json jc;
  jc["samples"] = counters.samples();
  jc["paused"] = counters.paused();
  jc["categories"] = counters.categories();
  jc["counters"] = counters.counters().size();
  j["counters"] = std::move(jc);
  j["connection"] = {{"phase", dev.link().PhaseName()}, {"status", dev.link().status_text()}};
  const AutoCaptureBoard& ac = dev.auto_capture();
  j["auto_capture"] = {{"active", ac.active()},       {"rules", ac.Describe()},
                       {"saved", ac.saved()},         {"failed", ac.failed()},
                       {"last_file", ac.last_file()}, {"files", ac.files()}};
  nlohmann::json found = nlohmann::json::array();
  for (const auto& d : dev.DiscoveredDevices())
    found.push_back({{"app", d.beacon.app},
                     {"address", d.address},
                     {"port", d.beacon.port},
                     {"token_required", d.beacon.token_required}});
  j["discovered"] = std::move(found);
}
}  // namespace

std::string AppSession::StateJson() const {
  nlohmann::json j;
  AddDocuments(documents_, j);
  AddComparisons(comparisons_, j);
  AddRecordings(recordings_, j);
  AddDevice(device_, j);
  j["recent_files"] = settings_.recent_files;
  j["last_error"] = last_error();
  j["busy"] = !worker_.Idle();
  return j.dump(2);
}

}  // namespace xrpm::app
