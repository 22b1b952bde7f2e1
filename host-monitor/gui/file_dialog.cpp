#include "file_dialog.h"

#include <imgui.h>

#include <algorithm>
#include <cstring>

#include "widgets.h"
#include "xrpm/formats/snapshot_io.h"

namespace xrpm::gui {
namespace fs = std::filesystem;

namespace {
std::vector<const formats::FormatInfo*> Writable() {
  std::vector<const formats::FormatInfo*> out;
  for (const auto& f : formats::Formats())
    if (f.can_write) out.push_back(&f);
  return out;
}

bool KnownExtension(const std::string& file) {
  std::string ext = fs::path(file).extension().string();
  std::transform(ext.begin(), ext.end(), ext.begin(), ::tolower);
  for (const auto& f : formats::Formats())
    for (const auto& e : f.extensions)
      if (e == ext) return true;
  return false;
}
}  // namespace

void FileDialog::Open(Mode mode, const std::string& dir, const std::string& suggested,
                      bool snapshot_formats, LossesFn losses) {
  mode_ = mode;
  snapshot_formats_ = snapshot_formats;
  losses_ = std::move(losses);
  // The suggested name's extension picks the format; else the first (lossless .xrpm).
  format_ = 0;
  if (const formats::FormatInfo* f = formats::FormatForPath(suggested, /*for_reading=*/false)) {
    const auto writable = Writable();
    for (int i = 0; i < int(writable.size()); ++i)
      if (writable[i] == f) format_ = i;
  }
  all_files_ = !snapshot_formats;
  open_ = true;
  just_opened_ = true;
  error_.clear();
  std::error_code ec;
  fs::path d = dir.empty() ? fs::current_path(ec) : fs::path(dir);
  if (!fs::is_directory(d, ec)) d = fs::current_path(ec);
  std::snprintf(name_, sizeof name_, "%s", suggested.c_str());
  Navigate(d);
}

void FileDialog::Navigate(const fs::path& dir) {
  std::error_code ec;
  fs::path canon = fs::weakly_canonical(dir, ec);
  dir_ = ec ? dir : canon;
  Refresh();
}

void FileDialog::Refresh() {
  dirs_.clear();
  files_.clear();
  error_.clear();
  std::error_code ec;
  for (fs::directory_iterator it(dir_, fs::directory_options::skip_permission_denied, ec), end;
       !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (name.empty() || name[0] == '.') continue;
    std::error_code e2;
    if (it->is_directory(e2))
      dirs_.push_back(name);
    else if (all_files_ || KnownExtension(name))
      files_.push_back(name);
  }
  if (ec) error_ = "cannot list " + dir_.string() + ": " + ec.message();
  std::sort(dirs_.begin(), dirs_.end());
  std::sort(files_.begin(), files_.end());
}

std::optional<FileDialog::Result> FileDialog::Draw() {
  if (!open_) return std::nullopt;
  const char* title =
      mode_ == Mode::kOpen ? "Open snapshot###filedlg" : "Save snapshot as###filedlg";
  if (just_opened_) {
    ImGui::OpenPopup(title);
    just_opened_ = false;
  }
  const ImVec2 vp = ImGui::GetMainViewport()->Size;
  ImGui::SetNextWindowSize(ImVec2(std::min(760.f, vp.x - 40), std::min(520.f, vp.y - 40)),
                           ImGuiCond_Appearing);
  ImGui::SetNextWindowPos(ImGui::GetMainViewport()->GetCenter(), ImGuiCond_Appearing,
                          ImVec2(0.5f, 0.5f));
  std::optional<Result> result;
  bool keep = true;
  if (!ImGui::BeginPopupModal(title, &keep)) {
    open_ = false;
    return std::nullopt;
  }
  ImGui::TextUnformatted("Folder:");
  ImGui::SameLine();
  if (ImGui::SmallButton("Up")) Navigate(dir_.parent_path());
  ImGui::SameLine();
  ImGui::TextUnformatted(dir_.string().c_str());

  const float footer = ImGui::GetFrameHeightWithSpacing() * (mode_ == Mode::kSave ? 7.2f : 2.2f);
  bool confirm = false;
  if (ImGui::BeginChild("##list", ImVec2(0, -footer), true)) {
    for (const auto& d : dirs_) {
      if (ImGui::Selectable(("[dir]  " + d).c_str(), false,
                            ImGuiSelectableFlags_AllowDoubleClick) &&
          ImGui::IsMouseDoubleClicked(0)) {
        Navigate(dir_ / d);
        break;
      }
    }
    for (const auto& f : files_) {
      const bool sel = f == name_;
      if (ImGui::Selectable(f.c_str(), sel, ImGuiSelectableFlags_AllowDoubleClick)) {
        std::snprintf(name_, sizeof name_, "%s", f.c_str());
        if (ImGui::IsMouseDoubleClicked(0)) confirm = true;
      }
    }
    if (dirs_.empty() && files_.empty()) TextMuted("(no snapshot files here)");
  }
  ImGui::EndChild();

  ImGui::SetNextItemWidth(-200);
  if (ImGui::IsWindowAppearing()) ImGui::SetKeyboardFocusHere();
  if (ImGui::InputText("##name", name_, sizeof name_, ImGuiInputTextFlags_EnterReturnsTrue))
    confirm = true;
  ImGui::SameLine();
  if (ImGui::Checkbox("All files", &all_files_)) Refresh();

  auto writable = snapshot_formats_ ? Writable() : std::vector<const formats::FormatInfo*>{};
  if (mode_ == Mode::kSave && !writable.empty()) {
    format_ = std::clamp(format_, 0, int(writable.size()) - 1);
    ImGui::SetNextItemWidth(320);
    const formats::FormatInfo* cur = writable[format_];
    std::string label = cur->description + " (" + cur->extensions.front() + ")";
    if (ImGui::BeginCombo("Format", label.c_str())) {
      for (int i = 0; i < int(writable.size()); ++i) {
        std::string l = writable[i]->description + " (" + writable[i]->extensions.front() + ")";
        if (ImGui::Selectable(l.c_str(), i == format_)) {
          format_ = i;
          // Keep the file name's extension in step with the format.
          fs::path p(name_);
          if (!p.empty()) {
            p.replace_extension(writable[i]->extensions.front());
            std::snprintf(name_, sizeof name_, "%s", p.string().c_str());
          }
        }
      }
      ImGui::EndCombo();
    }
  }
  if (mode_ == Mode::kSave && !writable.empty() && losses_) {
    // The format the file will get: a typed extension of a writable format, else the choice.
    const formats::FormatInfo* f = writable[format_];
    if (const formats::FormatInfo* by_ext = formats::FormatForPath(name_, false);
        by_ext && by_ext->can_write)
      f = by_ext;
    const std::vector<std::string> lost = losses_(f->name);
    if (lost.empty()) {
      TextMuted("Keeps everything this snapshot holds.");
    } else {
      ImGui::PushStyleColor(ImGuiCol_Text, kWarn);
      ImGui::TextUnformatted((f->extensions.front() + " does not keep:").c_str());
      for (const std::string& l : lost) ImGui::TextWrapped("- %s", l.c_str());
      ImGui::PopStyleColor();
    }
  }
  if (!error_.empty()) TextColored(kBad, error_);

  if (ImGui::Button(mode_ == Mode::kOpen ? "Open" : "Save", ImVec2(100, 0))) confirm = true;
  ImGui::SameLine();
  if (ImGui::Button("Cancel", ImVec2(100, 0)) ||
      ImGui::IsKeyPressed(ImGui::GetKeyIndex(ImGuiKey_Escape)))
    keep = false;

  if (confirm && name_[0]) {
    fs::path p(name_);
    if (p.is_relative()) p = dir_ / p;
    std::error_code ec;
    if (fs::is_directory(p, ec)) {
      Navigate(p);
      name_[0] = 0;
    } else if (mode_ == Mode::kOpen && !fs::exists(p, ec)) {
      error_ = "no such file: " + p.string();
    } else {
      Result r{p.string(), {}};
      if (mode_ == Mode::kSave && !writable.empty()) {
        // A typed extension of another writable format picks that format ("x.heapsnapshot").
        const formats::FormatInfo* by_ext =
            formats::FormatForPath(p.string(), /*for_reading=*/false);
        if (p.has_extension() && by_ext && by_ext->can_write) {
          r.format = by_ext->name;
        } else {
          r.format = writable[format_]->name;
          if (!p.has_extension()) r.path += writable[format_]->extensions.front();
        }
      }
      result = r;
      keep = false;
    }
  }
  if (!keep) {
    ImGui::CloseCurrentPopup();
    open_ = false;
  }
  ImGui::EndPopup();
  return result;
}

}  // namespace xrpm::gui
