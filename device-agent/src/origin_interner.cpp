#include "origin_interner.h"

#include <algorithm>

#include "utf8.h"
#include "xrpm/agent/frame_events.h"
#include "xrpm/protocol/constants.h"

namespace xrpm {
namespace agent {

static_assert(kMaxSampleStackDepth == protocol::kMaxStackDepth, "one stack depth limit");

uint32_t OriginInterner::WireSite(uint32_t site) const {
  std::pair<uint32_t, uint32_t>& c = recent_[site % kRecent];
  if (c.second != 0 && c.first == site) return c.second;
  auto it = site_ids_.find(site);
  if (it == site_ids_.end()) return 0;  // not cached: a miss is a dropped origin, rare
  c = {site, it->second};
  return it->second;
}

size_t OriginInterner::FootprintBytes() const {
  // Hash-map nodes (key, value, next pointer, cached hash, allocator overhead) and buckets.
  return sizeof(recent_) + name_bytes_ + method_ids_.size() * 80 +
         method_ids_.bucket_count() * sizeof(void*) + site_ids_.size() * 40 +
         site_ids_.bucket_count() * sizeof(void*);
}

uint32_t OriginInterner::Intern(uint32_t site, const char* const* names, const size_t* lens,
                                uint32_t depth, std::vector<std::string>* new_methods,
                                std::vector<uint32_t>* method_ids, const char** why) {
  new_methods->clear();
  method_ids->clear();
  if (site == 0) return *why = "site id 0", 0;
  if (depth > kMaxSampleStackDepth) return *why = "stack deeper than kMaxSampleStackDepth", 0;
  if (depth != 0 && (names == nullptr || lens == nullptr)) return *why = "no method names", 0;
  if (site_ids_.count(site)) return *why = "site described twice", 0;
  if (site_ids_.size() >= protocol::kMaxCaptureSites) return *why = "site table full", 0;

  // Phase 1: the names as they will be sent, and which are new (also within this site).
  names_.resize(depth);
  size_t new_bytes = 0;
  uint32_t next_id = static_cast<uint32_t>(method_ids_.size()) + 1;
  for (uint32_t i = 0; i < depth; ++i) {
    // SanitizeUtf8 reads a C string: copy a bounded prefix (a cut character becomes '?').
    const size_t len = names[i] ? std::min<size_t>(lens[i], protocol::kMaxMethodNameBytes + 3) : 0;
    const std::string raw = names[i] ? std::string(names[i], len) : std::string();
    names_[i] = SanitizeUtf8(raw.c_str(), protocol::kMaxMethodNameBytes);
    auto it = method_ids_.find(names_[i]);
    if (it != method_ids_.end()) {
      method_ids->push_back(it->second);
      continue;
    }
    auto dup = std::find(new_methods->begin(), new_methods->end(), names_[i]);
    if (dup != new_methods->end()) {
      method_ids->push_back(next_id - static_cast<uint32_t>(new_methods->end() - dup));
      continue;
    }
    new_methods->push_back(names_[i]);
    new_bytes += names_[i].size();
    method_ids->push_back(next_id++);
  }
  if (method_ids_.size() + new_methods->size() > protocol::kMaxCaptureOriginMethods ||
      name_bytes_ + new_bytes > protocol::kMaxCaptureMethodNameBytes) {
    new_methods->clear();
    method_ids->clear();
    return *why = "method table full", 0;
  }

  // Phase 2: commit.
  uint32_t id = static_cast<uint32_t>(method_ids_.size()) + 1;
  for (const std::string& m : *new_methods) method_ids_.emplace(m, id++);
  name_bytes_ += new_bytes;
  const uint32_t wire = static_cast<uint32_t>(site_ids_.size()) + 1;
  site_ids_.emplace(site, wire);
  return wire;
}

}  // namespace agent
}  // namespace xrpm
