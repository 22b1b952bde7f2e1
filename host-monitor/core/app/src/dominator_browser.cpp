#include "xrpm/app/dominator_browser.h"

#include <algorithm>
#include <span>

#include "xrpm/app/doc_origins.h"

namespace xrpm::app {

void DominatorBrowser::Reset(std::shared_ptr<const DocAnalysis> a) {
  a_ = std::move(a);
  shown_.clear();
  groups_.clear();
  shown_groups_.clear();
  rows_.clear();
  if (a_) {
    const uint32_t root = a_->dom().virtual_root();
    shown_[root] = kPage;
    if (by_site_) OpenLargestGroups();
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

void DominatorBrowser::SetGroupBySite(bool on) {
  if (on == by_site_) return;
  by_site_ = on;
  if (on && a_) OpenLargestGroups();
  dirty_ = true;
}

void DominatorBrowser::OpenLargestGroups() {
  // The top level's largest site, its largest object, and that object's largest site: the
  // first thing a user looks at, as Reset opens the largest node when not grouped.
  const uint32_t root = a_->dom().virtual_root();
  const auto& top = GroupsOf(root);
  if (top.empty()) return;
  shown_groups_[Key(root, top[0].site)] = kPage;
  const uint32_t v = top[0].members[0];
  if (a_->children.Children(v).empty()) return;
  shown_[v] = kPage;
  shown_groups_[Key(v, GroupsOf(v)[0].site)] = kPage;
}

void DominatorBrowser::ToggleGroup(uint32_t parent, uint32_t site) {
  if (!shown_groups_.erase(Key(parent, site))) shown_groups_[Key(parent, site)] = kPage;
  dirty_ = true;
}

void DominatorBrowser::ShowMoreOfGroup(uint32_t parent, uint32_t site) {
  auto it = shown_groups_.find(Key(parent, site));
  if (it == shown_groups_.end()) return;
  it->second += kPage;
  dirty_ = true;
}

const std::vector<DominatorBrowser::SiteGroup>& DominatorBrowser::GroupsOf(uint32_t parent) {
  auto it = groups_.find(parent);
  if (it != groups_.end()) return it->second;
  const Snapshot& s = *a_->snapshot;
  const auto& dom = a_->dom();
  std::vector<SiteGroup> groups;
  std::unordered_map<uint32_t, size_t> at;
  for (uint32_t v : a_->children.Children(parent)) {
    const uint32_t site = v < s.object_count() ? SiteOfObject(s, v) : kUnknownSite;
    auto [pos, fresh] = at.try_emplace(site, groups.size());
    if (fresh) groups.push_back({site, 0, {}});
    SiteGroup& g = groups[pos->second];
    g.members.push_back(v);  // children come largest first: so do the members
    g.retained += dom.retained(v);
  }
  std::stable_sort(groups.begin(), groups.end(),
                   [](const SiteGroup& a, const SiteGroup& b) { return a.retained > b.retained; });
  return groups_.emplace(parent, std::move(groups)).first->second;
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
  // Grouped by site, a node's frame lists its site groups (group < 0), and an expanded
  // group's frame lists its members (group = its index in GroupsOf(parent)).
  struct Frame {
    uint32_t parent;
    uint64_t next;
    uint32_t depth;
    int64_t group = -1;
  };
  const auto& dom = a_->dom();
  std::vector<Frame> stack{{dom.virtual_root(), 0, 0}};
  while (!stack.empty()) {
    Frame& f = stack.back();
    if (by_site_ && f.group < 0) {
      const auto& groups = GroupsOf(f.parent);
      if (f.next >= groups.size()) {
        stack.pop_back();
        continue;
      }
      const size_t gi = f.next++;
      const SiteGroup& g = groups[gi];
      const uint32_t parent = f.parent, depth = f.depth;
      rows_.push_back(Row{parent, depth, false, g.members.size(), g.retained, true, false, g.site});
      if (shown_groups_.count(Key(parent, g.site)))
        stack.push_back({parent, 0, depth + 1, int64_t(gi)});  // invalidates f
      continue;
    }
    std::span<const uint32_t> kids;
    uint64_t shown = 0;
    uint32_t site = kUnknownSite;
    const bool in_group = f.group >= 0;
    if (in_group) {
      const SiteGroup& g = GroupsOf(f.parent)[size_t(f.group)];
      kids = g.members;
      site = g.site;
      shown = shown_groups_[Key(f.parent, site)];
    } else {
      kids = a_->children.Children(f.parent);
      shown = shown_[f.parent];
    }
    const uint64_t limit = std::min<uint64_t>(kids.size(), shown);
    if (f.next >= limit) {
      if (limit < kids.size()) {
        Row more{f.parent, f.depth, true, kids.size() - limit, 0, false, in_group, site};
        for (uint64_t i = limit; i < kids.size(); ++i) more.hidden_bytes += dom.retained(kids[i]);
        rows_.push_back(more);
      }
      stack.pop_back();
      continue;
    }
    const uint32_t v = kids[f.next++];
    const uint32_t depth = f.depth;
    rows_.push_back(Row{v, depth, false, 0, 0, false, in_group, site});
    if (shown_.count(v)) stack.push_back({v, 0, depth + 1});  // invalidates f
  }
}

void DominatorBrowser::EnsureShown(uint32_t parent, uint32_t child) {
  if (by_site_) {  // open the child's site group of the parent far enough to show it
    if (shown_[parent] == 0) shown_[parent] = kPage;
    for (const SiteGroup& g : GroupsOf(parent)) {
      const auto pos = std::find(g.members.begin(), g.members.end(), child) - g.members.begin();
      if (size_t(pos) == g.members.size()) continue;
      uint64_t& shown = shown_groups_[Key(parent, g.site)];
      if (shown == 0) shown = kPage;
      while (shown <= uint64_t(pos)) shown += kPage;
      return;
    }
    return;
  }
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
    if (!rows[i].more && !rows[i].group && rows[i].node == node) return int64_t(i);
  return -1;
}

}  // namespace xrpm::app
