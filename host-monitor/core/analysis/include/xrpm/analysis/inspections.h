// Automatic inspections: the problems a game developer would otherwise hunt by hand,
// each a list of findings sorted by impact (bytes, then count).
//
// They need the graph index only, not the dominator tree: liveness is one BFS from the strong
// roots (RootPathForest, O(N + E)), and the retained bytes an inspection reports are computed
// for its findings only, as "what only these objects keep alive": one BFS from the roots that
// does not pass through them, then one claim BFS from each finding's objects over what that
// BFS left out (O(N + E) per inspection in all, whatever the number of findings; an object kept
// alive by several findings goes to the first in type order).
//
//  - duplicate-strings: live strings grouped by text (sort of the string nodes by text,
//    O(S log S) for S strings); bytes = wasted (all copies but one). Needs values.
//  - event-handler-leaks: delegates are objects whose type has a `_target` / `m_target` field.
//    Reachability from the strong roots is computed without the delegate -> target edges;
//    targets that it misses are held only through delegates; each is attributed (claim BFS) to
//    the first delegate reaching it and grouped by the field holding the delegate chain (the
//    first holder up the BFS tree that is neither a delegate nor a delegate's invocation array,
//    or the root's label) and the target's type. bytes = retained (what would be freed).
//    Needs layouts.
//  - disposed-but-held: live objects whose Boolean field named in
//    InspectOptions::disposed_fields is true, by type; bytes = retained. Needs values. O(N + E).
//  - sparse-collections: List`1, Dictionary`2, HashSet`1, Queue`1, Stack`1 (count and backing
//    array read from their fields) and arrays of references (count = non-null elements) with
//    capacity >= min_capacity and count <= sparse_ratio x capacity, by type; bytes = wasted
//    (the unused share of the backing array's bytes). Arrays of references: one-dimensional,
//    of an element that is not a value type (the traits' element type and kind when the
//    snapshot has them, else the name). Needs values. O(N).
//  - boxed-values: live objects of value types, by type; bytes = shallow. Value types are the
//    runtime's word when the snapshot carries type traits (TypeInfo::traits: value types and
//    enums). Without traits (other formats, old captures) they are guessed, and the
//    inspection's note says so: from the layouts (enums the capture names, types a
//    non-reference field stores inline, boxes by their one `m_value` / `value__` field), plus
//    the BCL primitives and XNA math structs by name; a struct no field declares is missed.
//    O(N + fields).
//  - finalizable: objects named by finalizer roots (registered for or waiting on finalization)
//    and live objects of types with a finalizer (TypeInfo::has_finalizer, when the capture
//    says), by type; bytes = shallow. O(roots + N).
// Each finding carries the merged path to root of its objects (PathMerger, O(N + E) in all).
// They walk references with GraphIndex::ForEachOut, so a lean index (no copy of the
// references, what `xrpm inspect` builds: the id resolver, 2-8 B/object) serves as well as a
// full one. Memory beyond the graph index: the forest's parents (4 B/object), the path
// merger's memo (4 B/object), 1 bit/object per reachability pass and per mark set, 8 B per
// live delegate, plus the string node list and the findings.
//
// Thread-safety: pure functions over an immutable index.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "xrpm/analysis/graph_index.h"
#include "xrpm/analysis/paths.h"
#include "xrpm/model/progress.h"

namespace xrpm::analysis {

inline constexpr std::string_view kInspectionNames[] = {"duplicate-strings", "event-handler-leaks",
                                                        "disposed-but-held", "sparse-collections",
                                                        "boxed-values",      "finalizable"};

struct InspectOptions {
  uint32_t min_capacity = 16;  // sparse-collections
  double sparse_ratio = 0.25;  // sparse-collections: count <= ratio x capacity
  uint32_t min_copies = 2;     // duplicate-strings
  // disposed-but-held: Boolean fields that mean "disposed" (extendable: --disposed-field).
  std::vector<std::string> disposed_fields = {"disposed",
                                              "_disposed",
                                              "isDisposed",
                                              "m_disposed",
                                              "IsDisposed",
                                              "_isDisposed",
                                              "<IsDisposed>k__BackingField"};
  std::vector<std::string> only;  // inspection names; empty: all
  size_t max_findings = 100;      // per inspection
  size_t max_objects = 100;       // object ids per finding
};

struct Finding {
  std::string what;  // string text, "Type.field -> TargetType", or a type name
  uint64_t count = 0;
  uint64_t bytes = 0;
  std::string path;               // merged path to root of the largest group, with fields
  std::vector<uint32_t> objects;  // up to max_objects nodes
};

struct Inspection {
  std::string name;
  std::optional<std::string> skipped;  // why it did not run
  // How it decided, when that limits it: boxed-values and sparse-collections on a snapshot
  // without type traits (value types guessed from names); "" otherwise.
  std::string note;
  std::string bytes_meaning;                  // "wasted", "retained", "shallow"
  std::vector<Finding> findings;              // by bytes, then count, descending
  uint64_t total_count = 0, total_bytes = 0;  // over all findings (also those cut)
};

// The inspections' root-path forest and path merger, handed on for other passes over the same
// index (the leak suspects' merged paths: SuspectInputs::merger) when that forest is
// RootPathForest::Build's, i.e. no live delegate had a target, so no edge was deferred; both
// stay null otherwise.
struct InspectionPaths {
  std::unique_ptr<RootPathForest> forest;
  std::unique_ptr<PathMerger> merger;  // over *forest, its memo as the inspections left it
};

// Throws std::invalid_argument for an unknown name in opts.only, Cancelled on cancel.
// `paths`, when given, receives the forest and merger as InspectionPaths says.
std::vector<Inspection> RunInspections(const GraphIndex& g, const InspectOptions& opts = {},
                                       const Progress& progress = {},
                                       InspectionPaths* paths = nullptr);

// What is new or grew in `after` compared with `before`, matched by inspection and `what`:
// findings of `after` with a larger count or bytes (count and bytes become the growth).
std::vector<Inspection> DiffInspections(const std::vector<Inspection>& before,
                                        const std::vector<Inspection>& after);

}  // namespace xrpm::analysis
