// FileDialog: an in-window Open / Save As dialog (Dear ImGui has none and Debian ships none for
// it): a path field, the current directory's folders and matching files, and for saving a
// format choice from snapshot_io's formats::Formats(). Drawn as a modal popup.
//
// Thread-safety: UI thread only.
#pragma once

#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace xrpm::gui {

class FileDialog {
 public:
  enum class Mode { kOpen, kSave };
  struct Result {
    std::string path;
    std::string format;  // save: the chosen format name ("" = by extension)
  };

  // What saving in a format would lose (snapshot_io's formats::FormatLosses for the document).
  using LossesFn = std::function<std::vector<std::string>(const std::string& format)>;

  // Opens the dialog in `dir`; for saving, `suggested` is the proposed file name (its extension
  // picks the initial format) and `losses`, when given, is shown under the format choice so the
  // user reads what a lossy format drops before writing it.
  // `snapshot_formats` false: a plain file (CSV export): no format choice, all files listed.
  void Open(Mode mode, const std::string& dir, const std::string& suggested = {},
            bool snapshot_formats = true, LossesFn losses = {});
  bool is_open() const { return open_; }
  Mode mode() const { return mode_; }
  // Draws the dialog when open; returns the chosen path once, when the user confirms.
  std::optional<Result> Draw();

 private:
  void Refresh();
  void Navigate(const std::filesystem::path& dir);

  Mode mode_ = Mode::kOpen;
  bool open_ = false;
  bool just_opened_ = false;
  std::filesystem::path dir_;
  char name_[1024] = {};
  std::vector<std::string> dirs_, files_;
  std::string error_;
  int format_ = 0;  // index into the writable formats (save)
  bool all_files_ = false;
  bool snapshot_formats_ = true;
  LossesFn losses_;
};

}  // namespace xrpm::gui
