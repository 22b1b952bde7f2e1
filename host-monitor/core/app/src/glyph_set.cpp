#include "xrpm/app/glyph_set.h"

#include <string_view>

#include "xrpm/model/utf16.h"

namespace xrpm::app {
namespace {

class CodePointSet {
 public:
  CodePointSet() : bits_(0x110000 / 64, 0) {}
  void AddText(std::string_view s) {
    for (size_t i = 0; i < s.size();) {
      if (static_cast<unsigned char>(s[i]) < 0x80) {
        ++i;
        continue;
      }
      const char32_t c = NextCodePoint(s, &i);
      bits_[c >> 6] |= uint64_t{1} << (c & 63);
    }
  }
  std::vector<char32_t> Sorted(size_t limit) const {
    std::vector<char32_t> out;
    for (size_t w = 0; w < bits_.size() && out.size() < limit; ++w)
      for (uint64_t b = bits_[w]; b && out.size() < limit; b &= b - 1)
        out.push_back(static_cast<char32_t>(w * 64 + __builtin_ctzll(b)));
    return out;
  }

 private:
  std::vector<uint64_t> bits_;
};

}  // namespace

std::vector<char32_t> NonAsciiCodePoints(const Snapshot& s, size_t limit) {
  CodePointSet set;
  for (const TypeInfo& t : s.types) set.AddText(t.name);
  for (const AppDomainSection& sec : s.sections) set.AddText(sec.name);
  for (const std::string& o : s.root_origins) set.AddText(o);
  const HeapFields& f = s.fields;
  for (const std::string& l : f.root_labels) set.AddText(l);
  for (const TypeLayout& l : f.layouts) {
    for (const FieldLayout& x : l.fields) set.AddText(x.name), set.AddText(x.type_name);
    for (const StaticFieldLayout& x : l.statics) set.AddText(x.name), set.AddText(x.type_name);
  }
  for (const EnumTypeInfo& e : f.enums)
    for (const EnumMember& m : e.members) set.AddText(m.name);
  if (f.has_values() && f.has_layouts()) {
    for (size_t o = 0; o < s.object_count(); ++o) {
      const TypeLayout* l = f.layout_of_type(s.object_type[o]);
      StringValue v;
      if (l && l->shape == TypeShape::kString && DecodeStringValue(f.values_of(o), &v))
        set.AddText(v.text);
    }
  }
  return set.Sorted(limit);
}

}  // namespace xrpm::app
