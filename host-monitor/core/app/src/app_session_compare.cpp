// Comparing snapshots, the leak filter and the holders of a type (AppSession).
// Thread-safety: the UI thread only, as the rest of AppSession (app_session.h).
#include <algorithm>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "xrpm/app/app_session.h"
#include "xrpm/formats/snapshot_io.h"
#include "xrpm/model/human_format.h"

namespace xrpm::app {

void AppSession::FindHolders(uint32_t id, uint32_t type_index) {
  SnapshotDoc* d = doc(id);
  if (!d || !d->analysis || type_index >= d->snapshot->type_count()) return;
  const uint32_t group = d->analysis->index().group_of_type(type_index);
  if ((d->holders && d->holders->group == group) || d->holders_pending == group) return;
  d->holders_pending = group;
  worker_.Post(
      "Paths holding " + d->analysis->index().group_name(group),
      [this, id, group, a = d->analysis](TaskContext& ctx) -> Completion {
        ctx.SetPhase("Merging shortest paths");
        auto h = std::make_shared<Holders>();
        h->group = group;
        h->paths = analysis::MergeShortestPaths(a->index(), a->forest, &a->dom(), group, 12);
        return [this, id, h] {
          if (SnapshotDoc* d = doc(id)) {
            d->holders = h;
            if (d->holders_pending == h->group) d->holders_pending = kNoIndex;
          }
        };
      },
      [this, id](const std::string& m) {
        if (SnapshotDoc* d = doc(id)) d->holders_pending = kNoIndex;
        Log(LogEntry::kError, "Could not find the paths: " + m);
      });
}

void AppSession::Compare(std::vector<uint32_t> ids) {
  std::vector<std::shared_ptr<const DocAnalysis>> parts;
  std::vector<std::string> titles;
  for (uint32_t id : ids) {
    SnapshotDoc* d = doc(id);
    if (!d || !d->analysis) {
      Log(LogEntry::kError,
          "Compare needs analysed snapshots; " +
              (d ? d->title + " is not analysed yet" : std::string("one was closed")));
      return;
    }
    parts.push_back(d->analysis);
    titles.push_back(d->title);
  }
  if (parts.size() < 2) {
    Log(LogEntry::kError, "Compare needs at least two snapshots");
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
          compare_ = r;
          Log(LogEntry::kInfo, "Compared " + std::to_string(r->docs.size()) + " snapshots: " +
                                   std::to_string(r->growth.size()) + " growing types");
        };
      },
      [this](const std::string& m) { Log(LogEntry::kError, "Could not compare: " + m); });
}

void AppSession::FindLeaks(uint32_t a, uint32_t b, uint32_t c) {
  auto r = std::make_shared<LeaksResult>();
  r->docs = {a, b, c};
  std::array<std::shared_ptr<const DocAnalysis>, 3> parts;
  for (size_t k = 0; k < 3; ++k) {
    SnapshotDoc* d = doc(r->docs[k]);
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
    Log(LogEntry::kWarning, "Leak filter: " + r->error);
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
          r->report = analysis::FindLeaks(*parts[0]->snapshot, *parts[1]->snapshot,
                                          parts[2]->index(), parts[2]->forest, {}, names, progress);
          r->c = parts[2];
        } catch (const analysis::LeakFilterError& e) {
          r->error = e.what();
        }
        return [this, r] {
          leaks_ = r;
          if (r->error.empty())
            Log(LogEntry::kInfo, "Leak filter: " + std::to_string(r->report.groups.size()) +
                                     " groups allocated between " + r->titles[0] + " and " +
                                     r->titles[1] + " still alive in " + r->titles[2]);
        };
      },
      [this](const std::string& m) { Log(LogEntry::kError, "Could not find leaks: " + m); });
}

}  // namespace xrpm::app
