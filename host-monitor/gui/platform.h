// Platform: the GLFW window, the OpenGL context and the Dear ImGui backends, plus the things the
// app needs from them: event waiting with a timeout (redraw only when something happens),
// dropped files, the time of the last user input, and PNG screenshots of the back buffer
// (glReadPixels + stb_image_write).
//
// Thread-safety: UI thread only, except Wake(), which any thread may call.
#pragma once

#include <set>
#include <span>
#include <string>
#include <vector>

struct GLFWwindow;

namespace xrpm::gui {

struct PlatformOptions {
  int width = 1500;
  int height = 920;
  std::string title = "xrpm monitor";
  std::string ini_path;  // Dear ImGui layout file; "" = none
  float font_size = 15.f;
};

class Platform {
 public:
  // Creates the window and initialises Dear ImGui. On failure returns false and sets *error.
  bool Init(const PlatformOptions& opts, std::string* error);
  void Shutdown();
  ~Platform() { Shutdown(); }

  bool ShouldClose() const;
  void SetShouldClose(bool v);
  // Sleeps until an event arrives or `timeout_s` passes (0: just poll).
  void WaitEvents(double timeout_s);
  static void Wake();  // thread-safe: makes WaitEvents return

  // Characters the next frames will draw beyond the fonts' base set (a document's text): the
  // font atlas is rebuilt with them before the next frame when any is new.
  void WantGlyphs(std::span<const char32_t> code_points);
  void BeginFrame();  // ImGui::NewFrame with the backends (rebuilding the fonts first if needed)
  // Renders the ImGui draw data; when `screenshot` is not empty, also writes the frame as PNG
  // (returns false and sets *error if that failed). Then swaps buffers.
  bool EndFrame(const std::string& screenshot = {}, std::string* error = nullptr);

  std::vector<std::string> TakeDroppedFiles();
  double SecondsSinceInput() const;
  void WindowSize(int* w, int* h) const;
  void SetTitle(const std::string& title);
  GLFWwindow* window() const { return window_; }

 private:
  GLFWwindow* window_ = nullptr;
  bool imgui_ready_ = false;
  std::string ini_path_;
  float font_size_ = 15.f;
  std::set<char32_t> glyphs_;  // every character asked for so far (the atlas only grows)
  bool fonts_stale_ = false;
};

// Reads the back buffer of the current context and writes it as PNG. Returns "" or an error.
std::string WriteFramebufferPng(int width, int height, const std::string& path);

}  // namespace xrpm::gui
