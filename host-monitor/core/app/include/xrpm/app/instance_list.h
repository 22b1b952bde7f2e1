// InstanceListView: the data behind the Instances view, GUI-free.
//
// It lists the instances of one type of one document (every type of that name), narrowed to an
// allocation site and by a field filter ("IsAlive=false"), and sorted by size, retained size,
// outgoing references or a field. With an analysis it also holds the type's rows by allocation
// site, its instance field names and the ones shown as columns. The list is rebuilt only when
// what it shows changes (document, type, analysis, site or filter) and re-sorted only when the
// order asked for changes or the list was rebuilt, so drawing a frame costs O(visible rows).
//
// Algorithms: a rebuild is O(instances x filters) (analysis::ListInstances) plus, with a site,
// O(instances); a sort is O(n log n) (SortInstances, analysis::SortByField). Without a field
// filter and with an analysis that keeps each type's instances by retained size
// (DocAnalysis::by_retained), a rebuild lists them in that order, the view's default (largest
// retained first), and a sort back to it copies it: opening a type costs O(n), no sort.
// The list is 4 bytes per instance in memory advised for huge pages (PodVector): a type of tens
// of millions of instances opens without a page fault per 4 KiB.
//
// Thread-safety: belongs to one view (UI thread); the snapshot and analysis it is given must
// stay alive while it is used with them.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "xrpm/analysis/site_stats.h"
#include "xrpm/app/doc_analysis.h"
#include "xrpm/model/pod_vector.h"
#include "xrpm/model/snapshot.h"

namespace xrpm::app {

// What the list shows.
struct InstanceQuery {
  uint32_t doc = 0;              // the document's id (another document: another list)
  uint32_t type = 0;             // a type index; its instances and those of its namesakes
  std::optional<uint32_t> site;  // only the instances allocated at this site
  std::string filter;            // a field filter "FIELD=VALUE"; "" none
};

enum class InstanceColumn { kSize, kRetained, kRefs, kField };

// The order asked for. kField sorts by the field named `field`; kRetained sorts by size until
// there is an analysis.
struct InstanceSort {
  InstanceColumn column = InstanceColumn::kRetained;
  std::string field;
  bool descending = true;
  bool operator==(const InstanceSort&) const = default;
};

// How many field columns a type shows at first (its first fields in layout order).
inline constexpr size_t kDefaultFieldColumns = 4;

class InstanceListView {
 public:
  // Rebuilds the list when `q` or the analysis `a` (nullptr before the analysis has run)
  // differs from the last call; returns whether it did. A new document, type or analysis also
  // recomputes the site rows and the field names, and when the field names differ the columns
  // go back to the first few fields. A filter that does not parse or names no field of the type
  // leaves every instance listed and sets filter_error().
  bool Update(const Snapshot& snap, const DocAnalysis* a, const InstanceQuery& q);

  // Orders the list (ties keep snapshot order); does nothing when `order` is the current order
  // of the current list. Returns whether it sorted.
  bool Sort(const Snapshot& snap, const DocAnalysis* a, const InstanceSort& order);

  // Shows or hides a field as a column (the view's field chooser); columns keep the order they
  // were chosen in.
  void ShowFieldColumn(const std::string& field, bool shown);

  uint32_t doc() const { return query_.doc; }
  bool built() const { return built_; }
  std::span<const uint32_t> objects() const { return objects_.span(); }  // object indices, in order
  const std::vector<analysis::SiteRow>& sites() const { return sites_; }  // with origins
  const std::vector<std::string>& field_names() const { return field_names_; }
  const std::vector<std::string>& field_columns() const { return field_columns_; }
  const std::string& filter_error() const { return filter_error_; }
  // The longest object id label of the list ("0x7f3a1c2b40"), to size the id column.
  const std::string& widest_id_label() const { return widest_id_label_; }
  uint64_t rebuilds() const { return rebuilds_; }  // for tests
  uint64_t sorts() const { return sorts_; }        // for tests

 private:
  void Rebuild(const Snapshot& snap, const DocAnalysis* a, bool new_type);
  void Assign(std::span<const uint32_t> list) {
    objects_.assign(list.data(), list.data() + list.size());
  }

  bool built_ = false;
  InstanceQuery query_;
  const DocAnalysis* analysis_ = nullptr;
  PodVector<uint32_t> objects_;
  std::vector<analysis::SiteRow> sites_;
  std::vector<std::string> field_names_;
  std::vector<std::string> field_columns_;
  std::string filter_error_;
  std::string widest_id_label_;
  std::optional<InstanceSort> sorted_;  // the order of objects_ (nullopt: as built)
  uint64_t rebuilds_ = 0;
  uint64_t sorts_ = 0;
};

}  // namespace xrpm::app
