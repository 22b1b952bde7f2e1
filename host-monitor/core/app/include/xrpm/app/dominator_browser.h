// DominatorBrowser: the Dominator tree view's expandable tree as a flat list of visible rows, so
// the view draws it with a list clipper however big the tree is. Children come largest retained
// size first, a page at a time ("… 12,345 more") because a node can dominate millions.
//
// Grouped by allocation site (SetGroupBySite), an expanded node first shows its children's
// sites — one row per site with the children allocated there and their retained bytes (the
// children's subtrees are disjoint, so the sum is what freeing all of them frees) — and an
// expanded site row shows those children, largest first, paged the same way.
//
// Algorithm: Rows() rebuilds the visible list only after a change (expand, collapse, more), by an
// iterative depth-first walk of the expanded nodes: O(visible rows), never O(objects). A node's
// site groups are computed once, when it is first expanded grouped: O(its children).
//
// Thread-safety: one browser per view, UI thread only; the analysis it reads is immutable.
#pragma once

#include <cstdint>
#include <memory>
#include <unordered_map>
#include <vector>

#include "xrpm/app/doc_analysis.h"

namespace xrpm::app {

class DominatorBrowser {
 public:
  static constexpr uint32_t kPage = 100;

  struct Row {
    uint32_t node = kNoIndex;  // the object, or for a "more" row the parent whose page it is
    uint32_t depth = 0;
    bool more = false;          // "… N more objects": a click shows the next page
    uint64_t hidden = 0;        // more rows: children not shown yet
    uint64_t hidden_bytes = 0;  // more rows: their retained bytes
    // Grouped by site: a site row (node = the parent; hidden/hidden_bytes = the children
    // allocated there and their retained bytes), or for members and their "more" row the site.
    bool group = false;
    bool in_group = false;  // a member of a site row, or that row's "more" row
    uint32_t site = kUnknownSite;
  };

  // Shows `a`'s tree: the top level (the objects held directly by the roots) with the largest
  // one expanded.
  void Reset(std::shared_ptr<const DocAnalysis> a);
  const DocAnalysis* analysis() const { return a_.get(); }

  const std::vector<Row>& Rows();
  bool HasChildren(uint32_t node) const;
  bool Expanded(uint32_t node) const { return shown_.count(node) != 0; }
  void Toggle(uint32_t node);
  void ShowMore(uint32_t parent);
  // Site grouping (allocation origins): on, each expanded node lists its children by site.
  void SetGroupBySite(bool on);
  bool group_by_site() const { return by_site_; }
  bool GroupExpanded(uint32_t parent, uint32_t site) const {
    return shown_groups_.count(Key(parent, site)) != 0;
  }
  void ToggleGroup(uint32_t parent, uint32_t site);
  void ShowMoreOfGroup(uint32_t parent, uint32_t site);
  // Expands every dominator of `node` so it becomes visible; returns its row index (or -1 when
  // it is unreachable).
  int64_t Reveal(uint32_t node);
  uint64_t rebuilds() const { return rebuilds_; }

 private:
  void Rebuild();
  void EnsureShown(uint32_t parent, uint32_t child);
  struct SiteGroup {
    uint32_t site = kNoIndex;
    uint64_t retained = 0;
    std::vector<uint32_t> members;  // children of the parent from this site, largest first
  };
  const std::vector<SiteGroup>& GroupsOf(uint32_t parent);
  void OpenLargestGroups();
  static uint64_t Key(uint32_t parent, uint32_t site) { return uint64_t(parent) << 32 | site; }

  bool by_site_ = false;
  std::unordered_map<uint32_t, std::vector<SiteGroup>> groups_;  // parent -> its site groups
  std::unordered_map<uint64_t, uint64_t> shown_groups_;          // expanded group -> shown

  std::shared_ptr<const DocAnalysis> a_;
  std::unordered_map<uint32_t, uint64_t> shown_;  // expanded node -> children shown
  std::vector<Row> rows_;
  bool dirty_ = true;
  uint64_t rebuilds_ = 0;
};

}  // namespace xrpm::app
