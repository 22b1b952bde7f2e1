#include "platform.h"

#include <GLFW/glfw3.h>
#include <imgui.h>
#include <imgui_impl_glfw.h>
#include <imgui_impl_opengl3.h>
#include <stb_image_write.h>
#include "style.h"

#include <chrono>
#include <filesystem>
#include <mutex>
#include <utility>

namespace xrpm::gui {
namespace {

std::mutex g_drop_mu;
std::vector<std::string> g_dropped;
double g_last_input = 0;  // glfwGetTime() of the last user input (UI thread only)

void MarkInput() {
  g_last_input = glfwGetTime();
}
void OnCursor(GLFWwindow*, double, double) {
  MarkInput();
}
void OnButton(GLFWwindow*, int, int, int) {
  MarkInput();
}
void OnScroll(GLFWwindow*, double, double) {
  MarkInput();
}
void OnKey(GLFWwindow*, int, int, int, int) {
  MarkInput();
}
void OnChar(GLFWwindow*, unsigned) {
  MarkInput();
}
void OnFocus(GLFWwindow*, int) {
  MarkInput();
}
void OnEnter(GLFWwindow*, int) {
  MarkInput();
}
void OnSize(GLFWwindow*, int, int) {
  MarkInput();
}
void OnRefresh(GLFWwindow*) {
  MarkInput();
}
void OnDrop(GLFWwindow*, int n, const char** paths) {
  std::lock_guard lk(g_drop_mu);
  for (int i = 0; i < n; ++i) g_dropped.emplace_back(paths[i]);
  MarkInput();
}
void OnGlfwError(int code, const char* text) {
  std::fprintf(stderr, "xrpm-monitor: GLFW error %d: %s\n", code, text);
}

}  // namespace

bool Platform::Init(const PlatformOptions& opts, std::string* error) {
  glfwSetErrorCallback(OnGlfwError);
  if (!glfwInit()) {
    *error = "cannot initialise GLFW: no display? (set DISPLAY, or run under xvfb-run)";
    return false;
  }
  glfwWindowHint(GLFW_CONTEXT_VERSION_MAJOR, 3);
  glfwWindowHint(GLFW_CONTEXT_VERSION_MINOR, 0);
  window_ = glfwCreateWindow(opts.width, opts.height, opts.title.c_str(), nullptr, nullptr);
  if (!window_) {
    *error = "cannot create an OpenGL 3.0 window";
    glfwTerminate();
    return false;
  }
  glfwMakeContextCurrent(window_);
  glfwSwapInterval(1);

  // Our callbacks first: the ImGui backend chains to them.
  glfwSetCursorPosCallback(window_, OnCursor);
  glfwSetMouseButtonCallback(window_, OnButton);
  glfwSetScrollCallback(window_, OnScroll);
  glfwSetKeyCallback(window_, OnKey);
  glfwSetCharCallback(window_, OnChar);
  glfwSetWindowFocusCallback(window_, OnFocus);
  glfwSetCursorEnterCallback(window_, OnEnter);
  glfwSetFramebufferSizeCallback(window_, OnSize);
  glfwSetWindowRefreshCallback(window_, OnRefresh);
  glfwSetDropCallback(window_, OnDrop);

  IMGUI_CHECKVERSION();
  ImGui::CreateContext();
  ImGuiIO& io = ImGui::GetIO();
  ini_path_ = opts.ini_path;
  io.IniFilename = nullptr;  // loaded and saved by us, so the directory can be created first
  if (!ini_path_.empty() && std::filesystem::exists(ini_path_))
    ImGui::LoadIniSettingsFromDisk(ini_path_.c_str());
  io.ConfigFlags |= ImGuiConfigFlags_NavEnableKeyboard;
  font_size_ = opts.font_size;
  ApplyStyleAndFonts(opts.font_size);
  ImGui_ImplGlfw_InitForOpenGL(window_, true);
  ImGui_ImplOpenGL3_Init("#version 130");
  imgui_ready_ = true;
  MarkInput();
  return true;
}

void Platform::Shutdown() {
  if (imgui_ready_) {
    if (!ini_path_.empty()) {
      std::error_code ec;
      std::filesystem::create_directories(std::filesystem::path(ini_path_).parent_path(), ec);
      ImGui::SaveIniSettingsToDisk(ini_path_.c_str());
    }
    ImGui_ImplOpenGL3_Shutdown();
    ImGui_ImplGlfw_Shutdown();
    ImGui::DestroyContext();
    imgui_ready_ = false;
  }
  if (window_) {
    glfwDestroyWindow(window_);
    window_ = nullptr;
    glfwTerminate();
  }
}

bool Platform::ShouldClose() const {
  return glfwWindowShouldClose(window_);
}
void Platform::SetShouldClose(bool v) {
  glfwSetWindowShouldClose(window_, v);
}

void Platform::WaitEvents(double timeout_s) {
  if (timeout_s <= 0)
    glfwPollEvents();
  else
    glfwWaitEventsTimeout(timeout_s);
}

void Platform::Wake() {
  glfwPostEmptyEvent();
}

void Platform::WantGlyphs(std::span<const char32_t> code_points) {
  for (char32_t c : code_points)
    if (c <= 0xFFFF && glyphs_.insert(c).second) fonts_stale_ = true;
}

void Platform::BeginFrame() {
  if (fonts_stale_) {
    const std::vector<char32_t> wanted(glyphs_.begin(), glyphs_.end());
    LoadFonts(font_size_, wanted);
    ImGui_ImplOpenGL3_DestroyFontsTexture();
    ImGui_ImplOpenGL3_CreateFontsTexture();
    fonts_stale_ = false;
  }
  ImGui_ImplOpenGL3_NewFrame();
  ImGui_ImplGlfw_NewFrame();
  ImGui::NewFrame();
}

bool Platform::EndFrame(const std::string& screenshot, std::string* error) {
  ImGui::Render();
  int w, h;
  glfwGetFramebufferSize(window_, &w, &h);
  glViewport(0, 0, w, h);
  glClearColor(0.08f, 0.08f, 0.09f, 1.f);
  glClear(GL_COLOR_BUFFER_BIT);
  ImGui_ImplOpenGL3_RenderDrawData(ImGui::GetDrawData());
  bool ok = true;
  if (!screenshot.empty()) {
    std::string e = WriteFramebufferPng(w, h, screenshot);
    if (!e.empty()) {
      ok = false;
      if (error) *error = e;
    }
  }
  glfwSwapBuffers(window_);
  return ok;
}

std::vector<std::string> Platform::TakeDroppedFiles() {
  std::lock_guard lk(g_drop_mu);
  return std::exchange(g_dropped, {});
}

double Platform::SecondsSinceInput() const {
  return glfwGetTime() - g_last_input;
}

void Platform::WindowSize(int* w, int* h) const {
  glfwGetWindowSize(window_, w, h);
}

void Platform::SetTitle(const std::string& title) {
  glfwSetWindowTitle(window_, title.c_str());
}

std::string WriteFramebufferPng(int width, int height, const std::string& path) {
  if (width <= 0 || height <= 0) return "the window has no pixels";
  std::vector<unsigned char> pixels(size_t(width) * height * 3);
  glReadBuffer(GL_BACK);
  glPixelStorei(GL_PACK_ALIGNMENT, 1);
  glReadPixels(0, 0, width, height, GL_RGB, GL_UNSIGNED_BYTE, pixels.data());
  if (GLenum e = glGetError(); e != GL_NO_ERROR)
    return "glReadPixels failed (GL error " + std::to_string(e) + ")";
  // OpenGL's origin is bottom-left; PNG rows go top-down.
  stbi_flip_vertically_on_write(1);
  std::string tmp = path + ".tmp";
  if (!stbi_write_png(tmp.c_str(), width, height, 3, pixels.data(), width * 3))
    return "cannot write " + path;
  std::error_code ec;
  std::filesystem::rename(tmp, path, ec);
  if (ec) return "cannot write " + path + ": " + ec.message();
  return {};
}

}  // namespace xrpm::gui
