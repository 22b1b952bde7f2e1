#include "xrpm/emulator/snapshot_builder_sink.h"

#include <cstdio>

#include "xrpm/client/wire_type_traits.h"

namespace xrpm::emulator {
namespace {
using agent::ContainerType;
using agent::WalkResult;

std::string HexId(const char* prefix, uint64_t v) {
  char b[48];
  std::snprintf(b, sizeof b, "%s0x%llx", prefix, static_cast<unsigned long long>(v));
  return b;
}
}  // namespace

SnapshotBuilderSink::SnapshotBuilderSink(Snapshot& out, SectionInfo info,
                                         const ContainerNamer* namer)
    : out_(out), info_(std::move(info)), namer_(namer) {}

uint32_t SnapshotBuilderSink::Origin(const std::string& text) {
  auto [it, added] = origin_index_.emplace(text, static_cast<uint32_t>(out_.root_origins.size()));
  if (added) out_.root_origins.push_back(text);
  return it->second;
}

std::string SnapshotBuilderSink::ContainerOrigin(ContainerType type, uint64_t id1, uint64_t id2) {
  switch (type) {
    case ContainerType::kInternalVm:
      return "runtime internal (AppDomain, assemblies, threads, exceptions)";
    case ContainerType::kRootTable:
      return "GC root table (interned strings, class descriptions)";
    case ContainerType::kStrongPtr:
      return "GC handle table";
    case ContainerType::kFinalized:
      return "finalizer queue";
    case ContainerType::kClass: {
      auto it = type_index_.find(static_cast<uint32_t>(id1));
      if (it != type_index_.end()) return "static " + out_.types[it->second].name;
      return HexId("static class ", id1);
    }
    default:
      break;
  }
  // A method frame: "<thread> / <method>".
  std::string method;
  if (id2 != 0 && namer_) method = namer_->MethodName(id2);
  if (method.empty()) {
    if (id2 != 0 && type != ContainerType::kNativeGcFrame && type != ContainerType::kInternalFrame)
      method = HexId("method ", id2);
    else
      method = type == ContainerType::kNativeGcFrame ? "native GC frame" : "runtime frame";
  }
  if (type == ContainerType::kNativeFrame) method += " (native)";
  return (thread_origin_.empty() ? std::string("thread ?") : thread_origin_) + " / " + method;
}

WalkResult SnapshotBuilderSink::BeginContainer(ContainerType type, uint64_t id1, uint64_t id2) {
  roots_allowed_ = false;
  switch (type) {
    case ContainerType::kBegin: {
      AppDomainSection s;
      s.version = info_.version;
      s.name = info_.app_name;
      if (info_.clock) s.start_ms = info_.clock();
      s.closed = false;
      section_ = out_.AddSection(std::move(s));
      began_ = true;
      return WalkResult::kOk;
    }
    case ContainerType::kEnd:
      if (began_) {
        AppDomainSection& s = out_.sections[section_];
        if (info_.clock) s.end_ms = info_.clock();
        s.closed = true;
        out_.CloseSectionRanges();
      }
      ended_ = true;
      return WalkResult::kOk;
    case ContainerType::kThread: {
      std::string name = namer_ ? namer_->ThreadName(id1) : std::string();
      thread_origin_ = "thread " + std::to_string(id1) + (name.empty() ? "" : " (" + name + ")");
      return WalkResult::kOk;
    }
    case ContainerType::kHeap:
      return WalkResult::kOk;
    default:
      break;
  }
  int descriptor = agent::RootDescriptorFor(type);
  if (descriptor < 0) return WalkResult::kOk;
  kind_ = static_cast<RootKind>(descriptor);
  container_class_ = type == ContainerType::kClass ? static_cast<uint32_t>(id1) : 0;
  origin_ = Origin(ContainerOrigin(type, id1, id2));
  roots_allowed_ = true;
  return WalkResult::kOk;
}

WalkResult SnapshotBuilderSink::DescribeType(uint32_t type_id, const char* name, size_t name_len) {
  if (type_index_.count(type_id)) return WalkResult::kOk;
  type_index_.emplace(type_id, out_.AddType(type_id, std::string(name, name_len), section_));
  return WalkResult::kOk;
}

WalkResult SnapshotBuilderSink::DescribeTypeWithTraits(uint32_t type_id, uint32_t domain,
                                                       const char* name, size_t name_len,
                                                       const agent::TypeTraits& traits) {
  (void)domain;  // one section: the runtime's
  if (type_index_.count(type_id)) return WalkResult::kOk;
  const uint32_t idx = out_.AddType(type_id, std::string(name, name_len), section_);
  out_.types[idx].has_finalizer = traits.has_finalizer;
  out_.types[idx].traits = client::ModelTypeTraits(
      traits.kind, traits.enum_underlying, traits.array_rank,
      traits.element_type_name
          ? std::string_view(traits.element_type_name, traits.element_type_name_len)
          : std::string_view());
  type_index_.emplace(type_id, idx);
  return WalkResult::kOk;
}

uint32_t SnapshotBuilderSink::TypeIndexOf(uint32_t type_id) {
  auto it = type_index_.find(type_id);
  if (it != type_index_.end()) return it->second;
  uint32_t idx = out_.AddType(type_id, HexId("<unknown type ", type_id) + ">", section_, true);
  type_index_.emplace(type_id, idx);
  return idx;
}

WalkResult SnapshotBuilderSink::RootReferences(const agent::RootRef* roots, size_t count) {
  if (!roots_allowed_) return WalkResult::kOk;  // roots outside a root container are ignored
  for (size_t i = 0; i < count; ++i)
    out_.AddRoot(roots[i].object, kind_, roots[i].flags, container_class_, origin_);
  return WalkResult::kOk;
}

WalkResult SnapshotBuilderSink::ObjectReferences(uint64_t object, uint32_t type_id, uint32_t size,
                                                 const uint64_t* refs, size_t ref_count) {
  out_.AddObject(object, TypeIndexOf(type_id), size, {refs, ref_count});
  if (out_.origins) {
    const bool known = has_pending_origin_ && pending_object_ == object;
    out_.AddObjectOrigin(known ? pending_frame_ : 0, known ? pending_site_ : kUnknownSite);
  }
  has_pending_origin_ = false;
  return WalkResult::kOk;
}

WalkResult SnapshotBuilderSink::AllocationClock(uint64_t frame, uint32_t sample_bytes) {
  if (out_.origins) return WalkResult::kOk;  // once per walk
  out_.origins.emplace();
  out_.origins->capture_frame = frame;
  out_.origins->sample_bytes = sample_bytes;
  // Objects reported before the clock (not in a well-formed walk) have unknown origins.
  while (out_.object_alloc_site.size() < out_.object_count()) out_.AddObjectOrigin(0, kUnknownSite);
  return WalkResult::kOk;
}

WalkResult SnapshotBuilderSink::DescribeSite(uint32_t site_id, const char* const* method_names,
                                             const size_t* name_lens, uint32_t depth) {
  if (!out_.origins || site_index_.count(site_id)) return WalkResult::kOk;
  AllocationSite site;
  site.methods.reserve(depth);
  for (uint32_t k = 0; k < depth; ++k) {
    std::string name(method_names[k], name_lens[k]);
    auto [it, added] =
        method_index_.emplace(name, static_cast<uint32_t>(out_.origins->methods.size()));
    if (added) out_.origins->methods.push_back(std::move(name));
    site.methods.push_back(it->second);
  }
  site_index_.emplace(site_id, static_cast<uint32_t>(out_.origins->sites.size()));
  out_.origins->sites.push_back(std::move(site));
  return WalkResult::kOk;
}

WalkResult SnapshotBuilderSink::ObjectOrigin(uint64_t object, uint64_t alloc_frame,
                                             uint32_t site_id) {
  auto it = site_index_.find(site_id);
  has_pending_origin_ = out_.origins && it != site_index_.end();
  if (!has_pending_origin_) return WalkResult::kOk;
  constexpr uint64_t kMaxFrame = 0xFFFFFFFEull;  // Snapshot::object_alloc_frame saturates here
  pending_object_ = object;
  pending_frame_ = static_cast<uint32_t>(alloc_frame < kMaxFrame ? alloc_frame : kMaxFrame);
  pending_site_ = it->second;
  return WalkResult::kOk;
}

}  // namespace xrpm::emulator
