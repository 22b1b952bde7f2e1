#include "xrpm/app/instance_list.h"

#include <algorithm>
#include <optional>
#include <span>
#include <stdexcept>

#include "xrpm/analysis/object_contents.h"
#include "xrpm/app/doc_origins.h"
#include "xrpm/app/type_table.h"
#include "xrpm/model/human_format.h"

namespace xrpm::app {

bool InstanceListView::Update(const Snapshot& snap, const DocAnalysis* a, const InstanceQuery& q) {
  const bool new_type = !built_ || q.doc != query_.doc || q.type != query_.type || a != analysis_;
  if (!new_type && q.site == query_.site && q.filter == query_.filter) return false;
  query_ = q;
  analysis_ = a;
  Rebuild(snap, a, new_type);
  return true;
}

void InstanceListView::Rebuild(const Snapshot& snap, const DocAnalysis* a, bool new_type) {
  built_ = true;
  ++rebuilds_;
  const uint32_t group = a ? a->index().group_of_type(query_.type) : kNoIndex;
  if (new_type) {
    sites_ = a && snap.has_origins() ? analysis::SiteStatsOfGroup(a->index(), group)
                                     : std::vector<analysis::SiteRow>{};
    std::vector<std::string> names =
        a ? analysis::GroupFieldNames(a->index(), group) : std::vector<std::string>{};
    if (names != field_names_) {  // another type: its first few fields as columns
      field_names_ = std::move(names);
      field_columns_.assign(
          field_names_.begin(),
          field_names_.begin() + std::min(field_names_.size(), kDefaultFieldColumns));
    }
  }
  filter_error_.clear();
  sorted_.reset();
  std::span<const uint32_t> every;  // every instance in node order, when that is the list
  if (a) {
    std::optional<analysis::InstanceList> filtered;
    if (!query_.filter.empty()) {
      const auto f = analysis::ParseFieldFilter(query_.filter);
      if (!f) {
        filter_error_ = "expected FIELD=VALUE, found '" + query_.filter + "'";
      } else {
        try {
          filtered = analysis::ListInstances(a->index(), group, std::span(&*f, 1), SIZE_MAX);
        } catch (const std::invalid_argument& e) {
          filter_error_ = e.what();
        }
      }
    }
    if (!filtered) every = a->index().Instances(group);
    if (filtered) {
      Assign(filtered->rows);
    } else if (!a->by_retained.empty()) {
      // The order the view opens with, kept by the analysis: opening a type copies it.
      Assign(a->by_retained.Instances(group));
      sorted_ = InstanceSort{InstanceColumn::kRetained, {}, true};
    } else {
      Assign(every);
    }
  } else {
    Assign(InstancesOfType(snap, query_.type));
  }
  if (query_.site) {
    const std::span<uint32_t> all = objects_.span();
    const auto kept = std::remove_if(
        all.begin(), all.end(), [&](uint32_t o) { return SiteOfObject(snap, o) != *query_.site; });
    objects_.resize(static_cast<size_t>(kept - all.begin()));
    every = {};
  }
  // The widest id of the list. `every` (set only with an analysis) holds the same objects in
  // node order: its last when ids ascend with the index, else read in that order.
  ObjectId widest = 0;
  if (!every.empty() && a->index().ids_ascending())
    widest = snap.object_id[every.back()];
  else
    for (const uint32_t o : every.empty() ? objects_.span() : every)
      widest = std::max(widest, snap.object_id[o]);
  widest_id_label_ = FormatHex(widest);
}

bool InstanceListView::Sort(const Snapshot& snap, const DocAnalysis* a, const InstanceSort& order) {
  if (sorted_ == order) return false;
  sorted_ = order;
  ++sorts_;
  if (order.column == InstanceColumn::kField && a) {
    analysis::SortByField(a->index(), objects_.span(), order.field, order.descending);
    return true;
  }
  if (order.column == InstanceColumn::kRetained && order.descending && a &&
      !a->by_retained.empty()) {
    // Every instance of the type listed: the analysis has them in this order already.
    const uint32_t group = a->index().group_of_type(query_.type);
    if (objects_.size() == a->index().group_size(group)) {
      Assign(a->by_retained.Instances(group));
      return true;
    }
  }
  const InstanceOrder by = order.column == InstanceColumn::kRefs   ? InstanceOrder::kRefs
                           : order.column == InstanceColumn::kSize ? InstanceOrder::kSize
                                                                   : InstanceOrder::kRetained;
  SortInstances(snap, objects_.span(), by, order.descending,
                a ? a->dom().retained_sizes() : std::span<const uint64_t>());
  return true;
}

void InstanceListView::ShowFieldColumn(const std::string& field, bool shown) {
  auto it = std::find(field_columns_.begin(), field_columns_.end(), field);
  if (shown && it == field_columns_.end())
    field_columns_.push_back(field);
  else if (!shown && it != field_columns_.end())
    field_columns_.erase(it);
}

}  // namespace xrpm::app
