#include "xrpm/model/snapshot.h"

#include <cstdio>
#include <numeric>

#include "xrpm/model/type_name.h"

namespace xrpm {

std::string_view RootKindName(RootKind k) {
  switch (k) {
    case RootKind::kInternal:
      return "internal";
    case RootKind::kLocal:
      return "local";
    case RootKind::kFinalizer:
      return "finalizer";
    case RootKind::kHandle:
      return "handle";
    case RootKind::kStatic:
      return "static";
    case RootKind::kGcSpecific:
      return "gc-specific";
  }
  return "unknown";
}

std::string RootFlagsName(uint8_t flags) {
  if (flags == 0) return "normal";
  std::string s;
  auto add = [&](const char* n) {
    if (!s.empty()) s += '|';
    s += n;
  };
  if (flags & kRootPinned) add("pinned");
  if (flags & kRootWeak) add("weak");
  if (flags & kRootInterior) add("interior");
  if (flags & kRootConservative) add("conservative");
  if (uint8_t other = flags & ~kRootKnownFlags) {
    char buf[8];
    std::snprintf(buf, sizeof buf, "0x%x", other);
    add(buf);
  }
  return s;
}

void TypeInfo::SetName(std::string written) {
  name = CanonicalTypeName(written);
  if (name == written)
    source_name.clear();
  else
    source_name = std::move(written);
}

bool TypeInfo::Named(std::string_view n) const {
  return n == name || n == written_name() || CanonicalTypeName(n) == name;
}

uint32_t Snapshot::AddSection(AppDomainSection s) {
  s.types_begin = s.types_end = static_cast<uint32_t>(types.size());
  s.objects_begin = s.objects_end = object_id.size();
  s.roots_begin = s.roots_end = root_object.size();
  sections.push_back(std::move(s));
  return static_cast<uint32_t>(sections.size() - 1);
}

uint32_t Snapshot::AddType(TypeId id, std::string name, uint32_t section, bool placeholder) {
  TypeInfo t;
  t.id = id;
  t.SetName(std::move(name));
  t.section = section;
  t.placeholder = placeholder;
  types.push_back(std::move(t));
  return static_cast<uint32_t>(types.size() - 1);
}

void Snapshot::AddObject(ObjectId id, uint32_t type_index, uint32_t size,
                         std::span<const ObjectId> r) {
  object_id.push_back(id);
  object_type.push_back(type_index);
  object_size.push_back(size);
  refs.append(r.data(), r.data() + r.size());
  ref_end.push_back(refs.size());
}

void Snapshot::AddRoot(ObjectId object, RootKind kind, uint8_t flags, TypeId container,
                       uint32_t origin) {
  root_object.push_back(object);
  root_kind.push_back(static_cast<uint8_t>(kind));
  root_flags.push_back(flags);
  root_container.push_back(container);
  root_origin.push_back(origin);
}

void Snapshot::CloseSectionRanges() {
  if (sections.empty()) return;
  auto& s = sections.back();
  s.types_end = static_cast<uint32_t>(types.size());
  s.objects_end = object_id.size();
  s.roots_end = root_object.size();
}

uint64_t Snapshot::total_bytes() const {
  return std::accumulate(object_size.begin(), object_size.end(), uint64_t{0});
}

bool Snapshot::has_type_traits() const {
  for (const TypeInfo& t : types)
    if (t.traits.known()) return true;
  return false;
}

bool Snapshot::sampled() const {
  for (const TypeInfo& t : types)
    if (t.sample_multiplier != 1.0f) return true;
  return false;
}

double Snapshot::scaled_object_count() const {
  if (!sampled()) return static_cast<double>(object_count());
  double n = 0;
  for (size_t i = 0; i < object_count(); ++i) n += types[object_type[i]].sample_multiplier;
  return n;
}

double Snapshot::scaled_total_bytes() const {
  if (!sampled()) return static_cast<double>(total_bytes());
  double b = 0;
  for (size_t i = 0; i < object_count(); ++i)
    b += static_cast<double>(object_size[i]) * types[object_type[i]].sample_multiplier;
  return b;
}

size_t Snapshot::MemoryBytes() const {
  size_t b = object_id.bytes_reserved() + object_type.bytes_reserved() +
             object_size.bytes_reserved() + ref_end.bytes_reserved() + refs.bytes_reserved() +
             root_object.bytes_reserved() + root_kind.bytes_reserved() +
             root_flags.bytes_reserved() + root_container.bytes_reserved() +
             root_origin.bytes_reserved() + object_alloc_frame.bytes_reserved() +
             object_alloc_site.bytes_reserved();
  for (const auto& t : types)
    b += sizeof(TypeInfo) + t.name.capacity() + t.source_name.capacity() + t.module.capacity();
  for (const auto& o : root_origins) b += sizeof(std::string) + o.capacity();
  b += fields.MemoryBytes();
  b += sections.size() * sizeof(AppDomainSection);
  if (origins) {
    for (const auto& m : origins->methods) b += sizeof(std::string) + m.capacity();
    for (const auto& site : origins->sites)
      b += sizeof(AllocationSite) + site.methods.capacity() * sizeof(uint32_t);
  }
  return b;
}

void Snapshot::ShrinkToFit() {
  object_id.shrink_to_fit();
  object_type.shrink_to_fit();
  object_size.shrink_to_fit();
  ref_end.shrink_to_fit();
  refs.shrink_to_fit();
  root_object.shrink_to_fit();
  root_kind.shrink_to_fit();
  root_flags.shrink_to_fit();
  root_container.shrink_to_fit();
  root_origin.shrink_to_fit();
  object_alloc_frame.shrink_to_fit();
  object_alloc_site.shrink_to_fit();
  types.shrink_to_fit();
  fields.ShrinkToFit();
}

bool operator==(const Snapshot& a, const Snapshot& b) {
  return a.sections == b.sections && a.types == b.types && a.object_id == b.object_id &&
         a.object_type == b.object_type && a.object_size == b.object_size &&
         a.ref_end == b.ref_end && a.refs == b.refs && a.root_object == b.root_object &&
         a.root_kind == b.root_kind && a.root_flags == b.root_flags &&
         a.root_container == b.root_container && a.root_origin == b.root_origin &&
         a.root_origins == b.root_origins && a.capture == b.capture && a.origins == b.origins &&
         a.object_alloc_frame == b.object_alloc_frame &&
         a.object_alloc_site == b.object_alloc_site && a.fields == b.fields;
}

}  // namespace xrpm
