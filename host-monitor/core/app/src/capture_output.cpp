#include "xrpm/app/capture_output.h"

#include <algorithm>
#include <filesystem>
#include <system_error>

#include "xrpm/formats/snapshot_io.h"

namespace xrpm::app {

bool OutputTemplate::Parse(const std::string& pattern, std::string* error) {
  parts_.clear();
  numbered_ = false;
  std::string text;
  auto flush = [&] {
    if (!text.empty()) parts_.push_back({Part::kText, std::move(text)});
    text.clear();
  };
  for (size_t i = 0; i < pattern.size(); ++i) {
    const char c = pattern[i];
    if ((c == '{' || c == '}') && i + 1 < pattern.size() && pattern[i + 1] == c) {
      text.push_back(c);
      ++i;
      continue;
    }
    if (c == '}') {
      *error = "offset " + std::to_string(i) + ": expected '}}' for a literal brace, found '}'";
      return false;
    }
    if (c != '{') {
      text.push_back(c);
      continue;
    }
    const size_t close = pattern.find('}', i);
    const std::string field =
        pattern.substr(i + 1, close == std::string::npos ? std::string::npos : close - i - 1);
    Part::Kind kind;
    if (close != std::string::npos && field == "n")
      kind = Part::kN;
    else if (close != std::string::npos && field == "marker")
      kind = Part::kMarker;
    else if (close != std::string::npos && field == "trigger")
      kind = Part::kTrigger;
    else {
      *error = "offset " + std::to_string(i) + ": expected {n}, {marker} or {trigger}, found '" +
               pattern.substr(i, close == std::string::npos ? std::string::npos : close - i + 1) +
               "'";
      return false;
    }
    flush();
    parts_.push_back({kind, ""});
    numbered_ |= kind == Part::kN;
    i = close;
  }
  flush();
  if (parts_.empty()) {
    *error = "expected a file name, found ''";
    return false;
  }
  return true;
}

std::string OutputTemplate::Expand(uint64_t n, const std::string& marker,
                                   const std::string& trigger) const {
  std::string out;
  for (const Part& p : parts_) {
    switch (p.kind) {
      case Part::kText:
        out += p.text;
        break;
      case Part::kN:
        out += std::to_string(n);
        break;
      case Part::kMarker:
        out += FileNameField(marker);
        break;
      case Part::kTrigger:
        out += FileNameField(trigger);
        break;
    }
  }
  return out;
}

std::string FileNameField(const std::string& text) {
  if (text.empty()) return "none";
  std::string out;
  for (char c : text) {
    if (out.size() == 64) break;
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                    c == '.' || c == '-' || c == '_';
    out.push_back(ok ? c : '_');
  }
  if (out[0] == '.') out[0] = '_';
  return out;
}

std::vector<std::string> CaptureFileRing::Add(const std::string& path) {
  files_.erase(std::remove(files_.begin(), files_.end(), path), files_.end());
  files_.push_back(path);
  std::vector<std::string> removed;
  while (keep_ > 0 && files_.size() > keep_) {
    std::error_code ec;
    std::filesystem::remove(files_.front(), ec);
    removed.push_back(files_.front());
    files_.pop_front();
  }
  return removed;
}

std::string SaveCapture(const Snapshot& snap, uint64_t n, const analysis::TriggerFire& why,
                        const OutputTemplate& tmpl, CaptureFileRing& ring,
                        std::vector<std::string>* removed) {
  const std::string marker =
      !why.label.empty() ? why.label : (snap.capture ? snap.capture->last_marker : "");
  const std::string file = tmpl.Expand(n, marker, analysis::TriggerKindName(why.kind));
  formats::SaveSnapshot(snap, file);
  *removed = ring.Add(file);
  return file;
}

}  // namespace xrpm::app
