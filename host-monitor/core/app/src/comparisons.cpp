// Comparisons (comparisons.h): snapshots compared by type, the leak filter and two
// recordings' allocation traffic.
// Thread-safety: UI thread only; the worker tasks below touch only what they were given.
#include "xrpm/app/comparisons.h"

#include <array>

#include "xrpm/app/documents.h"
#include "xrpm/app/recordings.h"
#include "xrpm/model/human_format.h"

namespace xrpm::app {

Comparisons::Comparisons(Worker& worker, SessionLog& log, const Documents& docs,
                         const Recordings& recordings)
    : worker_(worker), log_(log), docs_(docs), recordings_(recordings) {}

void Comparisons::CompareSnapshots(std::vector<uint32_t> ids) {
  std::vector<std::shared_ptr<const DocAnalysis>> parts;
  std::vector<std::string> titles;
  for (uint32_t id : ids) {
    const SnapshotDoc* d = docs_.doc(id);
    if (!d || !d->analysis) {
      log_.Add(LogEntry::kError,
               "Compare needs analysed snapshots; " +
                   (d ? d->title + " is not analysed yet" : std::string("one was closed")));
      return;
    }
    parts.push_back(d->analysis);
    titles.push_back(d->title);
  }
  if (parts.size() < 2) {
    log_.Add(LogEntry::kError, "Compare needs at least two snapshots");
    return;
  }
  worker_.Post(
      "Comparing " + std::to_string(parts.size()) + " snapshots",
      [this, ids, titles, parts](TaskContext& ctx) -> Completion {
        auto r = std::make_shared<CompareResult>();
        r->docs = ids;
        r->titles = titles;
        r->last = parts.back();
        std::vector<analysis::HeapSummary> sums;
        for (const auto& p : parts) sums.push_back(p->summary);
        ctx.SetPhase("Diff by type");
        r->diff = analysis::DiffSummaries(sums);
        ctx.SetPhase("Growing types");
        Progress progress;
        progress.cancel = ctx.cancel_flag();
        r->growth = analysis::FindGrowthSuspects(r->diff, r->last->heap, {}, progress);
        return [this, r] {
          snapshots_ = r;
          log_.Add(LogEntry::kInfo, "Compared " + std::to_string(r->docs.size()) + " snapshots: " +
                                        std::to_string(r->growth.size()) + " growing types");
        };
      },
      [this](const std::string& m) { log_.Add(LogEntry::kError, "Could not compare: " + m); });
}

void Comparisons::FindLeaks(uint32_t a, uint32_t b, uint32_t c) {
  auto r = std::make_shared<LeaksResult>();
  r->docs = {a, b, c};
  std::array<std::shared_ptr<const DocAnalysis>, 3> parts;
  for (size_t k = 0; k < 3; ++k) {
    const SnapshotDoc* d = docs_.doc(r->docs[k]);
    r->titles[k] = d ? d->title : "(closed)";
    if (d) parts[k] = d->analysis;
    if (!parts[k] && r->error.empty())
      r->error = "Capture " + std::string(1, char('A' + k)) + " (" + r->titles[k] + ") " +
                 (d ? "is not analysed yet." : "was closed.");
  }
  if (!r->error.empty()) {
    leaks_ = r;
    return;
  }
  const analysis::LeakNames names = {r->titles[0], r->titles[1], r->titles[2]};
  r->error = analysis::CheckLeakCaptures(*parts[0]->snapshot, *parts[1]->snapshot,
                                         *parts[2]->snapshot, names);
  if (!r->error.empty()) {
    leaks_ = r;
    log_.Add(LogEntry::kWarning, "Leak filter: " + r->error);
    return;
  }
  worker_.Post(
      "Finding leaks in " + r->titles[2],
      [this, r, parts](TaskContext& ctx) -> Completion {
        Progress progress;
        progress.cancel = ctx.cancel_flag();
        ctx.SetPhase("Allocated between A and B, alive in C");
        const analysis::LeakNames names = {r->titles[0], r->titles[1], r->titles[2]};
        try {
          r->report =
              analysis::FindLeaks(*parts[0]->snapshot, *parts[1]->snapshot, parts[2]->index(),
                                  parts[2]->forest(), {}, names, progress);
          r->c = parts[2];
        } catch (const analysis::LeakFilterError& e) {
          r->error = e.what();
        }
        return [this, r] {
          leaks_ = r;
          if (r->error.empty())
            log_.Add(LogEntry::kInfo, "Leak filter: " + std::to_string(r->report.groups.size()) +
                                          " groups allocated between " + r->titles[0] + " and " +
                                          r->titles[1] + " still alive in " + r->titles[2]);
        };
      },
      [this](const std::string& m) { log_.Add(LogEntry::kError, "Could not find leaks: " + m); });
}

bool Comparisons::CompareAllocations(uint32_t a, uint32_t b, analysis::AllocSiteKind by) {
  const FrameRecording* ra = recordings_.contents(a);
  const FrameRecording* rb = recordings_.contents(b);
  if (!ra || !rb) {
    log_.Add(LogEntry::kError, "Compare allocations: " + recordings_.Title(ra ? b : a) +
                                   " is not a recording that was read");
    return false;
  }
  allocations_.reset();  // replaced when the comparison is done
  auto r = std::make_shared<AllocCompareResult>();
  r->recordings = {a, b};
  r->titles = {recordings_.Title(a), recordings_.Title(b)};
  r->apps = {ra->app, rb->app};
  // Copies: the live recording keeps growing while the worker compares.
  auto copies =
      std::make_shared<std::array<FrameRecording, 2>>(std::array<FrameRecording, 2>{*ra, *rb});
  worker_.Post(
      "Comparing the allocations of " + r->titles[0] + " and " + r->titles[1],
      [this, r, copies, by](TaskContext& ctx) -> Completion {
        ctx.SetPhase("Allocation profiles per call site");
        r->diff = analysis::DiffAllocations((*copies)[0], (*copies)[1], by);
        return [this, r] {
          allocations_ = r;
          log_.Add(LogEntry::kInfo, "Compared the allocations of " + r->titles[0] + " and " +
                                        r->titles[1] + " by " +
                                        analysis::AllocSiteKindName(r->diff.by) + ": " +
                                        FormatCount(r->diff.rows.size()) + " sites");
        };
      },
      [this](const std::string& m) {
        log_.Add(LogEntry::kError, "Could not compare allocations: " + m);
      });
  return true;
}

}  // namespace xrpm::app
