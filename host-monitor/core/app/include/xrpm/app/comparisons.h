// Comparisons: what the Compare view shows, each computed on the session's Worker from what it
// reads and replacing the previous result of its kind:
//   - snapshots compared by type, oldest first (analysis::DiffSummaries) with the growing types
//     and their paths in the last one (CompareSnapshots);
//   - the leak filter: the objects of capture C allocated between captures A and B and still
//     held in C (FindLeaks, leak_view.h);
//   - the allocation traffic of two recordings per call site (CompareAllocations,
//     analysis::DiffAllocations, as `xrpm allocations --diff`).
// It reads the analysed documents (documents.h) and the recordings (recordings.h); failures go
// to the SessionLog.
//
// Thread-safety: not thread-safe; UI thread only. Worker tasks hold their own references to
// the analyses and copies of the recordings; their completions run on the UI thread.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "xrpm/analysis/diff.h"
#include "xrpm/app/doc_analysis.h"
#include "xrpm/app/leak_view.h"
#include "xrpm/app/recording_doc.h"
#include "xrpm/app/session_log.h"
#include "xrpm/app/worker.h"

namespace xrpm::app {

class Documents;
class Recordings;

// The result of comparing two or more snapshots (oldest first).
struct CompareResult {
  std::vector<uint32_t> docs;
  std::vector<std::string> titles;
  analysis::HeapDiff diff;                  // per type name, sorted by growth
  std::vector<analysis::Suspect> growth;    // growing types, with paths in the last snapshot
  std::shared_ptr<const DocAnalysis> last;  // the analysis the growth suspects refer to
};

class Comparisons {
 public:
  // All four are the session's and outlive this.
  Comparisons(Worker& worker, SessionLog& log, const Documents& docs, const Recordings& recordings);
  Comparisons(const Comparisons&) = delete;
  Comparisons& operator=(const Comparisons&) = delete;

  // Compares analysed snapshots in the background (oldest first); the result replaces
  // snapshots(). Logs why not when one is missing or not analysed, or fewer than two.
  void CompareSnapshots(std::vector<uint32_t> ids);
  const std::shared_ptr<const CompareResult>& snapshots() const { return snapshots_; }
  // The leak filter of documents a, b, c on the worker; the result (or why it cannot run)
  // replaces leaks().
  void FindLeaks(uint32_t a, uint32_t b, uint32_t c);
  const std::shared_ptr<const LeaksResult>& leaks() const { return leaks_; }
  // The allocation traffic of recordings A and B (kLiveRecording or RecordingDoc ids) per call
  // site; the result replaces allocations(). False, logged, when a recording is missing or not
  // ready.
  bool CompareAllocations(uint32_t a, uint32_t b, analysis::AllocSiteKind by);
  const std::shared_ptr<const AllocCompareResult>& allocations() const { return allocations_; }

 private:
  Worker& worker_;
  SessionLog& log_;
  const Documents& docs_;
  const Recordings& recordings_;
  std::shared_ptr<const CompareResult> snapshots_;
  std::shared_ptr<const LeaksResult> leaks_;
  std::shared_ptr<const AllocCompareResult> allocations_;
};

}  // namespace xrpm::app
