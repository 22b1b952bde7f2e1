#include "xrpm/formats/netcf_writer.h"

#include "xrpm/model/atomic_file.h"

namespace xrpm::formats {

void NetcfTextWriter::Hex(uint64_t v) {
  char tmp[16];
  int n = 0;
  do {
    tmp[n++] = "0123456789abcdef"[v & 0xF];
    v >>= 4;
  } while (v);
  while (n) buf_.push_back(tmp[--n]);
}

void NetcfTextWriter::BeginSection(uint32_t version, std::string_view name,
                                   std::optional<uint64_t> start_ms) {
  buf_ += "a ";
  Hex(version);
  buf_ += ' ';
  buf_ += name;
  if (start_ms) {
    buf_ += ' ';
    Hex(*start_ms);
  }
  buf_ += '\n';
  MaybeFlush();
}

void NetcfTextWriter::Type(TypeId id, std::string_view name) {
  buf_ += "t ";
  Hex(id);
  buf_ += ' ';
  buf_ += name;
  buf_ += '\n';
  MaybeFlush();
}

void NetcfTextWriter::Object(ObjectId id, TypeId type, uint32_t size,
                             std::span<const ObjectId> refs) {
  buf_ += "o ";
  Hex(id);
  buf_ += ' ';
  Hex(type);
  buf_ += ' ';
  Hex(size);
  for (ObjectId r : refs) {
    buf_ += ' ';
    Hex(r);
  }
  buf_ += '\n';
  MaybeFlush();
}

void NetcfTextWriter::Root(ObjectId object, RootKind kind, uint8_t flags, TypeId container) {
  buf_ += "r ";
  Hex(object);
  buf_ += ' ';
  Hex(static_cast<uint8_t>(kind));
  buf_ += ' ';
  Hex(flags);
  if (kind == RootKind::kStatic) {
    buf_ += ' ';
    Hex(container);
  }
  buf_ += '\n';
  MaybeFlush();
}

void NetcfTextWriter::EndSection(std::string_view name, std::optional<uint64_t> end_ms) {
  buf_ += "c ";
  buf_ += name;
  if (end_ms) {
    buf_ += ' ';
    Hex(*end_ms);
  }
  buf_ += '\n';
  MaybeFlush();
}

void NetcfTextWriter::Finish() {
  if (!buf_.empty()) sink_(buf_);
  buf_.clear();
}

void WriteNetcf(const Snapshot& snap, const NetcfTextWriter::Sink& sink) {
  NetcfTextWriter w(sink);
  for (const AppDomainSection& s : snap.sections) {
    w.BeginSection(s.version, s.name, s.start_ms);
    for (uint32_t t = s.types_begin; t < s.types_end; ++t)
      if (!snap.types[t].placeholder) w.Type(snap.types[t].id, snap.types[t].written_name());
    for (uint64_t o = s.objects_begin; o < s.objects_end; ++o)
      w.Object(snap.object_id[o], snap.types[snap.object_type[o]].id, snap.object_size[o],
               snap.object_refs(o));
    for (uint64_t r = s.roots_begin; r < s.roots_end; ++r)
      w.Root(snap.root_object[r], snap.root_kind_of(r),  // the NETCF format has no conservative bit
             static_cast<uint8_t>(snap.root_flags[r] & ~kRootConservative), snap.root_container[r]);
    if (s.closed) w.EndSection(s.end_name.empty() ? s.name : s.end_name, s.end_ms);
  }
  w.Finish();
}

void WriteNetcfFile(const Snapshot& snap, const std::string& path) {
  AtomicFile f(path);
  WriteNetcf(snap, [&](std::string_view b) { f.Write(b); });
  f.Commit();
}

}  // namespace xrpm::formats
