// Object inspector: one object's size, retained size and dominator, the shortest path from a
// GC root to it, the roots that name it, and its references out and in (each a link to inspect
// that object next). Everything comes from the analysis; per selection the view caches the path
// and the root records (O(path) and O(roots)); the contents and reference lists are the
// document's ObjectDetails (Documents::DescribeObject: at once, or on the worker when the
// referrers must be found by a scan).
#include <imgui.h>

#include "app.h"
#include "object_links.h"
#include "view_registry.h"
#include "widgets.h"
#include "xrpm/model/human_format.h"
#include "xrpm/model/object_fields.h"

namespace xrpm::gui {
using namespace xrpm::app;

namespace {

// `self` references each of `nodes` (out) or each of them references `self` (in); the Field
// column names the field or element holding the reference.
void RefTable(App& app, SnapshotDoc& doc, const char* id, std::span<const uint32_t> nodes,
              float height, uint32_t self, bool out) {
  const DocAnalysis& a = *doc.analysis;
  const Snapshot& snap = *doc.snapshot;
  const ImGuiTableFlags flags = ImGuiTableFlags_RowBg | ImGuiTableFlags_BordersInnerV |
                                ImGuiTableFlags_ScrollY | ImGuiTableFlags_SizingFixedFit |
                                ImGuiTableFlags_Resizable;
  if (!ImGui::BeginTable(id, 4, flags, ImVec2(0, height))) return;
  ImGui::TableSetupScrollFreeze(0, 1);
  ImGui::TableSetupColumn("Field", 0, 110);
  ImGui::TableSetupColumn("Object", ImGuiTableColumnFlags_WidthStretch);
  ImGui::TableSetupColumn("Size", 0, 80);
  ImGui::TableSetupColumn("Retained", 0, 90);
  ImGui::TableHeadersRow();
  ImGuiListClipper clipper;
  clipper.Begin(static_cast<int>(nodes.size()));
  while (clipper.Step())
    for (int i = clipper.DisplayStart; i < clipper.DisplayEnd; ++i) {
      const uint32_t v = nodes[i];
      ImGui::TableNextRow();
      ImGui::TableNextColumn();
      const std::string field = out ? analysis::HoldingField(a.index(), self, v)
                                    : analysis::HoldingField(a.index(), v, self);
      if (field.empty())
        ImGui::TextDisabled("?");
      else
        TextColored(kAccent, field);
      ImGui::TableNextColumn();
      ImGui::PushID(i);
      ObjectLink(app, doc, v);
      ImGui::PopID();
      ImGui::TableNextColumn();
      TextRight(FormatBytes(snap.object_size[v]));
      ImGui::TableNextColumn();
      TextRight(FormatBytes(a.dom().retained(v)));
    }
  ImGui::EndTable();
}

// Where and when the object was allocated: its age and its site's methods, innermost first.
void DrawOrigin(App& app, SnapshotDoc& doc, uint32_t v) {
  const Snapshot& snap = *doc.snapshot;
  ImGui::Spacing();
  SectionTitle("Allocated at (innermost method first)");
  if (!OriginsOrNote(doc)) return;
  if (!snap.origin_known(v)) {
    TextColored(kWarn, UnknownOriginNote(snap, v));
    return;
  }
  TextMuted(AgeText(snap, v));
  const uint32_t site = SiteOfObject(snap, v);
  const auto methods = analysis::SiteMethods(snap, site);
  if (methods.empty()) ImGui::BulletText("%s", SiteText(snap, site).c_str());
  constexpr size_t kShown = 12;
  for (size_t i = 0; i < methods.size() && i < kShown; ++i)
    ImGui::BulletText("%s", methods[i].c_str());
  if (methods.size() > kShown)
    TextMuted("… " + std::to_string(methods.size() - kShown) + " outer frames");
  if (ImGui::SmallButton("Instances of this type from this site")) {
    doc.selection.type = snap.object_type[v];
    doc.selection.site = site;
    app.SetView(View::kInstances);
  }
}

// The object's contents: a string's text, an array's length, the fields with their
// values or links to the objects they reference, the type's static fields.
void DrawContents(App& app, SnapshotDoc& doc, const analysis::ObjectContents& c) {
  const Snapshot& snap = *doc.snapshot;
  if (c.text) {
    ImGui::Spacing();
    SectionTitle(("Text (" + FormatCount(c.text->full_length) + " characters" +
                  (c.text->cut ? ", cut at the capture's cap" : "") + ")")
                     .c_str());
    ImGui::PushTextWrapPos(0);
    ImGui::TextUnformatted(QuoteString(c.text->text, 4000, c.text->cut).c_str());
    ImGui::PopTextWrapPos();
    if (ImGui::SmallButton("Copy text")) ImGui::SetClipboardText(std::string(c.text->text).c_str());
  }
  if (c.length) TextMuted("Array of " + FormatCount(*c.length) + " elements");
  if (!c.has_layout && !c.text) {
    if (!snap.fields.has_layouts())
      TextMuted("No field layouts in this snapshot (an older capture or a format without them).");
    return;
  }
  if (!c.fields.empty()) {
    ImGui::Spacing();
    SectionTitle(("Fields (" + FormatCount(c.fields.size()) + ")").c_str());
    const float rows = static_cast<float>(std::min<size_t>(c.fields.size(), 14) + 1);
    const ImGuiTableFlags flags = ImGuiTableFlags_RowBg | ImGuiTableFlags_BordersInnerV |
                                  ImGuiTableFlags_ScrollY | ImGuiTableFlags_SizingFixedFit |
                                  ImGuiTableFlags_Resizable;
    if (ImGui::BeginTable("fields", 3, flags,
                          ImVec2(0, rows * ImGui::GetFrameHeightWithSpacing()))) {
      ImGui::TableSetupScrollFreeze(0, 1);
      ImGui::TableSetupColumn("Name", 0, 160);
      ImGui::TableSetupColumn("Declared type", 0, 220);
      ImGui::TableSetupColumn("Value", ImGuiTableColumnFlags_WidthStretch);
      ImGui::TableHeadersRow();
      for (size_t i = 0; i < c.fields.size(); ++i) {
        const analysis::FieldRow& f = c.fields[i];
        ImGui::TableNextRow();
        ImGui::TableNextColumn();
        ImGui::TextUnformatted(f.name.c_str());
        ImGui::TableNextColumn();
        TextMuted(f.type);
        ImGui::TableNextColumn();
        ImGui::PushID(static_cast<int>(i));
        if (f.ref_node != kNoIndex)
          ObjectLink(app, doc, f.ref_node);
        else if (f.value.kind == FieldValue::Kind::kRef)
          TextMuted(FormatHex(f.value.ref) + " (not in the snapshot)");
        else if (f.value.kind == FieldValue::Kind::kMissing)
          ImGui::TextDisabled("not captured");
        else
          ImGui::TextUnformatted(FormatValue(f.value).c_str());
        ImGui::PopID();
      }
      ImGui::EndTable();
    }
  }
  if (!c.statics.empty()) {
    ImGui::Spacing();
    SectionTitle(("Static fields of " + snap.type_name_of(c.node)).c_str());
    for (const StaticFieldLayout& s : c.statics)
      ImGui::BulletText("%s  %s", s.name.c_str(), s.type_name.c_str());
  }
}

}  // namespace

void DrawInspectorView(App& app, SnapshotDoc& doc) {
  const Snapshot& snap = *doc.snapshot;
  if (doc.selection.object < 0 || uint64_t(doc.selection.object) >= snap.object_count()) {
    TextMuted("Select an object (Instances, Dominator tree, Roots) to inspect it.");
    return;
  }
  if (!AnalysisReadyOrNote(doc, "Analysing... the inspector needs the object graph.")) return;
  const DocAnalysis& a = *doc.analysis;
  const uint32_t v = static_cast<uint32_t>(doc.selection.object);
  InspectorViewState& st = app.views().inspector;
  if (st.analysis != &a || st.object != v) {
    st.analysis = &a;
    st.object = v;
    st.path = a.forest().PathTo(v);
    st.roots = RootRecordsOf(a, v);
  }
  app.session().documents().DescribeObject(doc.id, v);  // a no-op once done or running
  const ObjectDetails* details =
      doc.details && doc.details->node == v ? doc.details.get() : nullptr;
  const std::string refs_text =
      details ? FormatCount(details->out.size()) + " references out, " +
                    FormatCount(details->in.size()) + " in"
              : "finding referrers (a scan of every reference: the lean index has no reverse one)";

  TextColored(kAccent, snap.type_name_of(v));
  ImGui::SameLine();
  ImGui::TextUnformatted(FormatHex(snap.object_id[v]).c_str());
  ImGui::SameLine();
  if (ImGui::SmallButton("Show in dominator tree")) {
    app.views().dominators.reveal = v;
    app.SetView(View::kDominators);
  }
  const TypeInfo& type = snap.types[snap.object_type[v]];
  if (const std::string traits = DescribeTypeTraits(type.traits, type.has_finalizer);
      !traits.empty())
    TextMuted(traits);
  const double heap = a.totals.reachable_bytes ? double(a.totals.reachable_bytes) : 1.0;
  TextMuted("size " + FormatBytes(snap.object_size[v]) + "  ·  retained " +
            FormatBytes(a.dom().retained(v)) + " (" +
            FormatPercent(double(a.dom().retained(v)) / heap) + " of the live heap)  ·  " +
            refs_text);
  const uint32_t idom = a.dom().idom(v);
  if (idom == kNoIndex) {
    TextColored(kWarn, "Unreachable: no strong root keeps it alive.");
  } else if (idom == a.dom().virtual_root()) {
    TextMuted("Kept alive directly by the roots (no single object dominates it).");
  } else {
    TextMuted("Immediate dominator (freeing it frees this):");
    ImGui::SameLine();
    ObjectLink(app, doc, idom);
  }

  if (details) DrawContents(app, doc, details->contents);
  DrawOrigin(app, doc, v);

  ImGui::Spacing();
  SectionTitle("Shortest path from a GC root");
  DrawRootPath(app, doc, st.path);

  if (!st.roots.empty()) {
    ImGui::Spacing();
    SectionTitle(("Roots naming this object (" + std::to_string(st.roots.size()) + ")").c_str());
    for (size_t i = 0; i < st.roots.size() && i < 20; ++i)
      ImGui::BulletText("%s", RootText(a.index(), st.roots[i]).c_str());
  }

  ImGui::Spacing();
  if (!details) {
    TextMuted("Looking for this object's referrers among all " +
              FormatCount(a.index().snapshot().ref_count()) + " references…");
    return;
  }
  const float h = std::max(
      160.f, ImGui::GetContentRegionAvail().y - ImGui::GetTextLineHeightWithSpacing() * 2.5f);
  const float w = ImGui::GetContentRegionAvail().x * 0.5f - 6;
  ImGui::BeginGroup();
  SectionTitle(("References out (" + FormatCount(details->out.size()) + ")").c_str());
  ImGui::PushItemWidth(w);
  ImGui::BeginChild("##out", ImVec2(w, h));
  RefTable(app, doc, "out", details->out, 0, v, true);
  ImGui::EndChild();
  ImGui::EndGroup();
  ImGui::SameLine(0, 12);
  ImGui::BeginGroup();
  SectionTitle(("Referenced by (" + FormatCount(details->in.size()) + ")").c_str());
  ImGui::BeginChild("##in", ImVec2(0, h));
  RefTable(app, doc, "in", details->in, 0, v, false);
  ImGui::EndChild();
  ImGui::EndGroup();
  ImGui::PopItemWidth();
}

}  // namespace xrpm::gui
