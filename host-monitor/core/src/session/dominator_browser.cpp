#include "xrpm/core/session/dominator_browser.h"

#include <algorithm>

namespace xrpm::session {

void DominatorBrowser::Reset(std::shared_ptr<const DocAnalysis> a) {
  a_ = std::move(a);
  shown_.clear();
  rows_.clear();
  if (a_) {
    const uint32_t root = a_->dom().virtual_root();
    shown_[root] = kPage;
    // Open the biggest retainer one level: the first thing a user looks at.
    const auto top = a_->children.Children(root);
    if (!top.empty() && !a_->children.Children(top[0]).empty()) shown_[top[0]] = kPage;
  }
  dirty_ = true;
}

bool DominatorBrowser::HasChildren(uint32_t node) const {
  return a_ && !a_->children.Children(node).empty();
}

void DominatorBrowser::Toggle(uint32_t node) {
  if (!a_) return;
  if (!shown_.erase(node)) shown_[node] = kPage;
  dirty_ = true;
}

void DominatorBrowser::ShowMore(uint32_t parent) {
  auto it = shown_.find(parent);
  if (it == shown_.end()) return;
  it->second += kPage;
  dirty_ = true;
}

const std::vector<DominatorBrowser::Row>& DominatorBrowser::Rows() {
  if (dirty_) Rebuild();
  return rows_;
}

void DominatorBrowser::Rebuild() {
  dirty_ = false;
  ++rebuilds_;
  rows_.clear();
  if (!a_) return;
  // Explicit stack of (parent, next child position, depth): no recursion, any depth.
  struct Frame {
    uint32_t parent;
    uint64_t next;
    uint32_t depth;
  };
  const auto& dom = a_->dom();
  std::vector<Frame> stack{{dom.virtual_root(), 0, 0}};
  while (!stack.empty()) {
    Frame& f = stack.back();
    const auto kids = a_->children.Children(f.parent);
    const uint64_t limit = std::min<uint64_t>(kids.size(), shown_[f.parent]);
    if (f.next >= limit) {
      if (limit < kids.size()) {
        Row more{f.parent, f.depth, true, kids.size() - limit, 0};
        for (uint64_t i = limit; i < kids.size(); ++i) more.hidden_bytes += dom.retained(kids[i]);
        rows_.push_back(more);
      }
      stack.pop_back();
      continue;
    }
    const uint32_t v = kids[f.next++];
    const uint32_t depth = f.depth;
    rows_.push_back(Row{v, depth, false, 0, 0});
    if (shown_.count(v)) stack.push_back({v, 0, depth + 1});  // invalidates f
  }
}

void DominatorBrowser::EnsureShown(uint32_t parent, uint32_t child) {
  const auto kids = a_->children.Children(parent);
  const auto pos = std::find(kids.begin(), kids.end(), child) - kids.begin();
  uint64_t& shown = shown_[parent];
  if (shown == 0) shown = kPage;
  while (shown <= uint64_t(pos)) shown += kPage;
}

int64_t DominatorBrowser::Reveal(uint32_t node) {
  if (!a_ || node >= a_->dom().node_count() || !a_->dom().reachable(node)) return -1;
  const auto& dom = a_->dom();
  for (uint32_t v = node; v != dom.virtual_root();) {
    const uint32_t p = dom.idom(v);
    EnsureShown(p, v);
    v = p;
  }
  dirty_ = true;
  const auto& rows = Rows();
  for (size_t i = 0; i < rows.size(); ++i)
    if (!rows[i].more && rows[i].node == node) return int64_t(i);
  return -1;
}

}  // namespace xrpm::session
