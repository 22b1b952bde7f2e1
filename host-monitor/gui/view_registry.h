// The views of the monitor window and the little state each keeps between frames (cached sort
// orders, the last document it drew). Each view is a function in its own views/<name>.cpp that
// draws what the session already computed.
//
// Thread-safety: UI thread only.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "xrpm/analysis/object_contents.h"
#include "xrpm/app/app_session.h"
#include "xrpm/app/dominator_browser.h"
#include "xrpm/app/instance_list.h"
#include "xrpm/app/snapshot_doc.h"
#include "xrpm/app/type_table.h"

namespace xrpm::gui {

class App;

enum class View {
  kConnection,
  kCounters,
  kTimeline,
  kAllocations,
  kSummary,
  kInspections,
  kTypes,
  kInstances,
  kInspector,
  kRoots,
  kDominators,
  kAge,
  kCompare,
};
inline constexpr int kViewCount = 13;

const char* ViewName(View v);   // script name: "types"
const char* ViewTitle(View v);  // tab title: "Types"
std::optional<View> ViewFromName(const std::string& name);

struct TypesViewState {
  app::TypeListView list;
  char filter[256] = {};
  uint32_t doc = 0;  // the document `filter` was loaded from
  app::TypeColumn column = app::TypeColumn::kRetained;
  bool descending = true;
  // Grouped by site or (type, site): the rows of DocOrigins that pass the filter, cached.
  const app::DocAnalysis* site_analysis = nullptr;
  app::SiteGrouping site_grouping = app::SiteGrouping::kType;
  std::string site_filter;
  std::vector<uint32_t> site_rows;
};

struct InstancesViewState {
  app::InstanceListView list;            // the listed instances, their sites and field columns
  std::array<char, 256> filter_input{};  // "IsAlive=false", as typed
  std::string filter;                    // the applied filter ("" none)
};

struct InspectorViewState {
  const app::DocAnalysis* analysis = nullptr;
  uint32_t object = kNoIndex;
  analysis::RootPath path;      // cached for `object`
  std::vector<uint32_t> roots;  // root records naming `object`
};

struct DominatorsViewState {
  app::DominatorBrowser browser;
  uint32_t reveal = kNoIndex;  // an object to expand to and scroll to, once
  int64_t scroll_to_row = -1;
};

struct AgeViewState {
  bool counts = false;  // bars show objects instead of bytes
  const app::DocAnalysis* analysis = nullptr;
  int64_t bin = -1;                // the bin `contents` describes
  app::AgeRangeContents contents;  // what the chosen bar holds
};

struct RootsViewState {
  int mode = 0;  // 0: by descriptor and flags, 1: statics by container class
  const app::DocAnalysis* analysis = nullptr;
  int64_t open_group = -1;
};

enum class CompareMode { kByType, kLeaks, kAllocations };

struct CompareViewState {
  CompareMode mode = CompareMode::kByType;
  // Leaks: the three captures chosen (A, B, C document ids; 0: not chosen yet) and the rows
  // of the shown result for its grouping, cached.
  std::array<uint32_t, 3> leak_docs{};
  app::SiteGrouping leak_grouping = app::SiteGrouping::kTypeSite;
  const app::LeaksResult* leak_result = nullptr;
  app::SiteGrouping rows_grouping = app::SiteGrouping::kTypeSite;
  std::vector<app::LeakRow> leak_rows;
  std::vector<uint32_t> chosen;  // documents ticked for the next comparison
  char filter[256] = {};
  const app::CompareResult* result = nullptr;
  std::vector<uint32_t> order;  // rows of result->diff, suspects first, then sorted
  int sort_column = -1;
  bool sort_descending = true;
  std::string applied_filter;
  // Allocations: the two recordings (app::kLiveRecording or a RecordingDoc id) and the site.
  uint32_t alloc_a = app::kLiveRecording, alloc_b = app::kLiveRecording;
  analysis::AllocSiteKind alloc_by = analysis::AllocSiteKind::kStack;
};

struct ViewStates {
  TypesViewState types;
  InstancesViewState instances;
  InspectorViewState inspector;
  DominatorsViewState dominators;
  RootsViewState roots;
  AgeViewState age;
  CompareViewState compare;
};

void DrawSummaryView(App& app, app::SnapshotDoc& doc);
void DrawInspectionsView(App& app, app::SnapshotDoc& doc);
void DrawTypesView(App& app, app::SnapshotDoc& doc);
void DrawInstancesView(App& app, app::SnapshotDoc& doc);
void DrawInspectorView(App& app, app::SnapshotDoc& doc);
void DrawRootsView(App& app, app::SnapshotDoc& doc);
void DrawDominatorsView(App& app, app::SnapshotDoc& doc);
void DrawAgeView(App& app, app::SnapshotDoc& doc);
void DrawCompareView(App& app);
void DrawLeaksPanel(App& app);         // Compare's "allocated between A and B, alive in C" mode
void DrawAllocComparePanel(App& app);  // Compare's allocation traffic of two recordings
// The Timeline's and Allocations' first line: which recording is shown (live or a file) and
// its buttons, Open recording... and Save recording...
void DrawRecordingBar(App& app);
void DrawCountersView(App& app);
void DrawTimelineView(App& app);
void DrawAllocationsView(App& app);
void DrawConnectionView(App& app);

}  // namespace xrpm::gui
