// DominatorBrowser: the Dominator tree view's expandable tree as a flat list of visible rows, so
// the view draws it with a list clipper however big the tree is. Children come largest retained
// size first, a page at a time ("… 12,345 more") because a node can dominate millions.
//
// Algorithm: Rows() rebuilds the visible list only after a change (expand, collapse, more), by an
// iterative depth-first walk of the expanded nodes: O(visible rows), never O(objects).
//
// Thread-safety: one browser per view, UI thread only; the analysis it reads is immutable.
#pragma once

#include <cstdint>
#include <memory>
#include <unordered_map>
#include <vector>

#include "xrpm/core/session/doc_analysis.h"

namespace xrpm::session {

class DominatorBrowser {
 public:
  static constexpr uint32_t kPage = 100;

  struct Row {
    uint32_t node = kNoIndex;  // the object, or for a "more" row the parent whose page it is
    uint32_t depth = 0;
    bool more = false;          // "… N more objects": a click shows the next page
    uint64_t hidden = 0;        // more rows: children not shown yet
    uint64_t hidden_bytes = 0;  // more rows: their retained bytes
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
  // Expands every dominator of `node` so it becomes visible; returns its row index (or -1 when
  // it is unreachable).
  int64_t Reveal(uint32_t node);
  uint64_t rebuilds() const { return rebuilds_; }

 private:
  void Rebuild();
  void EnsureShown(uint32_t parent, uint32_t child);

  std::shared_ptr<const DocAnalysis> a_;
  std::unordered_map<uint32_t, uint64_t> shown_;  // expanded node -> children shown
  std::vector<Row> rows_;
  bool dirty_ = true;
  uint64_t rebuilds_ = 0;
};

}  // namespace xrpm::session
