// Selection: picks what is selected in the active document (SnapshotDoc::selection: type,
// object, allocation site, age bin) from a name, a number or an inspection's finding, as
// scripts, object links and the Inspections view do. It keeps no state of its own: the
// selection belongs to each document, and the active one is Documents' (documents.h).
//
// Thread-safety: not thread-safe; UI thread only.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace xrpm::app {

class Documents;

class Selection {
 public:
  // `docs` outlives this (both belong to AppSession).
  explicit Selection(Documents& docs) : docs_(docs) {}

  // Selects a type by exact name in the active document (false if absent or not ready).
  bool SelectType(const std::string& name);
  bool SelectObject(uint64_t object_index);
  // Selects the `n`-th (0-based) finding of the inspection named `name` in the active
  // document: its objects' type and its first object (the Inspections view's links). False
  // when the document is not analysed or has no such finding.
  bool SelectFinding(const std::string& name, size_t n);
  // Narrows the Instances list of the active snapshot to one allocation site: the largest site
  // of the selected type's instances (of all objects when no type is selected) whose label
  // contains `text`; "unknown": the objects of unknown origin; "all": no narrowing. False when
  // nothing matches or the snapshot has no origins.
  bool SelectSite(const std::string& text);
  // Picks the Age view's bin holding objects `age_frames` old, or "largest" (most bytes) /
  // "oldest" non-empty bin. False when the snapshot has no ages or no such bin.
  bool SelectAgeBin(const std::string& what);

 private:
  Documents& docs_;
};

}  // namespace xrpm::app
