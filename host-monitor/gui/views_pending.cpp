// TEMPORARY: views whose engines have not landed yet.
#include <imgui.h>
#include "app.h"
#include "views.h"
#include "widgets.h"
namespace xrpm::gui {
using namespace xrpm::session;
void DrawInspectorView(App&, SnapshotDoc&) {
  TextMuted("Inspector: waiting for the analysis engine.");
}
void DrawRootsView(App&, SnapshotDoc&) {
  TextMuted("Roots: waiting for the analysis engine.");
}
void DrawDominatorsView(App&, SnapshotDoc&) {
  TextMuted("Dominators: waiting for the analysis engine.");
}
void DrawCompareView(App&) {
  TextMuted("Compare: waiting for the analysis engine.");
}
void DrawCountersView(App&) {
  TextMuted("Counters: waiting for the capture client.");
}
void DrawConnectionView(App&) {
  SectionTitle("CONNECTION");
  TextMuted("Waiting for the capture client.");
}
}  // namespace xrpm::gui
