// OriginInterner: the per-capture tables behind the allocation-origin columns of a capture
// (heap_walker.h DescribeSite / ObjectOrigin -> wire.proto HeapBatch origin fields). It checks
// what the runtime describes and gives methods and sites their wire ids: 1, 2, 3, ... in the
// order they are first defined (methods in first appearance while sites are defined, innermost
// first), which is the order the host numbers them in.
//
// Bounds (constants.h): at most kMaxCaptureSites sites and kMaxCaptureOriginMethods methods,
// names cut at kMaxMethodNameBytes and kMaxCaptureMethodNameBytes of names in all; past that a
// site is refused and its objects travel with an unknown origin. Memory: the names plus ~80 B
// per method and ~40 B per site (hash-map nodes), at most ~3.6 MiB, typically a few KiB;
// FootprintBytes() reports it so the agent charges it to the capture's memory account.
// Intern is O(depth + name bytes); WireSite O(1): a direct-mapped cache of recent lookups
// (8 KiB, a site per object of the walk: one array read instead of a hash lookup) in front of
// the table; sites are never removed during a capture, so a cached entry stays true.
//
// Thread-safety: none; the walk thread owns it.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

namespace xrpm {
namespace agent {

class OriginInterner {
 public:
  // The wire id of runtime site `site`, or 0 when it was never (validly) described.
  uint32_t WireSite(uint32_t site) const;

  // Checks and interns one DescribeSite. On success returns the site's wire id, with the
  // names of the methods new to this capture in *new_methods (to be sent before the site, in
  // this order) and the site's wire method ids, innermost first, in *method_ids. On a refusal
  // returns 0, leaves the tables unchanged and sets *why.
  uint32_t Intern(uint32_t site, const char* const* names, const size_t* lens, uint32_t depth,
                  std::vector<std::string>* new_methods, std::vector<uint32_t>* method_ids,
                  const char** why);

  size_t sites() const { return site_ids_.size(); }
  size_t methods() const { return method_ids_.size(); }
  size_t FootprintBytes() const;

 private:
  static constexpr size_t kRecent = 1024;
  // site % kRecent -> {runtime site id, wire id}; wire id 0: empty.
  mutable std::array<std::pair<uint32_t, uint32_t>, kRecent> recent_{};
  std::unordered_map<uint32_t, uint32_t> site_ids_;       // runtime site id -> wire id
  std::unordered_map<std::string, uint32_t> method_ids_;  // name -> wire id
  size_t name_bytes_ = 0;
  std::vector<std::string> names_;  // scratch of Intern (reused)
};

}  // namespace agent
}  // namespace xrpm
