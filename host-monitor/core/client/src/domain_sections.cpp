// SplitIntoDomainSections: see domain_sections.h.
#include "xrpm/client/domain_sections.h"

#include <unordered_map>

#include "xrpm/model/id_hash.h"

namespace xrpm::client {
namespace {

struct SeededIdHash {
  size_t operator()(uint64_t id) const { return static_cast<size_t>(SeededHash(id)); }
};

}  // namespace

void SplitIntoDomainSections(Snapshot* snap, const std::vector<std::string>& names,
                             const std::vector<uint32_t>& type_domain) {
  if (names.empty() || snap->sections.empty()) return;
  Snapshot& s = *snap;
  const AppDomainSection capture = s.sections.front();

  // Domain -> section: domain 0 keeps the capture's section only if a type belongs to it.
  bool domain0 = false;
  for (uint32_t d : type_domain) domain0 = domain0 || d == 0;
  const uint32_t first_named = domain0 ? 1 : 0;
  const size_t nsections = names.size() + first_named;
  auto section_of_domain = [&](uint32_t d) { return d == 0 ? 0u : d - 1 + first_named; };
  std::vector<uint32_t> type_section(s.types.size());
  for (size_t t = 0; t < s.types.size(); ++t)
    type_section[t] = section_of_domain(t < type_domain.size() ? type_domain[t] : 0);

  // Types: counting sort by section (stable).
  std::vector<uint32_t> type_begin(nsections + 1, 0), new_index(s.types.size());
  for (uint32_t sec : type_section) ++type_begin[sec + 1];
  for (size_t sec = 0; sec < nsections; ++sec) type_begin[sec + 1] += type_begin[sec];
  std::vector<TypeInfo> types(s.types.size());
  {
    std::vector<uint32_t> next(type_begin.begin(), type_begin.end() - 1);
    for (size_t t = 0; t < s.types.size(); ++t) {
      const uint32_t k = next[type_section[t]]++;
      new_index[t] = k;
      types[k] = std::move(s.types[t]);
      types[k].section = type_section[t];
    }
  }

  // Objects: counting sort by their type's section (stable).
  const size_t n = s.object_count();
  std::vector<uint64_t> obj_begin(nsections + 1, 0);
  for (size_t i = 0; i < n; ++i) ++obj_begin[type_section[s.object_type[i]] + 1];
  for (size_t sec = 0; sec < nsections; ++sec) obj_begin[sec + 1] += obj_begin[sec];
  std::vector<uint64_t> ref_count_before(nsections + 1, 0);
  for (size_t i = 0; i < n; ++i)
    ref_count_before[type_section[s.object_type[i]] + 1] += s.ref_end[i] - s.ref_begin(i);
  for (size_t sec = 0; sec < nsections; ++sec) ref_count_before[sec + 1] += ref_count_before[sec];

  const bool origins = s.object_alloc_site.size() == n && n != 0;
  // Object contents (heap_fields.h) move with their types, references, objects and roots.
  HeapFields& f = s.fields;
  const bool slots = f.ref_slot.size() == s.refs.size() && !s.refs.empty();
  const bool values = f.values.size() == n && n != 0;
  const bool labels = f.root_label.size() == s.root_count() && s.root_count() != 0;
  PodVector<uint32_t> slot(slots ? s.refs.size() : 0);
  std::vector<uint64_t> value_at(values ? n : 0);  // new index -> old object index
  PodVector<ObjectId> id(n), refs(s.refs.size());
  PodVector<uint32_t> type(n), size(n), frame(origins ? n : 0), site(origins ? n : 0);
  PodVector<uint64_t> ref_end(n);
  std::vector<uint64_t> next_obj(obj_begin.begin(), obj_begin.end() - 1);
  std::vector<uint64_t> next_ref(ref_count_before.begin(), ref_count_before.end() - 1);
  // Ref ends are cumulative over the new order, so refs are placed at each section's cursor.
  for (size_t i = 0; i < n; ++i) {
    const uint32_t sec = type_section[s.object_type[i]];
    const uint64_t k = next_obj[sec]++;
    id[k] = s.object_id[i];
    type[k] = new_index[s.object_type[i]];
    size[k] = s.object_size[i];
    const uint64_t rb = s.ref_begin(i), re = s.ref_end[i];
    for (uint64_t r = rb; r < re; ++r) {
      if (slots) slot[next_ref[sec]] = f.ref_slot[r];
      refs[next_ref[sec]++] = s.refs[r];
    }
    ref_end[k] = next_ref[sec];
    if (values) value_at[k] = i;
    if (origins) {
      frame[k] = s.object_alloc_frame[i];
      site[k] = s.object_alloc_site[i];
    }
  }

  // Roots: the section of their object.
  std::unordered_map<ObjectId, uint32_t, SeededIdHash> rooted;
  rooted.reserve(s.root_count());
  for (size_t r = 0; r < s.root_count(); ++r) rooted.emplace(s.root_object[r], 0);
  for (size_t i = 0; i < n; ++i) {
    auto it = rooted.find(s.object_id[i]);
    if (it != rooted.end()) it->second = type_section[s.object_type[i]];
  }
  const size_t nr = s.root_count();
  std::vector<uint32_t> root_section(nr);
  std::vector<uint64_t> root_begin(nsections + 1, 0);
  for (size_t r = 0; r < nr; ++r) {
    root_section[r] = rooted.find(s.root_object[r])->second;
    ++root_begin[root_section[r] + 1];
  }
  for (size_t sec = 0; sec < nsections; ++sec) root_begin[sec + 1] += root_begin[sec];
  PodVector<ObjectId> robj(nr);
  PodVector<uint8_t> rkind(nr), rflags(nr);
  PodVector<TypeId> rcont(nr);
  PodVector<uint32_t> rorigin(nr), rlabel(labels ? nr : 0);
  std::vector<uint64_t> next_root(root_begin.begin(), root_begin.end() - 1);
  for (size_t r = 0; r < nr; ++r) {
    const uint64_t k = next_root[root_section[r]]++;
    robj[k] = s.root_object[r];
    rkind[k] = s.root_kind[r];
    rflags[k] = s.root_flags[r];
    rcont[k] = s.root_container[r];
    rorigin[k] = s.root_origin[r];
    if (labels) rlabel[k] = f.root_label[r];
  }

  if (f.layouts.size() == s.types.size()) {
    std::vector<TypeLayout> layouts(f.layouts.size());
    for (size_t t = 0; t < f.layouts.size(); ++t) layouts[new_index[t]] = std::move(f.layouts[t]);
    f.layouts = std::move(layouts);
  }
  if (slots) f.ref_slot = std::move(slot);
  if (labels) f.root_label = std::move(rlabel);
  if (values) {
    ValueRanges moved;
    moved.data.reserve(f.values.data.size());
    for (size_t k = 0; k < n; ++k) moved.Append(f.values[value_at[k]]);
    f.values = std::move(moved);
  }
  s.types = std::move(types);
  s.object_id = std::move(id);
  s.object_type = std::move(type);
  s.object_size = std::move(size);
  s.ref_end = std::move(ref_end);
  s.refs = std::move(refs);
  if (origins) {
    s.object_alloc_frame = std::move(frame);
    s.object_alloc_site = std::move(site);
  }
  s.root_object = std::move(robj);
  s.root_kind = std::move(rkind);
  s.root_flags = std::move(rflags);
  s.root_container = std::move(rcont);
  s.root_origin = std::move(rorigin);

  s.sections.clear();
  for (uint32_t sec = 0; sec < nsections; ++sec) {
    AppDomainSection a = capture;
    a.end_name.clear();
    if (sec >= first_named) a.name = names[sec - first_named];
    a.types_begin = type_begin[sec];
    a.types_end = type_begin[sec + 1];
    a.objects_begin = obj_begin[sec];
    a.objects_end = obj_begin[sec + 1];
    a.roots_begin = root_begin[sec];
    a.roots_end = root_begin[sec + 1];
    s.sections.push_back(std::move(a));
  }
}

}  // namespace xrpm::client
