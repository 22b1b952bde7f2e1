#include "field_capture.h"

#include <cstdio>
#include <cstring>
#include <sstream>

#include "xrpm/model/human_format.h"
#include "xrpm/protocol/constants.h"
#include "xrpm/protocol/fields.h"

namespace xrpm::testing {
namespace {

using protocol::FieldKind;
using protocol::kNoSlot;

void AppendUtf8(std::string* out, uint32_t cp) {
  if (cp < 0x80) {
    out->push_back(static_cast<char>(cp));
  } else if (cp < 0x800) {
    out->push_back(static_cast<char>(0xC0 | (cp >> 6)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else if (cp < 0x10000) {
    out->push_back(static_cast<char>(0xE0 | (cp >> 12)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else {
    out->push_back(static_cast<char>(0xF0 | (cp >> 18)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  }
}

std::string ValueText(FieldKind k, uint64_t bits) {
  char b[64];
  switch (k) {
    case FieldKind::kBoolean:
      return bits ? "true" : "false";
    case FieldKind::kSingle: {
      float f;
      const auto u = static_cast<uint32_t>(bits);
      std::memcpy(&f, &u, 4);
      std::snprintf(b, sizeof b, "%.9g", static_cast<double>(f));
      return b;
    }
    case FieldKind::kDouble: {
      double d;
      std::memcpy(&d, &bits, 8);
      std::snprintf(b, sizeof b, "%.17g", d);
      return b;
    }
    default:
      if (protocol::IsSignedKind(k)) return std::to_string(static_cast<int64_t>(bits));
      return std::to_string(bits);
  }
}

}  // namespace

const protocol::RawLayout* FieldCapture::Layout(size_t object) const {
  auto it = layouts.find(object_type[object]);
  return it == layouts.end() ? nullptr : &it->second;
}

uint32_t FieldCapture::FieldIndex(size_t object, const std::string& name) const {
  const protocol::RawLayout* l = Layout(object);
  for (size_t i = 0; l && i < l->fields.size(); ++i)
    if (l->fields[i].name == name) return static_cast<uint32_t>(i);
  return kNoSlot;
}

uint64_t FieldCapture::RefAt(size_t object, uint32_t slot) const {
  for (uint64_t r = object_first_ref[object], e = r + object_ref_count[object]; r < e; ++r)
    if (ref_slot[r] == slot) return refs[r];
  return 0;
}

bool FieldCapture::Value(size_t object, const std::string& field, uint64_t* bits) const {
  const protocol::RawLayout* l = Layout(object);
  if (!l || object_value_count.empty() || object_value_count[object] == 0) return false;
  uint64_t w = object_first_value[object];
  const uint32_t ptr = welcome.runtime().pointer_bytes();
  for (const protocol::RawField& f : l->fields) {
    if (!protocol::IsValueKind(f.kind)) continue;
    if (f.name == field) return protocol::WordToValue(f.kind, values[w], ptr, bits);
    ++w;
  }
  return false;
}

std::string FieldCapture::Text(size_t object, uint64_t* length) const {
  std::string out;
  if (object_value_count.empty() || object_value_count[object] == 0) return out;
  const uint64_t* w = values.data() + object_first_value[object];
  const uint32_t n = object_value_count[object];
  if (length) *length = w[0];
  for (uint32_t i = 1; i < n; ++i) {
    const uint32_t u = static_cast<uint32_t>(w[i]);
    if (u >= 0xD800 && u < 0xDC00 && i + 1 < n && w[i + 1] >= 0xDC00 && w[i + 1] < 0xE000) {
      AppendUtf8(&out, 0x10000 + ((u - 0xD800) << 10) + (static_cast<uint32_t>(w[i + 1]) - 0xDC00));
      ++i;
    } else if (u >= 0xD800 && u < 0xE000) {
      AppendUtf8(&out, 0xFFFD);
    } else {
      AppendUtf8(&out, u);
    }
  }
  return out;
}

bool HandshakeFields(RawPeer& peer, wire::Welcome* welcome, std::string* error) {
  wire::Envelope m;
  if (!Handshake(peer, &m)) return *error = "handshake refused", false;
  *welcome = m.welcome();
  return true;
}

bool CaptureFields(RawPeer& peer, const wire::Welcome& welcome, bool values, uint32_t string_cap,
                   FieldCapture* out, std::string* error, uint32_t timeout_ms, bool fields) {
  wire::Envelope m;
  out->welcome = welcome;
  wire::Envelope req;
  req.mutable_capture_request()->set_request_id(1);
  req.mutable_capture_request()->set_fields(fields);
  req.mutable_capture_request()->set_values(fields && values);
  req.mutable_capture_request()->set_string_cap(string_cap);
  if (!peer.Send(req)) return *error = "cannot send the request", false;
  std::unique_ptr<protocol::FieldChecker> checker;
  uint32_t seq = 0;
  for (;;) {
    if (!peer.Receive(&m, timeout_ms)) return *error = "no capture message in time", false;
    if (m.has_error()) return *error = "agent error: " + m.error().message(), false;
    if (m.has_capture_abort())
      return *error = "capture aborted: " + m.capture_abort().reason(), false;
    if (m.has_capture_begin()) {
      out->begin = m.capture_begin();
      out->wire_bytes += m.ByteSizeLong();
      checker = std::make_unique<protocol::FieldChecker>(out->begin.fields(), out->begin.values(),
                                                         out->begin.string_cap(),
                                                         out->welcome.runtime().pointer_bytes());
      continue;
    }
    if (m.has_capture_end()) {
      out->end = m.capture_end();
      return true;
    }
    if (!m.has_heap_batch()) continue;
    if (!checker) return *error = "a batch before the capture's begin", false;
    out->wire_bytes += m.ByteSizeLong();
    protocol::RawBatch b;
    if (!protocol::DecodeHeapBatch(m.heap_batch(), &b, error)) return false;
    if (!checker->Check(b, seq++, error)) return false;
    for (const protocol::RawType& t : b.types) {
      out->type_names[t.id] = t.name;
      out->type_domain[t.id] = t.domain;
    }
    for (const protocol::RawLayout& l : b.layouts) out->layouts[l.type_id] = l;
    for (const protocol::RawEnum& e : b.enums) out->enums[e.id] = e;
    out->containers.insert(out->containers.end(), b.containers.begin(), b.containers.end());
    out->root_object.insert(out->root_object.end(), b.root_object.begin(), b.root_object.end());
    out->root_container.insert(out->root_container.end(), b.root_container.begin(),
                               b.root_container.end());
    if (b.root_slot.empty())
      out->root_slot.resize(out->root_object.size(), kNoSlot);
    else
      out->root_slot.insert(out->root_slot.end(), b.root_slot.begin(), b.root_slot.end());
    for (size_t i = 0; i < b.object_id.size(); ++i) {
      out->index[b.object_id[i]] = out->object_id.size();
      out->object_id.push_back(b.object_id[i]);
      out->object_type.push_back(b.object_type[i]);
      out->object_size.push_back(b.object_size[i]);
      out->object_ref_count.push_back(b.object_ref_count[i]);
      if (!b.object_value_count.empty()) out->object_value_count.push_back(b.object_value_count[i]);
    }
    // This batch's objects' references start after the continued ones, their values in order.
    out->object_first_ref.resize(out->object_id.size());
    out->object_first_value.resize(out->object_id.size());
    uint64_t r = out->refs.size() + b.cont_refs;
    uint64_t v = out->values.size();
    for (size_t i = 0, first = out->object_id.size() - b.object_id.size(); i < b.object_id.size();
         ++i) {
      out->object_first_ref[first + i] = r;
      r += b.object_ref_count[i];
      out->object_first_value[first + i] = v;
      if (!b.object_value_count.empty()) v += b.object_value_count[i];
    }
    out->refs.insert(out->refs.end(), b.refs.begin(), b.refs.end());
    if (b.ref_slot.empty())
      out->ref_slot.resize(out->refs.size(), kNoSlot);
    else
      out->ref_slot.insert(out->ref_slot.end(), b.ref_slot.begin(), b.ref_slot.end());
    out->values.insert(out->values.end(), b.values.begin(), b.values.end());
  }
}

std::string CanonicalText(const FieldCapture& c) {
  std::ostringstream o;
  for (const auto& [id, l] : c.layouts) {
    o << "layout " << c.type_names.at(id) << " shape " << static_cast<int>(l.shape);
    for (const protocol::RawField& f : l.fields)
      o << " " << f.name << ":" << f.type_name << "@" << f.offset << "/"
        << protocol::FieldKindName(f.kind);
    for (const protocol::RawStaticField& f : l.statics)
      o << " static " << f.name << ":" << f.type_name;
    o << "\n";
  }
  for (size_t i = 0; i < c.root_object.size(); ++i) {
    const protocol::RawContainer& k = c.containers.at(c.root_container[i]);
    o << "root " << FormatHex(c.root_object[i]) << " container " << k.kind << " " << k.label;
    if (c.root_slot[i] != kNoSlot && k.kind == 11)
      o << " static " << c.layouts.at(static_cast<uint32_t>(k.id1)).statics.at(c.root_slot[i]).name;
    o << "\n";
  }
  for (size_t i = 0; i < c.object_id.size(); ++i) {
    o << FormatHex(c.object_id[i]) << " " << c.TypeName(i) << " " << c.object_size[i];
    const protocol::RawLayout* l = c.Layout(i);
    if (l && l->shape == protocol::TypeShape::kString) {
      uint64_t length = 0;
      const std::string text = c.Text(i, &length);
      o << " \"" << text << "\" (" << length << ")";
    } else if (l && !c.object_value_count.empty() && c.object_value_count[i] > 0) {
      if (l->shape == protocol::TypeShape::kArray) {
        o << " length " << c.values[c.object_first_value[i]];
      } else {
        for (const protocol::RawField& f : l->fields) {
          uint64_t bits;
          if (protocol::IsValueKind(f.kind) && c.Value(i, f.name, &bits))
            o << " " << f.name << "=" << ValueText(f.kind, bits);
        }
      }
    }
    for (uint64_t r = c.object_first_ref[i], e = r + c.object_ref_count[i]; r < e; ++r) {
      const uint32_t s = c.ref_slot[r];
      o << " ";
      if (s == kNoSlot)
        o << "?";
      else if (l && l->shape == protocol::TypeShape::kArray)
        o << "[" << s << "]";
      else if (l && s < l->fields.size())
        o << l->fields[s].name;
      o << "->" << FormatHex(c.refs[r]);
    }
    o << "\n";
  }
  return o.str();
}

}  // namespace xrpm::testing
