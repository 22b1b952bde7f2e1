#include "style.h"

#include <imgui.h>

#include <filesystem>

namespace xrpm::gui {
namespace {

void ApplyStyle() {
  ImGui::StyleColorsDark();
  ImGuiStyle& s = ImGui::GetStyle();
  s.WindowRounding = 0.f;
  s.FrameRounding = 3.f;
  s.GrabRounding = 3.f;
  s.TabRounding = 3.f;
  s.FramePadding = ImVec2(6, 4);
  s.ItemSpacing = ImVec2(8, 5);
  s.CellPadding = ImVec2(6, 3);
  s.ScrollbarSize = 15.f;
  ImVec4* c = s.Colors;
  c[ImGuiCol_WindowBg] = ImVec4(0.11f, 0.12f, 0.14f, 1.f);
  c[ImGuiCol_ChildBg] = ImVec4(0.13f, 0.14f, 0.16f, 1.f);
  c[ImGuiCol_TableRowBgAlt] = ImVec4(1.f, 1.f, 1.f, 0.03f);
  c[ImGuiCol_Header] = ImVec4(0.24f, 0.40f, 0.62f, 0.55f);
  // Progress bars (capture, background work): white overlay text must stay readable on them.
  c[ImGuiCol_PlotHistogram] = ImVec4(0.22f, 0.46f, 0.78f, 1.f);
  c[ImGuiCol_HeaderHovered] = ImVec4(0.26f, 0.46f, 0.72f, 0.75f);
  c[ImGuiCol_HeaderActive] = ImVec4(0.28f, 0.50f, 0.80f, 0.90f);
}

}  // namespace

void ApplyStyleAndFonts(float font_size) {
  ApplyStyle();
  LoadFonts(font_size, {});
}

void LoadFonts(float size, std::span<const char32_t> wanted) {
  ImGuiIO& io = ImGui::GetIO();
  io.Fonts->Clear();
  // Latin-1, Greek, Cyrillic, general punctuation (— … ·), arrows, math and geometric shapes
  // (▶ ▼ ●), U+FFFD; then the documents' own characters (ImWchar is 16 bits: the BMP only).
  ImFontGlyphRangesBuilder b;
  b.AddRanges(io.Fonts->GetGlyphRangesDefault());
  static const ImWchar extra[] = {0x0370, 0x03FF, 0x0400, 0x052F, 0x2000, 0x206F, 0x2190, 0x21FF,
                                  0x2200, 0x22FF, 0x25A0, 0x25FF, 0xFFFD, 0xFFFD, 0};
  b.AddRanges(extra);
  for (char32_t c : wanted)
    if (c <= 0xFFFF) b.AddChar(static_cast<ImWchar>(c));
  static ImVector<ImWchar> ranges;  // the atlas keeps a pointer to them until it is rebuilt
  ranges.clear();
  b.BuildRanges(&ranges);
  const char* main_fonts[] = {"/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf",
                              "/usr/share/fonts/TTF/DejaVuSans.ttf"};
  // CJK and whatever else DejaVu lacks: merged into the same font, each glyph from the first
  // file that has it.
  const char* fallback_fonts[] = {"/usr/share/fonts/truetype/droid/DroidSansFallbackFull.ttf"};
  bool loaded = false;
  for (const char* path : main_fonts)
    if (!loaded && std::filesystem::exists(path))
      loaded = io.Fonts->AddFontFromFileTTF(path, size, nullptr, ranges.Data) != nullptr;
  if (!loaded) {
    io.Fonts->AddFontDefault();  // ProggyClean: always available, smaller, ASCII only
    return;
  }
  ImFontConfig merge;
  merge.MergeMode = true;
  for (const char* path : fallback_fonts)
    if (std::filesystem::exists(path) &&
        io.Fonts->AddFontFromFileTTF(path, size, &merge, ranges.Data))
      break;
}

}  // namespace xrpm::gui
