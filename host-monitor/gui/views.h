// The views of the monitor window and the little state each keeps between frames (cached sort
// orders, the last document it drew). Each view is a function in its own view_<name>.cpp that
// draws what the session already computed.
//
// Thread-safety: UI thread only.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "xrpm/core/session/snapshot_doc.h"
#include "xrpm/core/session/type_table.h"

namespace xrpm::gui {

class App;

enum class View {
  kConnection,
  kCounters,
  kSummary,
  kTypes,
  kInstances,
  kInspector,
  kRoots,
  kDominators,
  kCompare,
};
inline constexpr int kViewCount = 9;

const char* ViewName(View v);   // script name: "types"
const char* ViewTitle(View v);  // tab title: "Types"
std::optional<View> ViewFromName(const std::string& name);

struct TypesViewState {
  session::TypeListView list;
  char filter[256] = {};
  uint32_t doc = 0;  // the document `filter` was loaded from
  session::TypeColumn column = session::TypeColumn::kRetained;
  bool descending = true;
};

struct InstancesViewState {
  uint32_t doc = 0;
  int64_t type = -1;
  std::vector<uint64_t> objects;  // object indices of the type, sorted for display
  int sort_column = -1;
  bool sort_descending = true;
};

struct ViewStates {
  TypesViewState types;
  InstancesViewState instances;
};

void DrawSummaryView(App& app, session::SnapshotDoc& doc);
void DrawTypesView(App& app, session::SnapshotDoc& doc);
void DrawInstancesView(App& app, session::SnapshotDoc& doc);
void DrawInspectorView(App& app, session::SnapshotDoc& doc);
void DrawRootsView(App& app, session::SnapshotDoc& doc);
void DrawDominatorsView(App& app, session::SnapshotDoc& doc);
void DrawCompareView(App& app);
void DrawCountersView(App& app);
void DrawConnectionView(App& app);

}  // namespace xrpm::gui
