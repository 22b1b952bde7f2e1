// Where an unattended run's captures go: the output name template
// (`-o 'run-{n}-{marker}.xrpm'`) and the ring of kept files (`--keep N`: after each save the
// oldest files this run wrote beyond the newest N are removed; files it did not write are never
// touched).
//
// Template fields: {n} the capture's number in the run (1, 2, ...), {marker} the capture
// request's label, or the marker that fired it, or else the last marker the game posted before
// it ("none" without one), {trigger} what fired it (every, growth, gc-pause, marker, game). A
// field's text is made safe for a file name: characters other than letters, digits, '.', '-'
// and '_' become '_', at most 64 of them are kept, and a leading '.' becomes '_'. "{{" and "}}"
// are literal braces.
//
// SaveCapture puts the three together for one capture.
//
// Thread-safety: OutputTemplate is a value (const methods reentrant); CaptureFileRing has one
// owner thread.
#pragma once

#include <cstdint>
#include <deque>
#include <string>
#include <vector>

#include "xrpm/analysis/capture_triggers.h"
#include "xrpm/model/snapshot.h"

namespace xrpm::app {

class OutputTemplate {
 public:
  // Parses `pattern`; false with *error naming the bad field and its byte offset.
  bool Parse(const std::string& pattern, std::string* error);
  // True when the names differ from one capture to the next ({n} appears).
  bool numbered() const { return numbered_; }
  std::string Expand(uint64_t n, const std::string& marker, const std::string& trigger) const;

 private:
  struct Part {
    enum Kind { kText, kN, kMarker, kTrigger } kind;
    std::string text;
  };
  std::vector<Part> parts_;
  bool numbered_ = false;
};

// A file-name-safe form of `text` (see the header comment); "none" for "".
std::string FileNameField(const std::string& text);

class CaptureFileRing {
 public:
  explicit CaptureFileRing(uint32_t keep) : keep_(keep) {}  // 0: keep everything
  // Records a saved file and removes the oldest beyond `keep`; returns the removed paths (a
  // file already gone is not an error). Saving to a path already in the ring moves it to the end.
  std::vector<std::string> Add(const std::string& path);
  const std::deque<std::string>& files() const { return files_; }

 private:
  uint32_t keep_;
  std::deque<std::string> files_;
};

// Saves capture number `n`, fired by `why`, under `tmpl` ({marker}: why's label, else the
// capture's last marker) and adds it to `ring`; returns the file and sets *removed to what the
// ring removed. Throws what formats::SaveSnapshot throws (then nothing is recorded).
std::string SaveCapture(const Snapshot& snap, uint64_t n, const analysis::TriggerFire& why,
                        const OutputTemplate& tmpl, CaptureFileRing& ring,
                        std::vector<std::string>* removed);

}  // namespace xrpm::app
