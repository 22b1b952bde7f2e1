// Test heaps for the format tests: NETCF-like snapshots built in memory with a seeded generator,
// and a canonical form that compares two snapshots by what a user sees (objects with type names,
// sizes and references; roots as a multiset) rather than by record order or type numbering.
//
// Thread-safety: plain functions over values.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <tuple>
#include <vector>

#include "xrpm/model/snapshot.h"

namespace xrpm::testing {

struct HeapShape {
  uint32_t seed = 1;
  size_t objects = 200;
  size_t types = 12;
  uint64_t base = 0x1ce000;    // first object address
  uint32_t first_type_id = 2;  // NETCF type ids are small integers
  double dangling = 0.0;       // fraction of references that point at no object
  bool all_root_kinds = true;  // roots of every descriptor, flags, statics with containers
  std::string name = "bubbles.exe";
};

// One AppDomain section; types include arrays (`System.Object[]`, `System.Byte[]`) and a name
// with blanks; objects are laid out in address order with random references.
Snapshot MakeHeap(const HeapShape& shape);

struct CanonObject {
  ObjectId id;
  std::string type;
  uint32_t size;
  std::vector<ObjectId> refs;
  friend bool operator==(const CanonObject&, const CanonObject&) = default;
};
struct CanonRoot {
  ObjectId object;
  uint8_t kind, flags;
  std::string container;  // the container type's name for statics, else ""
  friend auto operator<=>(const CanonRoot&, const CanonRoot&) = default;
};
struct Canon {
  std::vector<CanonObject> objects;  // in snapshot order
  std::vector<CanonRoot> roots;      // sorted
  friend bool operator==(const Canon&, const Canon&) = default;
};
Canon Canonical(const Snapshot& s);

// Objects per type name (as the snapshot names them), for per-type counts in capture tests.
std::map<std::string, size_t> CountByType(const Snapshot& s);

// Each static root's label ("Class.Field") and the type of the object it holds; a static root
// whose object the capture lacks is a test failure.
std::map<std::string, std::string> StaticRootTypes(const Snapshot& s);

// A captured snapshot of bubbles.exe at its smallest: one Game.Bubble of 12 bytes at 0x10, held
// by a local root of "thread 1 / Game1.Update", with capture metadata (device app name only);
// tests set the pause figures they look at.
Snapshot OneObjectCapture();

}  // namespace xrpm::testing
