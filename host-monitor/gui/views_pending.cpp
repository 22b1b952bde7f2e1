// TEMPORARY: views whose engines have not landed yet.
#include <imgui.h>
#include "app.h"
#include "views.h"
#include "widgets.h"
namespace xrpm::gui {
void DrawCountersView(App&) {
  TextMuted("Counters: waiting for the capture client.");
}
void DrawConnectionView(App&) {
  SectionTitle("CONNECTION");
  TextMuted("Waiting for the capture client.");
}
}  // namespace xrpm::gui
