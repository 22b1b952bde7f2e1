// SnapshotDoc: one snapshot the monitor has open (opened from a file, captured from a device or
// generated), with everything the views show about it: the immutable Snapshot, the type table,
// the analysis results once they are ready, whether it has unsaved changes, and the user's
// selection in it (selected type and object, type filter).
//
// Thread-safety: owned by Documents (documents.h) and mutated only on the UI thread (worker
// completions run there). The heavy members are shared_ptr<const ...>: worker tasks hold their
// own references, so closing a document while a task uses it is safe.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <optional>

#include "xrpm/analysis/object_contents.h"
#include "xrpm/app/doc_analysis.h"
#include "xrpm/app/doc_origins.h"
#include "xrpm/app/heap_overview.h"
#include "xrpm/app/type_table.h"
#include "xrpm/model/snapshot.h"

namespace xrpm::app {

enum class DocOrigin { kOpened, kCaptured, kGenerated };
enum class DocState { kLoading, kAnalysing, kReady, kFailed };

const char* DocOriginName(DocOrigin o);  // "opened", "captured", "generated"
const char* DocStateName(DocState s);    // "loading", "analysing", "ready", "failed"

// The user's place in a document; the script's select-* steps and the views share it.
struct DocSelection {
  int64_t type = -1;    // type index, -1: none
  int64_t object = -1;  // object index, -1: none
  std::string type_filter;
  // Allocation origins: how Types, Instances and the Dominator tree group, the site the
  // Instances list is narrowed to (kUnknownSite: objects of unknown origin; none: all), and the
  // Age view's chosen bin (index into DocOrigins::ages.bins, -1: none).
  SiteGrouping grouping = SiteGrouping::kType;
  std::optional<uint32_t> site;
  int64_t age_bin = -1;
};

// "Which paths hold the instances of this type" (merged shortest paths), computed on demand.
struct Holders {
  uint32_t group = kNoIndex;  // the analysis' type group
  analysis::MergedPaths paths;
};

// What the Inspector shows of one object beyond its own columns, computed on demand: its
// resolved references out (record order) and in (one per reference, by source), and its
// contents (fields, text, referrers with their holding fields).
struct ObjectDetails {
  uint32_t node = kNoIndex;
  std::vector<uint32_t> out, in;
  analysis::ObjectContents contents;
};

struct SnapshotDoc {
  uint32_t id = 0;
  std::string title;  // file name, or "Capture 1 — bubbles.exe"
  std::string path;   // where it was read from or last saved; "" if never saved
  DocOrigin origin = DocOrigin::kOpened;
  DocState state = DocState::kLoading;
  bool unsaved = false;
  std::string problem;  // why it failed, in plain words

  std::shared_ptr<const Snapshot> snapshot;
  std::shared_ptr<const TypeTable> types;
  std::shared_ptr<const HeapOverview> overview;
  std::shared_ptr<const DocAnalysis> analysis;  // null until the analysis has finished
  std::string analysis_note;
  std::shared_ptr<const Holders> holders;        // for the last FindHolders request
  uint32_t holders_pending = kNoIndex;           // group being computed
  std::shared_ptr<const ObjectDetails> details;  // for the last DescribeObject request
  uint32_t details_pending = kNoIndex;           // node being described on the worker

  // Reader diagnostics (lenient load): how many problems and the first few messages.
  uint64_t diagnostics_total = 0;
  std::vector<std::string> diagnostics;

  double load_seconds = 0;
  double analysis_seconds = 0;

  DocSelection selection;

  bool ready() const { return state == DocState::kReady || state == DocState::kAnalysing; }
};

}  // namespace xrpm::app
