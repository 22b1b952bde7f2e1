// Documents: the snapshots open in the monitor (SnapshotDoc) and which one is active. It opens
// them from files, generates demo heaps, takes in snapshots already in memory (captures), counts
// their types, analyses them, finds the paths holding a type and saves them, all on the
// session's Worker with progress and cancel; a document appears at once (kLoading) and the
// worker's completions fill it in. What happened goes to the SessionLog; opened and saved files
// go to the recent files in Settings.
//
// What is selected in a document lives in the document (SnapshotDoc::selection); Selection
// (selection.h) picks it by name.
//
// Thread-safety: not thread-safe; UI thread only. Worker tasks get their own shared_ptr copies of
// what they read; their completions, which change the documents, run on the UI thread
// (Worker::RunCompletions, from AppSession::Poll).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "xrpm/app/demo_heap.h"
#include "xrpm/app/session_log.h"
#include "xrpm/app/settings.h"
#include "xrpm/app/snapshot_doc.h"
#include "xrpm/app/worker.h"

namespace xrpm::app {

class Documents {
 public:
  // `worker`, `log` and `settings` are the session's (app_session.h); they outlive this.
  Documents(Worker& worker, SessionLog& log, Settings& settings);
  Documents(const Documents&) = delete;
  Documents& operator=(const Documents&) = delete;

  const std::vector<std::unique_ptr<SnapshotDoc>>& docs() const { return docs_; }
  SnapshotDoc* doc(uint32_t id);
  const SnapshotDoc* doc(uint32_t id) const;
  SnapshotDoc* active() { return doc(active_id_); }
  uint32_t active_id() const { return active_id_; }
  void SetActive(uint32_t id);

  // Starts loading `path` (any readable snapshot format) in the background; returns the new
  // document's id. The document appears at once in state kLoading.
  uint32_t OpenFile(const std::string& path);
  // Generates a demo heap in the background.
  uint32_t OpenDemo(const DemoHeapOptions& opts);
  // Adds a snapshot that is already in memory (a capture): unsaved until saved. An empty title
  // is NewCaptureTitle("").
  uint32_t AddSnapshot(Snapshot snap, DocOrigin origin, std::string title);
  uint32_t AddSnapshot(std::shared_ptr<const Snapshot> snap, DocOrigin origin, std::string title);
  // The next capture's title: "Capture 3", or "Capture 3 — bubbles.exe" with the app's name.
  std::string NewCaptureTitle(const std::string& app);
  // Saves in the background (format "" = by extension). On success the document's path is
  // `path`, it is no longer unsaved and the file is in the recent list.
  void SaveAs(uint32_t id, const std::string& path, const std::string& format = {});
  // Closes a document. Refuses (returns false) when it has unsaved changes and !discard: the
  // caller asks the user first.
  bool Close(uint32_t id, bool discard = false);
  bool HasUnsaved() const;

  // (Re)runs the analysis of a loaded snapshot (after a cancel or a failure).
  void Analyse(uint32_t id);
  // Computes in the background the merged shortest paths holding the instances of the type
  // (all types of its name) into doc->holders.
  void FindHolders(uint32_t id, uint32_t type_index);
  // Fills doc->details for object `node`: at once when the index lists referrers, else (a lean
  // index: referrers found by a scan of every reference, ~0.1 s per 100 M on each core) in the
  // background. A no-op when those details are there or being computed.
  void DescribeObject(uint32_t id, uint32_t node);
  // Which index the next analyses build (AnalyseDoc; kAuto by the memory available).
  void set_index_choice(DocIndex index) { index_choice_ = index; }

 private:
  uint32_t NewDoc(std::string title, std::string path, DocOrigin origin);
  void StartAnalysis(uint32_t id);
  void Fail(uint32_t id, const std::string& what);

  Worker& worker_;
  SessionLog& log_;
  Settings& settings_;
  std::vector<std::unique_ptr<SnapshotDoc>> docs_;
  uint32_t next_id_ = 1;
  uint32_t active_id_ = 0;
  uint32_t captures_ = 0;  // NewCaptureTitle's count
  DocIndex index_choice_ = DocIndex::kAuto;
};

}  // namespace xrpm::app
